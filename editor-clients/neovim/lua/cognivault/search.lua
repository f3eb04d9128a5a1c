---@mod cognivault.search :CogniSearch and :CogniRelated — the language server's custom requests,
--- shown in telescope, fzf-lua or the quickfix list.
local config = require("cognivault.config")
local util = require("cognivault.util")
local lsp = require("cognivault.lsp")
local companion = require("cognivault.companion")

local M = {}

M.last = nil -- { kind, title, items } of the last search or related list (for tests and :copen)

local function fname(uri_or_path, vault)
  if uri_or_path:match("^file://") then
    return vim.uri_to_fname(uri_or_path)
  end
  if uri_or_path:sub(1, 1) == "/" then
    return uri_or_path
  end
  return (vault or ".") .. "/" .. uri_or_path
end

local function one_line(text)
  return (tostring(text or ""):gsub("%s+", " "))
end

--- Quickfix items from a cognivault/search answer (LSP shape) or a /api/search answer.
function M.search_items(result, vault)
  local items = {}
  for _, r in ipairs((result and result.results) or {}) do
    local lnum, col, end_lnum = 1, 1, nil
    if r.range then
      lnum = r.range.start.line + 1
      col = r.range.start.character + 1
      end_lnum = r.range["end"].line + 1
    elseif r.line_start then
      lnum = math.max(r.line_start, 1)
      end_lnum = r.line_end
    end
    local heading = r.headingPath or r.heading_path or {}
    local where = #heading > 0 and table.concat(heading, " › ") or (r.title or r.path or "")
    table.insert(items, {
      filename = fname(r.uri or r.path, vault),
      lnum = lnum,
      col = col,
      end_lnum = end_lnum,
      text = ("%s: %s"):format(where, one_line(r.snippet)),
      user_data = { score = r.score, path = r.path },
    })
  end
  return items
end

function M.related_items(result, vault)
  local items = {}
  for _, r in ipairs((result and result.related) or {}) do
    local why = r.why or r.reasons or {}
    table.insert(items, {
      filename = fname(r.uri or r.path, vault),
      lnum = 1,
      col = 1,
      text = ("%s (%.2f; %s)"):format(r.title or r.path, tonumber(r.score) or 0, table.concat(why, ", ")),
      user_data = { score = r.score, path = r.path },
    })
  end
  return items
end

local function picker_name()
  local choice = config.options.search.picker
  if choice == "quickfix" then
    return "quickfix"
  end
  if (choice == "auto" or choice == "telescope") and pcall(require, "telescope") then
    return "telescope"
  end
  if (choice == "auto" or choice == "fzf-lua") and pcall(require, "fzf-lua") then
    return "fzf-lua"
  end
  return "quickfix"
end

local function telescope(title, items)
  local pickers = require("telescope.pickers")
  local finders = require("telescope.finders")
  local conf = require("telescope.config").values
  local make_entry = require("telescope.make_entry")
  pickers
    .new({}, {
      prompt_title = title,
      finder = finders.new_table({ results = items, entry_maker = make_entry.gen_from_quickfix({}) }),
      previewer = conf.qflist_previewer({}),
      sorter = conf.generic_sorter({}),
    })
    :find()
end

local function fzf(title, items)
  local fzf_lua = require("fzf-lua")
  local lines, by_line = {}, {}
  for _, item in ipairs(items) do
    local line = ("%s:%d:%d: %s"):format(vim.fn.fnamemodify(item.filename, ":~:."), item.lnum, item.col, item.text)
    table.insert(lines, line)
    by_line[line] = item
  end
  fzf_lua.fzf_exec(lines, {
    prompt = title .. "> ",
    previewer = "builtin",
    actions = {
      ["default"] = function(selected)
        local item = selected and by_line[selected[1]]
        if item then
          util.open_location(item.filename, item.lnum, item.col)
        end
      end,
    },
  })
end

--- Show `items` in the configured picker (quickfix when none is installed).
function M.show(kind, title, items)
  M.last = { kind = kind, title = title, items = items }
  if #items == 0 then
    util.notify(title .. ": nothing found")
    vim.fn.setqflist({}, " ", { title = title, items = {} })
    return
  end
  local picker = picker_name()
  if picker == "telescope" then
    return telescope(title, items)
  elseif picker == "fzf-lua" then
    return fzf(title, items)
  end
  vim.fn.setqflist({}, " ", { title = title, items = items })
  vim.cmd("botright copen")
end

--- :CogniSearch — `cognivault/search` on the language server, else /api/search on the companion.
function M.search(query, opts)
  opts = opts or {}
  query = vim.trim(query or "")
  if query == "" then
    util.warn("CogniSearch: the query is empty")
    return
  end
  local title = "CogniVault search: " .. query
  local function done(err, items)
    if err then
      util.error("search failed: " .. tostring(err))
    else
      M.show("search", title, items)
    end
    if opts.on_done then
      opts.on_done(err, items)
    end
  end
  local client = lsp.client(0)
  local vault = require("cognivault").vault()
  if client then
    lsp.request(client, "cognivault/search", { query = query, k = opts.k or config.options.search.k }, function(err, result)
      done(err and (err.message or vim.inspect(err)), not err and M.search_items(result, vault) or nil)
    end, 0)
    return
  end
  companion.ensure(vault, function(err, info)
    if err then
      return done("no language server attached, and " .. err)
    end
    local k = math.min(opts.k or config.options.search.k, 100)
    companion.request(info, "POST", "/api/search", { query = query, k = k }, function(req_err, result)
      done(req_err, not req_err and M.search_items(result, vault) or nil)
    end)
  end)
end

--- :CogniRelated — notes related to the current one.
function M.related(opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local path = util.buf_path(bufnr)
  if not path then
    util.warn("CogniRelated: the current buffer is not a file")
    return
  end
  local vault = require("cognivault").vault()
  local title = "CogniVault related: " .. vim.fn.fnamemodify(path, ":t:r")
  local function done(err, items)
    if err then
      util.error("related notes failed: " .. tostring(err))
    else
      M.show("related", title, items)
    end
    if opts.on_done then
      opts.on_done(err, items)
    end
  end
  local client = lsp.client(bufnr)
  if client then
    lsp.request(client, "cognivault/related", { uri = vim.uri_from_fname(path), k = opts.k or 10 }, function(err, result)
      done(err and (err.message or vim.inspect(err)), not err and M.related_items(result, vault) or nil)
    end, bufnr)
    return
  end
  local rel = util.relative(path, vault)
  if not rel then
    return done("the current file is not in the vault")
  end
  companion.ensure(vault, function(err, info)
    if err then
      return done("no language server attached, and " .. err)
    end
    companion.request(info, "GET", "/api/related?path=" .. util.url_encode(rel) .. "&k=" .. (opts.k or 10), nil,
      function(req_err, result)
        done(req_err, not req_err and M.related_items(result, vault) or nil)
      end)
  end)
end

return M
