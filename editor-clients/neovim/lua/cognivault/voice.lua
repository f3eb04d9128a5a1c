---@mod cognivault.voice :CogniAskVoice — ask a spoken question.
---
--- Records with sox's `rec` or `arecord` (16 kHz mono WAV, at most 2 minutes) until you press
--- <Enter>; with neither installed, asks for an audio file. The companion transcribes it
--- (`/api/transcribe`, local faster-whisper) and the transcript is asked like :CogniAsk.
--- The recording lives in a temp file that is deleted once transcribed.
local companion = require("cognivault.companion")
local util = require("cognivault.util")

local M = {}

M.MAX_SECONDS = 120

--- The command that records 16 kHz mono WAV into `file` with what is installed, or nil.
function M.recorder(file)
  if vim.fn.executable("rec") == 1 then
    return { vim.fn.exepath("rec"), "-q", "-c", "1", "-r", "16000", "-b", "16", file, "trim", "0",
      tostring(M.MAX_SECONDS) }
  end
  if vim.fn.executable("arecord") == 1 then
    return { vim.fn.exepath("arecord"), "-q", "-f", "S16_LE", "-c", "1", "-r", "16000", "-d",
      tostring(M.MAX_SECONDS), file }
  end
  return nil
end

--- Transcribes the audio `file` (its name gives the format) and asks the transcript.
function M.transcribe_and_ask(vault, file, name, cleanup)
  companion.ensure(vault, function(err, info)
    if err then
      cleanup()
      return util.error(err)
    end
    util.notify("transcribing your question…")
    local path = "/api/transcribe?name=" .. vim.uri_encode(name)
    companion.request(info, "POST", path, { upload = file }, function(request_err, result)
      cleanup()
      if request_err then
        return util.error("ask by voice: " .. request_err)
      end
      local text = type(result) == "table" and vim.trim(result.text or "") or ""
      if text == "" then
        return util.warn("ask by voice: no words were heard in the recording")
      end
      require("cognivault.ask").ask(text, {})
    end, { timeout = 300 })
  end)
end

--- :CogniAskVoice
function M.ask_by_voice()
  local vault = require("cognivault").vault()
  local folder = vim.fn.tempname()
  vim.fn.mkdir(folder, "p", "0700")
  local function cleanup()
    vim.fn.delete(folder, "rf")
  end
  local file = folder .. "/question.wav"
  local cmd = M.recorder(file)
  if not cmd then
    vim.ui.input({ prompt = "No recorder (sox's rec or arecord); audio file to ask: ", completion = "file" },
      function(input)
        cleanup()
        if input and vim.trim(input) ~= "" then
          local path = vim.fn.fnamemodify(vim.fn.expand(vim.trim(input)), ":p")
          if vim.fn.filereadable(path) ~= 1 then
            return util.error("ask by voice: cannot read " .. path)
          end
          M.transcribe_and_ask(vault, path, vim.fn.fnamemodify(path, ":t"), function() end)
        end
      end)
    return
  end
  local ok, proc = pcall(vim.system, cmd, { text = true })
  if not ok then
    cleanup()
    return util.error("ask by voice: cannot run " .. cmd[1] .. ": " .. tostring(proc))
  end
  vim.ui.input({ prompt = "Recording your question… press <Enter> to stop " }, function()
    pcall(proc.kill, proc, "sigint") -- both recorders finish the WAV header on SIGINT
    local result = proc:wait(5000)
    if vim.fn.getfsize(file) <= 44 then
      cleanup()
      return util.error(("ask by voice: the recorder made no audio (exit %s): %s"):format(
        tostring(result.code), vim.trim(result.stderr or "")))
    end
    M.transcribe_and_ask(vault, file, "question.wav", cleanup)
  end)
end

return M
