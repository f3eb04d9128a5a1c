---@mod cognivault.companion The local companion (`cognivault serve`): discovery, start, HTTP through curl.
---
--- The companion writes <vault>/.cognivault/companion.json ({url, token, pid, vault}).
--- Every request goes through `curl` under vim.system, so nothing blocks the editor;
--- the token and body reach curl on its stdin (a `-K -` config), never its argv.
local config = require("cognivault.config")
local util = require("cognivault.util")
local ndjson = require("cognivault.ndjson")

local M = {}

M.started = {} -- vault -> { proc, info, waiting = {callbacks} }

function M.info_file(vault)
  return vault .. "/.cognivault/companion.json"
end

--- The companion of `vault` when one is configured or running, else nil and why.
function M.discover(vault)
  local o = config.options.companion
  if o.url and o.token then
    return { url = o.url:gsub("/+$", ""), token = o.token, vault = vault, configured = true }
  end
  if not vault then
    return nil, "this buffer is not in a vault"
  end
  local own = M.started[vault]
  if own and own.info then
    return own.info
  end
  local text = util.read_file(M.info_file(vault))
  if not text then
    return nil, "no companion runs for " .. vault
  end
  local info = util.json_decode(text)
  if type(info) ~= "table" or type(info.url) ~= "string" or type(info.token) ~= "string" then
    return nil, "unreadable " .. M.info_file(vault)
  end
  if info.pid and not util.pid_alive(info.pid) then
    return nil, "the companion recorded in " .. M.info_file(vault) .. " (pid " .. info.pid .. ") is not running"
  end
  info.url = info.url:gsub("/+$", "")
  return info
end

function M.start_hint(vault)
  return ("start it with `cognivault serve --vault %s` or set companion.autostart = true"):format(vault or "<vault>")
end

local function start(vault, callback)
  local entry = M.started[vault]
  if entry then
    if entry.info then
      callback(nil, entry.info)
    else
      table.insert(entry.waiting, callback)
    end
    return
  end
  entry = { waiting = { callback } }
  M.started[vault] = entry
  local function finish(err, info)
    if entry.done then
      return
    end
    entry.done = true
    if err then
      M.started[vault] = nil
      if entry.proc then
        pcall(entry.proc.kill, entry.proc, "sigterm")
      end
    else
      entry.info = info
    end
    for _, cb in ipairs(entry.waiting) do
      cb(err, info)
    end
    entry.waiting = {}
  end
  local cmd = config.serve_cmd()
  vim.list_extend(cmd, { "--vault", vault, "--port", "0" })
  vim.list_extend(cmd, config.options.companion.args or {})
  local out, errtext = "", ""
  local ok, proc = pcall(vim.system, cmd, {
    text = true,
    stdout = util.main(function(_, data)
      if not data or entry.done then
        return
      end
      out = out .. data
      local line = out:match("^([^\n]*)\n")
      if line then
        local info = util.json_decode(line)
        if type(info) == "table" and info.url and info.token then
          info.url = info.url:gsub("/+$", "")
          info.started_by_plugin = true
          finish(nil, info)
        else
          finish("the companion printed something unexpected: " .. line)
        end
      end
    end),
    stderr = function(_, data)
      if data and #errtext < 4000 then
        errtext = errtext .. data
      end
    end,
  }, util.main(function(result)
    M.started[vault] = nil
    finish(("`%s` exited (%s): %s"):format(table.concat(cmd, " "), result.code, vim.trim(errtext)))
  end))
  if not ok then
    finish("cannot run " .. cmd[1] .. ": " .. tostring(proc))
    return
  end
  entry.proc = proc
  vim.defer_fn(function()
    finish("the companion did not start within " .. config.options.companion.start_timeout .. " s")
  end, config.options.companion.start_timeout * 1000)
end

--- `callback(err, info)` with a running companion, starting one when configured to.
function M.ensure(vault, callback)
  local info, why = M.discover(vault)
  if info then
    return callback(nil, info)
  end
  if vault and config.options.companion.autostart then
    return start(vault, callback)
  end
  callback(why .. "; " .. M.start_hint(vault))
end

--- Stop the companions this plugin started.
function M.stop_all()
  for vault, entry in pairs(M.started) do
    if entry.proc then
      pcall(entry.proc.kill, entry.proc, "sigterm")
    end
    M.started[vault] = nil
  end
end

vim.api.nvim_create_autocmd("VimLeavePre", {
  group = vim.api.nvim_create_augroup("cognivault.companion", { clear = true }),
  callback = M.stop_all,
})

