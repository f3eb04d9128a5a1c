---@mod cognivault.util Small helpers shared by the plugin's modules.
local M = {}

local uv = vim.uv or vim.loop

function M.notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = "CogniVault" })
end

function M.error(msg)
  M.notify(msg, vim.log.levels.ERROR)
end

function M.warn(msg)
  M.notify(msg, vim.log.levels.WARN)
end

--- `fn` on the main loop (safe for the API) from a libuv callback.
function M.main(fn)
  return function(...)
    local args = vim.F and vim.F.pack_len(...) or { n = select("#", ...), ... }
    vim.schedule(function()
      fn(unpack(args, 1, args.n))
    end)
  end
end

function M.json_decode(text)
  local ok, value = pcall(vim.json.decode, text, { luanil = { object = true, array = true } })
  if ok then
    return value
  end
  return nil, value
end

function M.normalize(path)
  if not path or path == "" then
    return nil
  end
  path = vim.fs.normalize(vim.fn.fnamemodify(vim.fn.expand(path), ":p"))
  if #path > 1 then
    path = path:gsub("/+$", "")
  end
  local real = uv.fs_realpath(path)
  return real or path
end

--- Is `path` inside `folder` (both absolute)?
function M.inside(path, folder)
  if not path or not folder then
    return false
  end
  return path == folder or path:sub(1, #folder + 1) == folder .. "/"
end

--- `path` relative to `folder` with forward slashes, or nil when outside.
function M.relative(path, folder)
  path, folder = M.normalize(path), M.normalize(folder)
  if not M.inside(path, folder) or path == folder then
    return nil
  end
  return path:sub(#folder + 2)
end

function M.buf_path(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr or 0)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  return M.normalize(name)
end

function M.pid_alive(pid)
  if type(pid) ~= "number" then
    return false
  end
  local ok, err = uv.kill(pid, 0)
  if ok == 0 or ok == true then
    return true
  end
  return type(err) == "string" and err:match("EPERM") ~= nil
end

function M.read_file(path)
  local fd = io.open(path, "r")
  if not fd then
    return nil
  end
  local text = fd:read("*a")
  fd:close()
  return text
end

function M.url_encode(text)
  return (tostring(text):gsub("[^%w%-%._~/]", function(c)
    return string.format("%%%02X", string.byte(c))
  end))
end

--- Lines of a visual range (1-based, inclusive) of the current buffer, as one string.
function M.range_text(line1, line2)
  return table.concat(vim.api.nvim_buf_get_lines(0, line1 - 1, line2, false), "\n")
end

--- A window in the editor that is not floating (where notes are opened from a float).
function M.main_window(preferred)
  if preferred and vim.api.nvim_win_is_valid(preferred) and vim.api.nvim_win_get_config(preferred).relative == "" then
    return preferred
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(win).relative == "" and vim.bo[vim.api.nvim_win_get_buf(win)].buftype == "" then
      return win
    end
  end
  return nil
end

--- Open `path` at `line` (1-based), in `win` when given.
function M.open_location(path, line, col, win)
  win = M.main_window(win)
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("botright new")
  end
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  if line and line > 0 then
    local last = vim.api.nvim_buf_line_count(0)
    pcall(vim.api.nvim_win_set_cursor, 0, { math.min(line, last), math.max((col or 1) - 1, 0) })
    vim.cmd("normal! zz")
  end
end

--- A scratch buffer named `name` (reused when it exists).
function M.scratch(name, filetype)
  local existing = vim.fn.bufnr(name)
  local buf
  if existing ~= -1 and vim.api.nvim_buf_is_valid(existing) then
    buf = existing
  else
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  return buf
end

function M.set_lines(buf, lines)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- Split text into buffer lines (no embedded newlines).
function M.split_lines(text)
  return vim.split(text or "", "\n", { plain = true })
end

--- A centered floating window of `width` x `height` (fractions of the editor or cells).
function M.float(buf, opts)
  opts = opts or {}
  local cols, rows = vim.o.columns, vim.o.lines - vim.o.cmdheight
  local width = opts.width or 0.7
  local height = opts.height or 0.7
  width = width <= 1 and math.floor(cols * width) or width
  height = height <= 1 and math.floor(rows * height) or height
  width = math.max(20, math.min(width, cols - 4))
  height = math.max(5, math.min(height, rows - 4))
  local config = {
    relative = "editor",
    width = width,
    height = height,
    row = math.floor((rows - height) / 2) - 1,
    col = math.floor((cols - width) / 2),
    style = "minimal",
    border = "rounded",
  }
  if vim.fn.has("nvim-0.9") == 1 and opts.title then
    config.title = " " .. opts.title .. " "
    config.title_pos = "center"
  end
  local win = vim.api.nvim_open_win(buf, opts.enter ~= false, config)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  return win
end

return M
