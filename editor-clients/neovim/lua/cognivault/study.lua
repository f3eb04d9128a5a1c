---@mod cognivault.study Flashcards, quizzes and mind maps from the current note; the review buffer.
local config = require("cognivault.config")
local util = require("cognivault.util")
local companion = require("cognivault.companion")

local M = {}

M.KINDS = { flashcards = "flashcards", quiz = "quiz", mindmap = "mind map" }
M.last = nil -- the last generation: { kind, note, progress = {}, result, error, done }

--- POST /api/generate/{kind} for the current note (or its lines line1..line2); the
--- written note opens when done. Returns the job table at once.
function M.generate(kind, opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local path = util.buf_path(bufnr)
  local vault = require("cognivault").vault()
  local note = path and vault and util.relative(path, vault)
  if not note then
    util.warn(("Cogni%s: open a note of the vault first"):format(kind))
    return nil
  end
  if vim.bo[bufnr].modified then
    util.warn("the note has unsaved changes; generating from the saved version")
  end
  local body = { note = note }
  if opts.range and opts.range > 0 and opts.line1 and opts.line2 then
    -- A visual range: the lines of the saved note it covers.
    body.lines = { opts.line1, math.max(opts.line1, opts.line2) }
  end
  body.count = opts.count or config.options.study.count
  body.chat_provider = opts.provider or config.options.study.provider
  local job = { kind = kind, note = note, vault = vault, progress = {}, done = false }
  M.last = job
  local origin = vim.api.nvim_get_current_win()
  util.notify(("making %s from %s…"):format(M.KINDS[kind] or kind, note))
  companion.ensure(vault, function(err, info)
    if err then
      job.error, job.done = err, true
      util.error(err)
      return
    end
    job.handle = companion.stream(info, "/api/generate/" .. kind, body, function(env)
      if env.type == "progress" and type(env.data) == "table" then
        table.insert(job.progress, env.data)
        vim.api.nvim_echo({ { "CogniVault: " .. (env.data.message or env.data.stage or "…"), "Comment" } }, false, {})
      elseif env.type == "done" then
        job.result = env.data
      elseif env.type == "error" then
        job.error = type(env.data) == "table" and (env.data.message or "error") or tostring(env.data)
      end
    end, function(stream_err)
      job.done = true
      job.error = job.error or stream_err
      if job.error then
        util.error(("%s failed: %s"):format(M.KINDS[kind] or kind, job.error))
      elseif job.result and job.result.path then
        job.path = vault .. "/" .. job.result.path
        util.open_location(job.path, nil, nil, origin)
        local msg = ("wrote %s"):format(job.result.path)
        for _, warning in ipairs(job.result.warnings or {}) do
          msg = msg .. "\n" .. warning
        end
        util.notify(msg)
      end
      if opts.on_done then
        opts.on_done(job)
      end
    end)
  end)
  return job
end

-- Review ------------------------------------------------------------------------------------

local RATINGS = { "again", "hard", "good", "easy" }
local REVIEW_BUF = "cognivault://review"

M.review_state = nil

local function card_lines(state)
  local lines = {}
  local total = #state.cards
  if state.error then
    table.insert(lines, "**Error:** " .. state.error)
    return lines
  end
  if state.loading then
    return { "_loading due cards…_" }
  end
  local card = state.cards[state.index]
  if not card then
    table.insert(lines, ("# Review done: %d reviewed"):format(state.reviewed))
    local stats = state.stats
    if type(stats) == "table" then
      table.insert(lines, "")
      for key, value in pairs(stats) do
        if type(value) ~= "table" then
          table.insert(lines, ("- %s: %s"):format(key, tostring(value)))
        end
      end
    end
    table.insert(lines, "")
    table.insert(lines, "_q: close · r: reload due cards_")
    return lines
  end
  table.insert(lines, ("# Card %d of %d · %s"):format(state.index, total, table.concat(card.decks or {}, ", ")))
  table.insert(lines, "")
  vim.list_extend(lines, util.split_lines(card.front or ""))
  table.insert(lines, "")
  if state.revealed then
    table.insert(lines, "---")
    table.insert(lines, "")
    vim.list_extend(lines, util.split_lines(card.back or ""))
    table.insert(lines, "")
    if card.sources and card.sources[1] then
      table.insert(lines, "_Source: " .. (card.sources[1].label or card.sources[1].target or "") .. "_")
      table.insert(lines, "")
    end
    table.insert(lines, "_1 again · 2 hard · 3 good · 4 easy · o: open the card · s: skip · q: close_")
  else
    table.insert(lines, "_<Space> shows the answer · s: skip · o: open the card · q: close_")
  end
  if state.message then
    table.insert(lines, "")
    table.insert(lines, state.message)
  end
  return lines
end

local function render_review()
  local state = M.review_state
  if state and vim.api.nvim_buf_is_valid(state.buf) then
    util.set_lines(state.buf, card_lines(state))
  end
end

local function load_due(state)
  state.loading = true
  render_review()
  companion.ensure(state.vault, function(err, info)
    if err then
      state.loading, state.error = false, err
      return render_review()
    end
    state.info = info
    local query = "/api/review/due?limit=" .. (state.limit or 100)
    if state.deck then
      query = query .. "&deck=" .. util.url_encode(state.deck)
    end
    companion.request(info, "GET", query, nil, function(req_err, result)
      state.loading = false
      if req_err then
        state.error = req_err
      else
        state.cards = (result and result.due) or {}
        state.stats = result and result.stats
        state.index, state.revealed, state.shown_at = 1, false, vim.uv.now()
      end
      render_review()
      if state.on_loaded then
        state.on_loaded(state)
      end
    end)
  end)
end

--- Grade the current card (1..4 or "again".."easy") and move on.
function M.grade(rating)
  local state = M.review_state
  local card = state and state.cards[state.index]
  if not card or not state.info then
    return
  end
  if not state.revealed then
    state.revealed = true
    return render_review()
  end
  local duration = math.max(0, math.floor(vim.uv.now() - (state.shown_at or vim.uv.now())))
  local body = { rating = type(rating) == "number" and RATINGS[rating] or rating, path = card.path, duration_ms = duration }
  companion.request(state.info, "POST", "/api/review/" .. card.id, body, function(err, result)
    if err then
      state.message = "**Could not save the grade:** " .. err
    else
      state.reviewed = state.reviewed + 1
      state.last_result = result
      state.message = result and result.due and ("_last card due again %s_"):format(result.due) or nil
      state.index, state.revealed, state.shown_at = state.index + 1, false, vim.uv.now()
    end
    render_review()
    if state.on_graded then
      state.on_graded(state, err, result)
    end
  end)
end

--- :CogniReview [deck] — due cards one at a time in a review buffer.
function M.review(opts)
  opts = opts or {}
  local vault = require("cognivault").vault()
  local buf = util.scratch(REVIEW_BUF, "markdown")
  local state = { vault = vault, buf = buf, cards = {}, index = 1, reviewed = 0, deck = opts.deck,
                  on_loaded = opts.on_loaded, on_graded = opts.on_graded }
  M.review_state = state
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
    vim.wo.wrap, vim.wo.linebreak = true, true
  else
    vim.api.nvim_set_current_win(win)
  end
  local function map(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
  end
  map("<Space>", function()
    state.revealed = true
    render_review()
  end, "CogniVault: show the answer")
  for i, name in ipairs(RATINGS) do
    map(tostring(i), function()
      M.grade(i)
    end, "CogniVault: grade " .. name)
  end
  map("s", function()
    state.index, state.revealed = state.index + 1, false
    render_review()
  end, "CogniVault: skip the card")
  map("o", function()
    local card = state.cards[state.index]
    if card then
      util.open_location(vault .. "/" .. card.path, card.line)
    end
  end, "CogniVault: open the card's note")
  map("r", function()
    load_due(state)
  end, "CogniVault: reload due cards")
  map("q", function()
    if #vim.api.nvim_list_wins() > 1 then
      vim.cmd("close")
    else
      vim.cmd("enew")
    end
  end, "CogniVault: close the review")
  load_due(state)
  return state
end

return M
