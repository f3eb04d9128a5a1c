---@mod cognivault.ask :CogniAsk — the answer streams into a float or split as Markdown (treesitter
--- highlighting and conceal, `[[Note#Heading|alias]]` shown as its alias); <CR> or gf on a source line,
--- a `[S1]` marker or a `[[link]]` opens the note at its line.
local config = require("cognivault.config")
local util = require("cognivault.util")
local companion = require("cognivault.companion")

local M = {}

local BUF_NAME = "cognivault://ask"
local ns = vim.api.nvim_create_namespace("cognivault.ask")

---@class cognivault.AskState
M.state = nil -- the current (or last) conversation turn; see new_state()

local function new_state(question, vault, previous)
  return {
    question = question,
    vault = vault,
    session_id = previous and previous.session_id
      or ("nvim-%d-%d"):format(os.time(), math.random(100000, 999999)),
    turns = previous and previous.turns or {},
    thinking = "",
    text = "",
    sources = {}, -- label -> source
    order = {}, -- labels in arrival order
    confidence = nil,
    status = "connecting",
    error = nil,
    updates = 0,
    done = false,
  }
end

local function source_line(src)
  local where = src.path or "?"
  if src.line_start and src.line_start > 0 then
    where = ("%s:%d"):format(where, src.line_start)
    if src.line_end and src.line_end > src.line_start then
      where = where .. "-" .. src.line_end
    end
  end
  if src.locator and src.locator ~= "" then
    where = where .. " " .. src.locator
  end
  local heading = (src.heading_path and #src.heading_path > 0) and table.concat(src.heading_path, " › ")
    or src.title
    or ""
  return ("[%s] %s  (%s)"):format(src.label or "?", heading, where)
end

--- An answer's text as shown: Markdown, with the vault's `<!--cv:…-->` comments dropped (also one without
--- its `-->`); a citation (`[[Note#Heading|label]]<!--cv:cite …-->`) keeps its link. While `streaming`, an
--- unfinished comment at the end (and the link before it) is held back until the next chunk completes it.
function M.answer_text(text, streaming)
  if streaming then
    local tail_start = text:find("<[^<]*$")
    if tail_start then
      local tail = text:sub(tail_start)
      local prefix = ("<!--cv:"):sub(1, #tail)
      if (tail == prefix or tail:sub(1, 7) == "<!--cv:") and not tail:find("-->", 1, true) then
        text = text:sub(1, tail_start - 1):gsub("%[%[[^%[%]\n]*%]%] ?$", "")
      end
    end
  end
  text = text:gsub("(%[%[[^%[%]\n]-%]%]) ?<!%-%-cv:cite[^>]-%-%->", "%1")
  text = text:gsub("<!%-%-cv:[^>\n]-%-%->", "")
  -- one that lost its --> on the way (a model or a sentence splitter trimmed it): up to punctuation
  return (text:gsub("<!%-%-cv:[^\n%.,;:!%?%[]*", ""))
end

--- The 1-based line a link's `subpath` (`Heading`, `Parent#Heading`, `^block-id`) points at in `lines`; 1 if none.
function M.subpath_line(lines, subpath)
  local function words(text)
    return vim.trim(text):gsub("%s+", " "):lower()
  end
  subpath = vim.trim(subpath)
  if subpath:sub(1, 1) == "^" then
    for i, line in ipairs(lines) do
      local trimmed = vim.trim(line)
      if trimmed == subpath or vim.endswith(trimmed, " " .. subpath) then
        return i
      end
    end
    return 1
  end
  local from, found = 1, nil
  for part in subpath:gmatch("[^#]+") do
    local wanted, hit = words(part), nil
    for i = from, #lines do
      local title = lines[i]:match("^#+%s+(.-)%s*#*%s*$")
      if title and #lines[i]:match("^#+") <= 6 and words(title) == wanted then
        hit = i
        break
      end
    end
    if not hit then
      break
    end
    found, from = hit, hit + 1
  end
  return found or 1
end

--- The vault-relative path of the note a link's target names: a path from the vault's root, else the note
--- of that name nearest the root (as Obsidian resolves it, never in a hidden folder); nil when there is none.
function M.resolve_note(vault, target)
  local name = vim.trim(target):gsub("\\", "/"):gsub("%.[mM][dD]$", "")
  if not name:find("%.%.") and vim.fn.filereadable(vault .. "/" .. name .. ".md") == 1 then
    return name .. ".md"
  end
  local tail = "/" .. name:lower() .. ".md"
  local found = {}
  for _, file in ipairs(vim.fn.globpath(vault, "**/*.md", false, true)) do
    local relative = file:sub(#vault + 2)
    if vim.endswith("/" .. relative:lower(), tail) and not ("/" .. relative):find("/%.") then
      table.insert(found, relative)
    end
  end
  table.sort(found, function(a, b)
    local da, db = select(2, a:gsub("/", "")), select(2, b:gsub("/", ""))
    return da < db or (da == db and a < b)
  end)
  return found[1]
end

--- The buffer's lines and, per line, the source a <CR> on it opens.
local function render_lines(state)
  local lines, targets = {}, {}
  local function add(text, target)
    for _, line in ipairs(util.split_lines(text)) do
      table.insert(lines, line)
      if target then
        targets[#lines] = target
      end
    end
  end
  for _, turn in ipairs(state.turns) do
    add("## " .. turn.question)
    add("")
    add(turn.answer)
    add("")
  end
  add("## " .. state.question)
  add("")
  if state.confidence then
    add(("_Confidence: %s — %s_"):format(state.confidence.label or "?", state.confidence.reason or ""))
    add("")
  end
  if state.thinking ~= "" then
    if config.options.ask.show_reasoning then
      add("> Reasoning:")
      for _, line in ipairs(util.split_lines(state.thinking)) do
        add("> " .. line)
      end
    else
      add(("_Reasoning: %d characters (press t to show)_"):format(#state.thinking))
    end
    add("")
  end
  if state.text ~= "" then
    add(M.answer_text(state.text, not state.done))
  elseif not state.done then
    add("_" .. state.status .. "…_")
  end
  if state.error then
    add("")
    add("**Error:** " .. state.error)
  end
  if #state.order > 0 then
    add("")
    add("### Sources")
    for _, label in ipairs(state.order) do
      local src = state.sources[label]
      add(source_line(src), src)
    end
  end
  add("")
  if state.done then
    add("_<CR>/gf opens a source or link · s: sources to quickfix · a: ask a follow-up · t: reasoning · q: close_")
  else
    add("_streaming… (q closes and stops)_")
  end
  return lines, targets
end

local function render()
  local state = M.state
  if not state or not state.buf or not vim.api.nvim_buf_is_valid(state.buf) then
    return
  end
  local lines, targets = render_lines(state)
  state.targets = targets
  util.set_lines(state.buf, lines)
  vim.api.nvim_buf_clear_namespace(state.buf, ns, 0, -1)
  -- `[[target#heading|alias]]` reads as its alias (the cursor's line shows the whole link, as in a note).
  for row, line in ipairs(lines) do
    for start, inner, stop in line:gmatch("()%[%[([^%[%]\n]-)%]%]()") do
      local bar = inner:find("|", 1, true)
      local shown_from = start + 2 + (bar or 0)
      pcall(vim.api.nvim_buf_set_extmark, state.buf, ns, row - 1, start - 1,
        { end_col = shown_from - 1, conceal = "" })
      pcall(vim.api.nvim_buf_set_extmark, state.buf, ns, row - 1, shown_from - 1,
        { end_col = stop - 3, hl_group = "@markup.link.label" })
      pcall(vim.api.nvim_buf_set_extmark, state.buf, ns, row - 1, stop - 3, { end_col = stop - 1, conceal = "" })
    end
    for start, stop in line:gmatch("()%[S%d+%]()") do
      pcall(vim.api.nvim_buf_set_extmark, state.buf, ns, row - 1, start - 1, { end_col = stop - 1, hl_group = "Special" })
    end
  end
  state.updates = state.updates + 1
  if state.win and vim.api.nvim_win_is_valid(state.win) then
    -- Follow the stream while the cursor sits at the end.
    local cursor = vim.api.nvim_win_get_cursor(state.win)[1]
    if not state.done and cursor >= state.follow_from then
      pcall(vim.api.nvim_win_set_cursor, state.win, { #lines, 0 })
    end
    state.follow_from = #lines
  end
end

local render_pending = false
local function schedule_render()
  if render_pending then
    return
  end
  render_pending = true
  vim.schedule(function()
    render_pending = false
    render()
  end)
end

local function add_source(state, src)
  if type(src) ~= "table" or not src.label then
    return
  end
  if not state.sources[src.label] then
    table.insert(state.order, src.label)
  end
  state.sources[src.label] = src
end

--- One envelope of the /api/ask stream.
function M.on_envelope(state, env)
  local kind, data = env.type, env.data
  if kind == "thinking" then
    state.status = "thinking"
    state.thinking = state.thinking .. (type(data) == "table" and (data.text or "") or tostring(data or ""))
  elseif kind == "confidence" then
    state.confidence = type(data) == "table" and data or nil
  elseif kind == "metadata" then
    add_source(state, data)
  elseif kind == "text" then
    state.status = "answering"
    state.text = state.text .. (type(data) == "table" and (data.text or "") or tostring(data or ""))
  elseif kind == "memory" then
    state.memory = data
  elseif kind == "done" then
    if type(data) == "table" then
      if type(data.answer) == "string" and data.answer ~= "" then
        state.text = data.answer
      end
      for _, src in ipairs(data.sources or {}) do
        add_source(state, src)
      end
    end
    state.result = data
  elseif kind == "error" then
    state.error = type(data) == "table" and ((data.message or "error") .. (data.code and (" (" .. data.code .. ")") or ""))
      or tostring(data)
  end
  if state == M.state then
    schedule_render()
  end
end

--- What <CR>/gf under the cursor opens: a source line, an inline `[S1]` (at the cited lines), or a
--- `[[Note#Heading|alias]]` link (the note at that heading or block).
local function source_at_cursor(state)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  if state.targets and state.targets[line] then
    return state.targets[line]
  end
  local text = vim.api.nvim_get_current_line()
  local col = vim.api.nvim_win_get_cursor(0)[2] + 1
  for start, inner, stop in text:gmatch("()%[%[([^%[%]\n]-)%]%]()") do
    if col >= start and col < stop then
      local target = inner:match("^([^|]*)")
      local note, subpath = target:match("^([^#]*)#?(.*)$")
      local path = M.resolve_note(state.vault, note)
      if not path then
        util.warn(("CogniVault: no note %q in the vault"):format(note))
        return nil
      end
      local at = subpath ~= "" and M.subpath_line(vim.fn.readfile(state.vault .. "/" .. path), subpath) or 1
      return { path = path, line_start = at }
    end
  end
  for start, label, stop in text:gmatch("()%[(S%d+)%]()") do
    if col >= start and col < stop then
      return state.sources[label]
    end
  end
  return nil
end

function M.open_source(src, state)
  state = state or M.state
  if not src or not src.path or not state then
    return
  end
  local path = src.path:sub(1, 1) == "/" and src.path or (state.vault .. "/" .. src.path)
  if state.win and vim.api.nvim_win_is_valid(state.win) and vim.api.nvim_win_get_config(state.win).relative ~= "" then
    vim.api.nvim_win_close(state.win, true)
  end
  util.open_location(path, src.line_start, 1, state.origin_win)
end

function M.sources_to_quickfix(state)
  state = state or M.state
  if not state then
    return
  end
  local items = {}
  for _, label in ipairs(state.order) do
    local src = state.sources[label]
    table.insert(items, {
      filename = src.path:sub(1, 1) == "/" and src.path or (state.vault .. "/" .. src.path),
      lnum = math.max(src.line_start or 1, 1),
      end_lnum = src.line_end,
      col = 1,
      text = ("[%s] %s"):format(label, (src.heading_path and table.concat(src.heading_path, " › ")) or src.title or ""),
    })
  end
  vim.fn.setqflist({}, " ", { title = "CogniVault sources: " .. state.question, items = items })
  return items
end

local function cancel(state)
  if state and state.handle and not state.done then
    state.handle.cancel()
  end
end

local function close()
  local state = M.state
  cancel(state)
  if state and state.win and vim.api.nvim_win_is_valid(state.win) then
    if #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(state.win, true)
    else
      vim.cmd("enew")
    end
  end
end

local function keymaps(buf)
  local function map(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
  end
  local function follow()
    M.open_source(M.state and source_at_cursor(M.state))
  end
  map("<CR>", follow, "CogniVault: open the source or link under the cursor")
  map("gf", follow, "CogniVault: open the source or link under the cursor")
  map("q", close, "CogniVault: close the answer")
  map("s", function()
    if M.sources_to_quickfix() then
      vim.cmd("botright copen")
    end
  end, "CogniVault: sources to quickfix")
  map("t", function()
    config.options.ask.show_reasoning = not config.options.ask.show_reasoning
    render()
  end, "CogniVault: toggle reasoning")
  map("a", function()
    vim.ui.input({ prompt = "Follow-up: " }, function(question)
      if question and vim.trim(question) ~= "" then
        M.ask(question, { follow_up = true })
      end
    end)
  end, "CogniVault: ask a follow-up")
end

--- Markdown as in a note: treesitter's highlighting and conceal (bold without its `**`, links as labels).
local function markdown_view(buf, win)
  pcall(vim.treesitter.start, buf, "markdown")
  vim.wo[win].conceallevel = 2
  vim.wo[win].concealcursor = ""
end

local function open_window(state)
  local buf = util.scratch(BUF_NAME, "markdown")
  state.buf = buf
  local existing = M.state and M.state.win
  if existing and vim.api.nvim_win_is_valid(existing) and vim.api.nvim_win_get_buf(existing) == buf then
    state.win = existing
    markdown_view(buf, existing)
    return
  end
  local layout = config.options.ask.layout
  if layout == "float" then
    state.win = util.float(buf, {
      width = config.options.ask.width,
      height = config.options.ask.height,
      title = "CogniVault",
    })
  else
    if layout == "split" then
      local h = config.options.ask.height
      vim.cmd(("botright %dsplit"):format(h <= 1 and math.floor(vim.o.lines * h) or h))
    else
      local w = config.options.ask.width
      vim.cmd(("botright %dvsplit"):format(w <= 1 and math.floor(vim.o.columns * w / 2) or w))
    end
    state.win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(state.win, buf)
    vim.wo[state.win].wrap = true
    vim.wo[state.win].linebreak = true
  end
  markdown_view(buf, state.win)
  keymaps(buf)
end

--- Ask the vault. `opts.follow_up` keeps the conversation (same session) going.
--- Returns the state table immediately; the answer streams into it and its window.
function M.ask(question, opts)
  opts = opts or {}
  question = vim.trim(question or "")
  if question == "" then
    util.warn("CogniAsk: the question is empty")
    return nil
  end
  local previous = opts.follow_up and M.state or nil
  if previous and previous.done then
    table.insert(previous.turns, { question = previous.question, answer = M.answer_text(previous.text, false) })
  end
  cancel(M.state)
  local origin = (M.state and M.state.origin_win) or vim.api.nvim_get_current_win()
  if not opts.follow_up then
    origin = vim.api.nvim_get_current_win()
  end
  local vault = opts.vault or require("cognivault").vault()
  local state = new_state(question, vault, previous)
  state.origin_win = util.main_window(origin)
  state.follow_from = 0
  open_window(state)
  M.state = state
  render()
  companion.ensure(vault, function(err, info)
    if err then
      state.error = err
      state.done = true
      if state == M.state then
        render()
      end
      return
    end
    state.status = "searching the vault"
    if state == M.state then
      render()
    end
    local body = { question = question, session_id = state.session_id, max_sources = config.options.ask.max_sources }
    if opts.scope then
      body.scope = opts.scope
    end
    state.handle = companion.stream(info, "/api/ask", body, function(env)
      M.on_envelope(state, env)
    end, function(stream_err)
      state.done = true
      if stream_err and stream_err ~= "cancelled" and not state.error then
        state.error = stream_err
      end
      if state == M.state then
        render()
      end
      if opts.on_done then
        opts.on_done(state)
      end
    end)
  end)
  return state
end

return M
