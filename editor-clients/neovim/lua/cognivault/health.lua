-- :checkhealth cognivault
local M = {}

local health = vim.health

local function run(cmd)
  local ok, proc = pcall(vim.system, cmd, { text = true })
  if not ok then
    return nil, tostring(proc)
  end
  local result = proc:wait(5000)
  if result.code ~= 0 then
    return nil, vim.trim((result.stderr or "") .. (result.stdout or ""))
  end
  return vim.trim(result.stdout or "")
end

function M.check()
  local config = require("cognivault.config")
  local o = config.options

  health.start("CogniVault: Neovim")
  if vim.fn.has("nvim-0.10") == 1 then
    local v = vim.version()
    health.ok(("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch))
  else
    health.error("Neovim 0.10 or newer is required")
  end
  if vim.lsp.config and vim.lsp.enable then
    health.ok("vim.lsp.config / vim.lsp.enable are used to start the server")
  else
    health.info("vim.lsp.start on FileType is used (Neovim 0.10)")
  end
  if config.did_setup then
    health.ok('require("cognivault").setup() was called')
  else
    health.warn('require("cognivault").setup() was not called: the language server does not start',
      { 'add require("cognivault").setup({}) to your config' })
  end

  health.start("CogniVault: language server")
  local exe = o.cmd[1] and vim.fn.exepath(vim.fn.expand(o.cmd[1])) or ""
  if exe == "" then
    health.error(("`%s` is not executable"):format(tostring(o.cmd[1])), {
      "pipx install '.[embedded]' in the CogniVault checkout (see its README), or set cmd = { '<venv>/bin/cognivault', 'lsp' }",
    })
  else
    local version, err = run({ exe, "--version" })
    if version then
      health.ok(("%s (%s)"):format(version, exe))
    else
      health.warn(("`%s --version` failed: %s"):format(exe, err or "?"))
    end
  end
  local clients = require("cognivault.lsp").clients()
  if #clients == 0 then
    health.info("no cognivault client is running (open a Markdown note inside a vault)")
  end
  for _, client in ipairs(clients) do
    health.ok(("client %d attached, vault %s"):format(client.id, client.root_dir or "?"))
  end
  if o.vault then
    if vim.fn.isdirectory(vim.fn.expand(o.vault)) == 1 then
      health.ok("vault: " .. o.vault)
    else
      health.error("vault folder not found: " .. o.vault)
    end
  else
    health.info("vaults are folders holding one of: " .. table.concat(o.root_markers, ", "))
  end

  health.start("CogniVault: companion")
  if vim.fn.executable(o.curl) == 1 then
    health.ok("curl: " .. vim.fn.exepath(o.curl))
  else
    health.error("curl is needed for :CogniAsk, study and review commands", { "install curl" })
  end
  local vault = require("cognivault").vault()
  if not vault then
    health.info("no vault for the current buffer or directory")
  else
    local companion = require("cognivault.companion")
    local info, why = companion.discover(vault)
    if info then
      health.ok(("companion for %s at %s"):format(vault, info.url))
    elseif o.companion.autostart then
      health.ok(("no companion runs for %s yet; the plugin starts `%s` when needed"):format(vault,
        table.concat(config.serve_cmd(), " ")))
    else
      health.warn(why, { companion.start_hint(vault) })
    end
  end

  health.start("CogniVault: pickers (optional)")
  local found = false
  for _, name in ipairs({ "telescope", "fzf-lua" }) do
    if pcall(require, name) then
      health.ok(name .. " is installed: search results open in it")
      found = true
    end
  end
  if not found then
    health.info("neither telescope nor fzf-lua is installed: results go to the quickfix list")
  end
end

return M
