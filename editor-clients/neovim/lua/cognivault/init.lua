---@mod cognivault CogniVault for Neovim: the vault's language server plus the local companion.
---
--- require("cognivault").setup({ ... }) -- see lua/cognivault/config.lua for every option
local config = require("cognivault.config")
local util = require("cognivault.util")

local M = {}

M.version = "0.1.0"

---@param opts table|nil
function M.setup(opts)
  if vim.fn.has("nvim-0.10") ~= 1 then
    util.error("CogniVault needs Neovim 0.10 or newer")
    return
  end
  config.set(opts)
  require("cognivault.lsp").setup()
  return M
end

--- The vault of the current buffer: configured, the language server's root, a marker folder,
--- or the current directory when it holds a marker.
function M.vault(bufnr)
  local lsp = require("cognivault.lsp")
  if config.options.vault then
    return util.normalize(config.options.vault)
  end
  local root = lsp.root(bufnr or 0)
  if root then
    return root
  end
  local client = lsp.client(bufnr or 0)
  if client and client.root_dir then
    return util.normalize(client.root_dir)
  end
  local cwd_root = vim.fs.root(vim.fn.getcwd(), config.options.root_markers)
  return cwd_root and util.normalize(cwd_root) or nil
end

-- Commands ---------------------------------------------------------------------------------

function M.ask(question, opts)
  opts = opts or {}
  if opts.range and opts.range > 0 and opts.line1 then
    local selection = util.range_text(opts.line1, opts.line2)
    question = (question ~= nil and question ~= "" and question or "Explain this passage.")
      .. "\n\nAbout this passage:\n" .. selection
    question = question:sub(1, 4000)
  end
  if question and vim.trim(question) ~= "" then
    return require("cognivault.ask").ask(question, opts)
  end
  vim.ui.input({ prompt = "Ask the vault: " }, function(input)
    if input and vim.trim(input) ~= "" then
      require("cognivault.ask").ask(input, opts)
    end
  end)
end

function M.search(query, opts)
  if query and vim.trim(query) ~= "" then
    return require("cognivault.search").search(query, opts)
  end
  vim.ui.input({ prompt = "Search the vault: " }, function(input)
    if input and vim.trim(input) ~= "" then
      require("cognivault.search").search(input, opts)
    end
  end)
end

function M.related(opts)
  return require("cognivault.search").related(opts)
end

function M.generate(kind, opts)
  return require("cognivault.study").generate(kind, opts)
end

function M.review(opts)
  return require("cognivault.study").review(opts)
end

local function companion_file(vault)
  return vault and require("cognivault.companion").info_file(vault) or "companion.json"
end

--- The dashboard URL (one-time ?token= exchanged for a cookie by the companion) opened
--- with vim.ui.open. `callback(err, url)` when given.
function M.dashboard(callback)
  local vault = M.vault()
  require("cognivault.companion").ensure(vault, function(err, info)
    if err then
      util.error(err)
      return callback and callback(err)
    end
    local url = info.url .. "/dashboard?token=" .. util.url_encode(info.token)
    local opener = vim.ui.open
    if not opener then
      util.notify("open " .. info.url .. "/dashboard in a browser")
      return callback and callback(nil, url)
    end
    -- vim.ui.open returns (process, nil) or (nil, message) when no opener is found.
    local ok, proc, open_err = pcall(opener, url)
    local failure = not ok and tostring(proc) or (proc == nil and open_err) or nil
    if failure then
      util.error(("cannot open a browser (%s); open %s/dashboard?token=<the token in %s>"):format(
        failure, info.url, companion_file(vault)))
    end
    if callback then
      callback(failure, url)
    end
  end)
end

