---@mod cognivault.ndjson Incremental NDJSON: bytes in arbitrary chunks, one decoded value per line.
local util = require("cognivault.util")

local M = {}

--- A parser calling `on_value(value)` for each complete JSON line and `on_error(line, err)`
--- for a line that is not JSON. `feed(chunk)` any number of times, then `finish()` for the
--- final line when it has no newline.
function M.parser(on_value, on_error)
  local pending = ""
  local self = {}

  local function emit(line)
    line = line:gsub("\r$", "")
    if line:match("^%s*$") then
      return
    end
    local value, err = util.json_decode(line)
    if value == nil then
      if on_error then
        on_error(line, err)
      end
      return
    end
    on_value(value)
  end

  function self.feed(chunk)
    if not chunk or chunk == "" then
      return
    end
    pending = pending .. chunk
    while true do
      local nl = pending:find("\n", 1, true)
      if not nl then
        break
      end
      local line = pending:sub(1, nl - 1)
      pending = pending:sub(nl + 1)
      emit(line)
    end
  end

  function self.finish()
    local rest = pending
    pending = ""
    emit(rest)
  end

  return self
end

return M
