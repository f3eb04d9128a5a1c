-- Neovim 0.11+: `vim.lsp.enable("cognivault")` works with this file alone;
-- require("cognivault").setup() overrides these defaults through vim.lsp.config.
local lsp = require("cognivault.lsp")
local cfg = lsp.base_config()
cfg.root_dir = function(bufnr, on_dir)
  local root = lsp.root(bufnr)
  if root then
    on_dir(root)
  end
end
return cfg