local function status_lines(report)
  local lines = { "# CogniVault status", "" }
  table.insert(lines, "Vault: " .. (report.vault or "(none: open a note inside a vault)"))
  local lsp = report.lsp
  if not lsp then
    table.insert(lines, "Language server: not attached" .. (report.lsp_error and (" (" .. report.lsp_error .. ")") or ""))
  else
    local ix = lsp.indexing or {}
    local phase = ix.phase or "?"
    if phase == "indexing" and (ix.total or 0) > 0 then
      phase = ("%s %d/%d %s"):format(phase, ix.done or 0, ix.total, ix.current or "")
    end
    table.insert(lines, "Language server: " .. phase .. (ix.summary and ix.summary ~= "" and (" — " .. ix.summary) or ""))
    local index = lsp.index or {}
    if index.files then
      table.insert(lines, ("Files: %d indexed of %d, %d skipped"):format(index.files.indexed or 0,
        index.files.total or 0, index.files.skipped or 0))
    end
    if index.stages and index.stages.lexical then
      local emb = index.stages.embedded or {}
      table.insert(lines, ("Passages: %d; embedded %d/%d"):format(index.stages.lexical.chunks or 0,
        emb.done or 0, emb.total or 0))
    end
    local provider = lsp.provider or {}
    table.insert(lines, "Embeddings: " .. tostring(provider.embeddings or "none (keyword search)")
      .. (provider.note and (" — " .. provider.note) or ""))
    for _, failure in ipairs(index.failures or {}) do
      table.insert(lines, ("  %s %s: %s"):format(failure.state or "", failure.path or "", failure.reason or failure.error or ""))
    end
    if lsp.error then
      table.insert(lines, "Error: " .. vim.inspect(lsp.error))
    end
  end
  if report.companion then
    table.insert(lines, "Companion: " .. report.companion.url .. (report.companion.pid and (" (pid " .. report.companion.pid .. ")") or ""))
  else
    table.insert(lines, "Companion: " .. (report.companion_error or "not running"))
  end
  table.insert(lines, "")
  table.insert(lines, "_q closes_")
  return lines
end

--- A short text for a statusline: index progress while the server indexes, else "".
--- e.g. vim.o.statusline = "%f %=%{v:lua.require'cognivault'.statusline()}"
function M.statusline()
  local client = require("cognivault.lsp").client(0)
  if not client then
    return ""
  end
  local entry = require("cognivault.lsp").progress[client.root_dir or ""]
  if not entry or entry.done then
    return ""
  end
  local text = "CogniVault: " .. (entry.title or "indexing")
  if entry.percentage then
    text = text .. (" %d%%"):format(entry.percentage)
  end
  return text
end

M.last_status = nil

--- :CogniStatus — index state from the language server plus the companion's address.
function M.status(opts)
  opts = opts or {}
  local lsp = require("cognivault.lsp")
  local companion = require("cognivault.companion")
  local vault = M.vault()
  local report = { vault = vault }
  local info, why = companion.discover(vault)
  if info then
    report.companion = { url = info.url, pid = info.pid }
  else
    report.companion_error = why .. "; " .. companion.start_hint(vault)
  end
  local function show()
    M.last_status = report
    report.lines = status_lines(report)
    if opts.silent then
      return opts.on_done and opts.on_done(report)
    end
    local buf = util.scratch("cognivault://status", "markdown")
    util.set_lines(buf, report.lines)
    local win = util.float(buf, { width = math.min(90, vim.o.columns - 4), height = #report.lines + 1, title = "CogniVault" })
    vim.keymap.set("n", "q", function()
      if vim.api.nvim_win_is_valid(win) then
        vim.api.nvim_win_close(win, true)
      end
    end, { buffer = buf, nowait = true, silent = true })
    if opts.on_done then
      opts.on_done(report)
    end
  end
  local client = lsp.client(0)
  if not client then
    report.lsp_error = vault and "no Markdown buffer of the vault is open" or nil
    return show()
  end
  lsp.request(client, "cognivault/status", vim.empty_dict(), function(err, result)
    if err then
      report.lsp_error = err.message or vim.inspect(err)
    else
      report.lsp = result
    end
    show()
  end, 0)
end

return M