local function quote(value)
  return '"' .. tostring(value):gsub("\\", "\\\\"):gsub('"', '\\"'):gsub("\n", "\\n"):gsub("\r", "\\r") .. '"'
end

--- curl's config (read from stdin): URL, headers with the token, and the body (JSON, or
--- `{ upload = path }` for a file's bytes).
function M.curl_config(info, method, path, body)
  local lines = {
    "url = " .. quote(info.url .. path),
    "request = " .. quote(method),
    "header = " .. quote("Authorization: Bearer " .. info.token),
    "header = " .. quote("Accept: application/json, application/x-ndjson"),
  }
  if type(body) == "table" and body.upload then -- a file's bytes as the raw body (/api/transcribe)
    table.insert(lines, "header = " .. quote("Content-Type: application/octet-stream"))
    table.insert(lines, "data-binary = " .. quote("@" .. body.upload))
  elseif body ~= nil then
    table.insert(lines, "header = " .. quote("Content-Type: application/json"))
    table.insert(lines, "data-binary = " .. quote(vim.json.encode(body)))
  end
  return table.concat(lines, "\n") .. "\n"
end

local function error_message(value, status)
  if type(value) == "table" and type(value.error) == "table" then
    return ("%s (%s)"):format(value.error.message or "error", value.error.code or status)
  end
  return ("HTTP %s"):format(status or "?")
end

--- A JSON request: `callback(err, value)` on the main loop.
function M.request(info, method, path, body, callback, opts)
  opts = opts or {}
  local marker = "\n@@cognivault-status@@"
  local cmd = { config.options.curl, "-sS", "-K", "-", "-w", marker .. "%{http_code}" }
  if opts.timeout then
    vim.list_extend(cmd, { "--max-time", tostring(opts.timeout) })
  end
  local ok, err = pcall(vim.system, cmd, { stdin = M.curl_config(info, method, path, body), text = true },
    util.main(function(result)
      local out = result.stdout or ""
      local at = out:find(marker, 1, true)
      local status = at and tonumber(out:sub(at + #marker)) or nil
      local text = at and out:sub(1, at - 1) or out
      if result.code ~= 0 or not status or status == 0 then
        return callback(("cannot reach the companion at %s: %s"):format(info.url, vim.trim(result.stderr or "")))
      end
      local value = util.json_decode(text)
      if status >= 400 then
        return callback(error_message(value, status), value)
      end
      if value == nil and text ~= "" then
        return callback("the companion answered with something that is not JSON")
      end
      callback(nil, value)
    end))
  if not ok then
    callback("cannot run " .. config.options.curl .. ": " .. tostring(err))
  end
end

--- An NDJSON stream: `on_envelope(envelope)` per line as it arrives, then `on_done(err)`.
--- Returns a handle with `cancel()`.
function M.stream(info, path, body, on_envelope, on_done)
  local finished = false
  local function done(err)
    if not finished then
      finished = true
      on_done(err)
    end
  end
  local saw_end = false
  local parser = ndjson.parser(function(value)
    if type(value) ~= "table" then
      return
    end
    if value.type == nil and type(value.error) == "table" then
      saw_end = true
      return on_envelope({ type = "error", data = value.error })
    end
    if value.type == "done" or value.type == "error" then
      saw_end = true
    end
    on_envelope(value)
  end, function(line)
    on_envelope({ type = "error", data = { code = "bad_line", message = "not JSON: " .. line:sub(1, 200) } })
  end)
  local cmd = { config.options.curl, "-sS", "--no-buffer", "-K", "-" }
  local handle = { cancelled = false }
  local ok, proc = pcall(vim.system, cmd, {
    stdin = M.curl_config(info, "POST", path, body),
    stdout = util.main(function(_, data)
      if data and not handle.cancelled then
        parser.feed(data)
      end
    end),
    stderr = true,
  }, util.main(function(result)
    if handle.cancelled then
      return done("cancelled")
    end
    parser.finish()
    if result.code ~= 0 and not saw_end then
      return done(("cannot reach the companion at %s: %s"):format(info.url, vim.trim(result.stderr or "")))
    end
    if not saw_end then
      return done("the stream ended without a result")
    end
    done(nil)
  end))
  if not ok then
    done("cannot run " .. config.options.curl .. ": " .. tostring(proc))
    return handle
  end
  handle.proc = proc
  function handle.cancel()
    handle.cancelled = true
    pcall(proc.kill, proc, "sigterm")
  end
  return handle
end

return M
