-- Drive the CogniVault language server from a real (headless) Neovim: hover and go to definition.
-- Environment: CV_VAULT, CV_PYTHON, CV_INDEX, CV_OUT (where the JSON result goes).
local result = { steps = {} }
local function step(name) table.insert(result.steps, name) end
local function finish()
  local file = io.open(vim.env.CV_OUT, "w")
  file:write(vim.json.encode(result))
  file:close()
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  local vault = vim.env.CV_VAULT
  vim.cmd.edit(vim.fn.fnameescape(vault .. "/Index.md"))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start({
    name = "cognivault",
    cmd = { vim.env.CV_PYTHON, "-m", "cognivault.cli", "lsp" },
    root_dir = vault,
    init_options = { embeddings = false, index = { index_dir = vim.env.CV_INDEX } },
  })
  local client = vim.lsp.get_client_by_id(client_id)
  assert(vim.wait(30000, function() return client.initialized end, 20), "server did not initialize")
  step("initialized")
  result.encoding = client.offset_encoding
  assert(vim.wait(45000, function()
    local answer = client:request_sync("cognivault/status", {}, 5000, buf)
    return answer and answer.result and answer.result.indexing.phase == "ready"
  end, 100), "index not ready")
  step("indexed")

  -- The cursor inside [[Photosynthesis#Light reactions]], on the line with umlauts, emoji and CJK.
  local row, col
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local at = line:find("[[Photosynthesis#Light", 1, true)
    if at and line:find("Straße", 1, true) then row, col = i, at - 1 + 4 end
  end
  vim.api.nvim_win_set_cursor(0, { row, col })

  -- Hover as a user does it (K): a floating window with the target's section.
  vim.lsp.buf.hover()
  local float
  assert(vim.wait(10000, function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" then float = win return true end
    end
    return false
  end, 20), "no hover window")
  result.hover = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), "\n")
  vim.api.nvim_win_close(float, true)
  step("hovered")

  -- Go to definition (gd): the target note opens with the cursor on the heading.
  vim.lsp.buf.definition()
  assert(vim.wait(10000, function()
    return vim.api.nvim_buf_get_name(0):find("Photosynthesis.md", 1, true) ~= nil
  end, 20), "definition did not open the note")
  result.definition = {
    file = vim.api.nvim_buf_get_name(0),
    cursor = vim.api.nvim_win_get_cursor(0),
    line = vim.api.nvim_get_current_line(),
  }
  step("jumped")
  client:stop()
end)
if not ok then result.error = tostring(err) end
finish()
