---@mod cognivault.config Settings of the CogniVault Neovim plugin.
local M = {}

---@class cognivault.Config
M.defaults = {
  -- The language server command (stdio). Use an absolute path or a venv's binary if
  -- `cognivault` is not on $PATH, e.g. { "~/.venvs/cv/bin/cognivault", "lsp" }.
  cmd = { "cognivault", "lsp" },
  filetypes = { "markdown" },
  -- A folder holding one of these is a vault (the server's workspace root).
  root_markers = { ".cognivault", ".obsidian" },
  -- A fixed vault folder: buffers inside it attach, whatever the markers say.
  vault = nil,
  -- Start the language server for Markdown buffers in a vault.
  lsp = true,
  -- initializationOptions / workspace settings of the server (vault_schema/lsp-settings.schema.json),
  -- e.g. { embeddings = false } for keyword search only, { search = { k = 20 } }.
  settings = {},
  -- Called with (client, bufnr) when the server attaches to a buffer.
  on_attach = nil,
  companion = {
    -- Fixed address and token; normally read from <vault>/.cognivault/companion.json.
    url = nil,
    token = nil,
    -- Start `cognivault serve --vault <vault> --port 0` when no companion runs (stopped on exit).
    autostart = false,
    -- The serve command; nil: derived from `cmd` (its "lsp" argument becomes "serve").
    cmd = nil,
    -- Extra arguments for serve, e.g. { "--keyword-only" }.
    args = {},
    -- Seconds an autostarted companion may take to print its address.
    start_timeout = 30,
  },
  curl = "curl",
  ask = {
    layout = "float", -- "float" | "vsplit" | "split"
    width = 0.7, -- of the editor (float, vsplit)
    height = 0.7, -- of the editor (float, split)
    max_sources = 6,
    show_reasoning = false,
  },
  search = {
    k = 20,
    picker = "auto", -- "auto" (telescope, then fzf-lua, then quickfix) | "telescope" | "fzf-lua" | "quickfix"
  },
  study = {
    count = nil, -- cards / questions per generation (nil: the server's default)
    provider = nil, -- "auto" | "ollama" | "extractive" | "llamacpp" (nil: the companion's choice)
  },
}

M.options = vim.deepcopy(M.defaults)
M.did_setup = false

---@param opts table|nil
function M.set(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  -- Lists are replaced, not merged.
  for _, key in ipairs({ "cmd", "filetypes", "root_markers" }) do
    if opts and opts[key] ~= nil then
      M.options[key] = opts[key]
    end
  end
  if opts and opts.companion and opts.companion.args ~= nil then
    M.options.companion.args = opts.companion.args
  end
  if opts and opts.companion and opts.companion.cmd ~= nil then
    M.options.companion.cmd = opts.companion.cmd
  end
  M.did_setup = true
  return M.options
end

--- The `cognivault serve` command: companion.cmd, else `cmd` with its "lsp" turned into "serve".
function M.serve_cmd()
  local o = M.options
  if o.companion.cmd then
    return vim.deepcopy(o.companion.cmd)
  end
  local out = {}
  for _, part in ipairs(o.cmd) do
    if part == "lsp" then
      table.insert(out, "serve")
      return out
    end
    table.insert(out, part)
  end
  return { "cognivault", "serve" }
end

return M
