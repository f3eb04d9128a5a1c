---@mod cognivault.lsp Starting `cognivault lsp` for Markdown buffers in a vault, and talking to it.
local config = require("cognivault.config")
local util = require("cognivault.util")

local M = {}

M.name = "cognivault"
local has_new_api = vim.lsp.config ~= nil and vim.lsp.enable ~= nil and vim.fn.has("nvim-0.11") == 1

--- The vault a buffer belongs to: the configured vault when the file is inside it,
--- else the nearest folder holding a root marker. nil: not a vault note.
function M.root(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local path = util.buf_path(bufnr)
  if not path then
    return nil
  end
  local o = config.options
  if o.vault then
    local vault = util.normalize(o.vault)
    return util.inside(path, vault) and vault or nil
  end
  local root = vim.fs.root(path, o.root_markers)
  return root and util.normalize(root) or nil
end

local function init_options()
  return vim.deepcopy(config.options.settings or {})
end

local function on_attach(client, bufnr)
  local user = config.options.on_attach
  if type(user) == "function" then
    local ok, err = pcall(user, client, bufnr)
    if not ok then
      util.error("on_attach failed: " .. tostring(err))
    end
  end
end

--- The configuration handed to vim.lsp.config / vim.lsp.start (without root_dir).
function M.base_config()
  return {
    cmd = vim.deepcopy(config.options.cmd),
    filetypes = vim.deepcopy(config.options.filetypes),
    init_options = init_options(),
    settings = { cognivault = init_options() },
    on_attach = on_attach,
  }
end

local augroup = vim.api.nvim_create_augroup("cognivault.lsp", { clear = true })

local function start_legacy(bufnr)
  local root = M.root(bufnr)
  if not root then
    return
  end
  local cfg = M.base_config()
  cfg.name = M.name
  cfg.root_dir = root
  cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } }
  cfg.filetypes = nil
  vim.lsp.start(cfg, { bufnr = bufnr })
end

function M.setup()
  vim.api.nvim_clear_autocmds({ group = augroup })
  if not config.options.lsp then
    return
  end
  if has_new_api then
    local cfg = M.base_config()
    cfg.root_dir = function(bufnr, on_dir)
      local root = M.root(bufnr)
      if root then
        on_dir(root)
      end
    end
    vim.lsp.config(M.name, cfg)
    vim.lsp.enable(M.name)
  else
    vim.api.nvim_create_autocmd("FileType", {
      group = augroup,
      pattern = config.options.filetypes,
      callback = function(args)
        start_legacy(args.buf)
      end,
    })
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(config.options.filetypes, vim.bo[buf].filetype) then
        start_legacy(buf)
      end
    end
  end
end

-- Index progress ($/progress from the server), for statuslines: vault -> { title, message, percentage, done }.
M.progress = {}

vim.api.nvim_create_autocmd("LspProgress", {
  group = vim.api.nvim_create_augroup("cognivault.progress", { clear = true }),
  callback = function(args)
    local data = args.data or {}
    local client = data.client_id and vim.lsp.get_client_by_id(data.client_id)
    if not client or client.name ~= M.name then
      return
    end
    local value = (data.params or {}).value or {}
    local entry = M.progress[client.root_dir or ""] or {}
    if value.kind == "begin" then
      entry = { title = value.title, message = value.message, percentage = value.percentage, done = false }
    elseif value.kind == "report" then
      entry.message = value.message or entry.message
      entry.percentage = value.percentage or entry.percentage
    elseif value.kind == "end" then
      entry.done, entry.message = true, value.message or entry.message
    end
    M.progress[client.root_dir or ""] = entry
  end,
})

local function get_clients(filter)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  return vim.lsp.get_active_clients(filter) ---@diagnostic disable-line: deprecated
end

--- The cognivault client of `bufnr`, else the one serving the buffer's vault, else any.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local attached = get_clients({ name = M.name, bufnr = bufnr })
  if attached[1] then
    return attached[1]
  end
  local all = get_clients({ name = M.name })
  local root = M.root(bufnr)
  for _, client in ipairs(all) do
    if root and client.root_dir and util.normalize(client.root_dir) == root then
      return client
    end
  end
  if not root and #all == 1 then
    return all[1]
  end
  return nil
end

function M.clients()
  return get_clients({ name = M.name })
end

--- An asynchronous request; `callback(err, result)` runs on the main loop.
function M.request(client, method, params, callback, bufnr)
  local handler = function(err, result)
    callback(err, result)
  end
  local ok, id
  if vim.fn.has("nvim-0.11") == 1 then
    ok, id = client:request(method, params, handler, bufnr)
  else
    ok, id = client.request(method, params, handler, bufnr)
  end
  if not ok then
    callback({ message = "the language server is not running" }, nil)
  end
  return id
end

return M
