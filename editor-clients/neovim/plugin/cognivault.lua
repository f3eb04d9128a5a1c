-- CogniVault user commands. They work without setup() (defaults); setup() also starts the
-- language server for Markdown buffers in a vault.
if vim.g.loaded_cognivault then
  return
end
vim.g.loaded_cognivault = true

local function cv()
  return require("cognivault")
end

local command = vim.api.nvim_create_user_command

command("CogniAsk", function(args)
  cv().ask(args.args, { range = args.range, line1 = args.line1, line2 = args.line2 })
end, { nargs = "*", range = true, desc = "CogniVault: ask the vault (answer streams into a window)" })

command("CogniAskVoice", function()
  require("cognivault.voice").ask_by_voice()
end, { nargs = 0, desc = "CogniVault: ask a spoken question (records with rec/arecord, else an audio file)" })

command("CogniSearch", function(args)
  cv().search(args.args)
end, { nargs = "*", desc = "CogniVault: search the vault (quickfix or picker)" })

command("CogniRelated", function()
  cv().related()
end, { nargs = 0, desc = "CogniVault: notes related to the current one" })

for name, kind in pairs({ CogniFlashcards = "flashcards", CogniQuiz = "quiz", CogniMindmap = "mindmap" }) do
  command(name, function(args)
    local count = tonumber(args.args)
    cv().generate(kind, { range = args.range, line1 = args.line1, line2 = args.line2, count = count })
  end, { nargs = "?", range = true, desc = "CogniVault: make " .. kind .. " from the current note [count]" })
end

command("CogniReview", function(args)
  cv().review({ deck = args.args ~= "" and args.args or nil })
end, { nargs = "?", desc = "CogniVault: review due flashcards [deck]" })

command("CogniDashboard", function()
  cv().dashboard()
end, { nargs = 0, desc = "CogniVault: open the study dashboard in the browser" })

command("CogniStatus", function()
  cv().status()
end, { nargs = 0, desc = "CogniVault: index and companion status" })
