/* CogniVault study dashboard. Plain JavaScript, no dependencies, no request leaves this machine.
 *
 * Authentication: in a browser the page is opened once with ?token=, which the companion swaps
 * for a same-site cookie; fetch() then sends that cookie. A host that embeds the page (a VS Code
 * webview, an Obsidian view) may instead set window.COGNIVAULT_TOKEN (and window.COGNIVAULT_BASE,
 * the companion's URL) or pass #token=... in the URL fragment; calls then carry a Bearer header.
 */
(function () {
  "use strict";

  var fragment = new URLSearchParams((location.hash || "").replace(/^#/, ""));
  var TOKEN = window.COGNIVAULT_TOKEN || fragment.get("token") || "";
  var BASE = (window.COGNIVAULT_BASE || "").replace(/\/$/, "");
  var state = { due: [], queue: [], current: null, shownAt: 0, againSeen: {}, map: null, collapsed: {}, view: { x: 0, y: 0, k: 1 }, quiz: null };

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "class") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function api(path, options) {
    options = options || {};
    var headers = { "Accept": "application/json" };
    if (TOKEN) headers["Authorization"] = "Bearer " + TOKEN;
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(BASE + path, {
      method: options.method || "GET",
      headers: headers,
      credentials: "same-origin",
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var message = (data && data.error && data.error.message) || ("HTTP " + response.status);
          throw new Error(message);
        }
        return data;
      });
    });
  }

  function showError(message) {
    var banner = $("error");
    banner.textContent = message;
    banner.hidden = !message;
  }

  function duration(seconds) {
    var minutes = Math.round((seconds || 0) / 60);
    if (minutes < 60) return minutes + " min";
    var hours = Math.floor(minutes / 60);
    return hours + " h " + String(minutes % 60).padStart(2, "0") + " min";
  }

  function days(n) { return n + (n === 1 ? " day" : " days"); }
  function activities(n) { return n + (n === 1 ? " activity" : " activities"); }

  function shortDate(iso) {
    var date = new Date(iso);
    if (isNaN(date.getTime())) return iso || "";
    return date.toLocaleDateString(undefined, { month: "short", day: "numeric" });
  }

  // -- progress ---------------------------------------------------------------------------
  function renderProgress(progress) {
    $("stat-total").textContent = duration(progress.total_seconds);
    $("stat-today").textContent = duration(progress.today_seconds);
    $("stat-streak").textContent = days(progress.current_streak);
    $("stat-longest").textContent = days(progress.longest_streak);
    renderHeatmap(progress.heatmap || [], progress.today);
  }

  function renderHeatmap(cells, today) {
    var grid = $("heatmap");
    grid.textContent = "";
    if (!cells.length) return;
    var first = new Date(cells[0].date + "T00:00:00");
    var pad = (first.getDay() + 6) % 7; // weeks start on Monday
    for (var i = 0; i < pad; i++) grid.appendChild(el("span", { "class": "cell pad" }));
    cells.forEach(function (cell) {
      var minutes = Math.round(cell.seconds / 60);
      var node = el("span", { "class": "cell l" + cell.level + (cell.date === today ? " today" : ""),
        "title": cell.date + ": " + minutes + " min, " + activities(cell.events), "data-date": cell.date,
        "data-level": String(cell.level) });
      grid.appendChild(node);
    });
  }

  // -- quizzes: the quiz notes to take (with their last score), then attempts of quizzes gone since ----------
  var LETTERS = "ABCDEF";

  function scoreLine(attempt) {
    if (!attempt) return [el("span", { "class": "muted small", text: "not taken yet" })];
    var percent = Math.round((attempt.score || 0) * 100);
    var bar = el("span", { "class": "bar" + (percent < 50 ? " low" : percent < 80 ? " mid" : "") }, [el("span", { style: "width:" + percent + "%" })]);
    return [bar, el("span", { text: (attempt.correct || 0) + "/" + (attempt.total || 0) + " · " + percent + "%" }), el("span", { "class": "pill", text: shortDate(attempt.ts) })];
  }

  function renderQuizzes(notes, attempts) {
    var list = $("quiz-list");
    list.textContent = "";
    var listed = {};
    notes.slice(0, 10).forEach(function (note) {
      listed[note.path] = true;
      var take = el("button", { type: "button", "class": "take", "data-quiz": note.path, text: note.last ? "Retake" : "Take" });
      take.addEventListener("click", function () { openQuiz(note.path); });
      list.appendChild(el("li", null, [
        el("span", { "class": "title", title: note.path, text: note.title || note.path }),
        el("span", { "class": "score" }, scoreLine(note.last).concat([take]))
      ]));
    });
    attempts.forEach(function (attempt) {
      if (listed[attempt.quiz]) return;
      listed[attempt.quiz] = true;
      list.appendChild(el("li", null, [
        el("span", { "class": "title", title: attempt.quiz || "", text: attempt.title || attempt.quiz || "Quiz" }),
        el("span", { "class": "score" }, scoreLine(attempt))
      ]));
    });
    if (!list.children.length) list.appendChild(el("li", { "class": "empty" }, [el("span", null, [
      document.createTextNode("No quizzes yet: generate one with "), el("code", { text: "cognivault generate quiz" }),
      document.createTextNode(".")])]));
  }

  function openQuiz(path) {
    api("/api/quiz?path=" + encodeURIComponent(path)).then(function (quiz) {
      state.quiz = { path: quiz.path, questions: quiz.questions, startedAt: Date.now() };
      $("quiz-name").textContent = quiz.title || quiz.path;
      var list = $("quiz-questions");
      list.textContent = "";
      quiz.questions.forEach(function (question) {
        var options = question.options.map(function (option, index) {
          var input = el("input", { type: "radio", name: "q" + question.number, value: LETTERS[index] });
          return el("label", { "class": "option", "data-option": LETTERS[index] }, [input, el("span", { text: LETTERS[index] + ") " + option })]);
        });
        list.appendChild(el("li", { "data-question": String(question.number) }, [el("p", { "class": "stem", text: question.question })].concat(options)));
      });
      $("quiz-score").textContent = "";
      $("quiz-submit").hidden = false;
      $("quiz-submit").disabled = false;
      $("quiz-panel").hidden = false;
      $("quiz-panel").setAttribute("data-state", "open");
      $("quiz-list").hidden = true;
    }).catch(function (error) { showError(error.message); });
  }

  function submitQuiz(event) {
    event.preventDefault();
    var quiz = state.quiz;
    if (!quiz || $("quiz-submit").disabled) return;
    var answers = quiz.questions.map(function (question) {
      var chosen = document.querySelector('input[name="q' + question.number + '"]:checked');
      return chosen ? chosen.value : null;
    });
    $("quiz-submit").disabled = true;
    api("/api/quiz/attempt", { method: "POST", body: { path: quiz.path, answers: answers, duration_ms: Date.now() - quiz.startedAt } })
      .then(showScore)
      .catch(function (error) { $("quiz-score").textContent = error.message; $("quiz-submit").disabled = false; });
  }

  function showScore(result) {
    $("quiz-score").textContent = "Score: " + result.correct + "/" + result.total + " · " + Math.round(result.score * 100) + "%";
    $("quiz-submit").hidden = true;
    result.details.forEach(function (detail) {
      var item = document.querySelector('#quiz-questions li[data-question="' + detail.number + '"]');
      if (!item) return;
      item.className = detail.ok ? "ok" : "missed";
      Array.prototype.forEach.call(item.querySelectorAll(".option"), function (label) {
        var letter = label.getAttribute("data-option");
        if (letter === detail.correct) label.classList.add("correct");
        else if (letter === detail.given) label.classList.add("wrong");
        label.querySelector("input").disabled = true;
      });
      var sources = (detail.sources || []).map(function (source) {
        return (source.label || source.heading || source.target) + " (" + source.target + ")";
      });
      item.appendChild(el("div", { "class": "explain" }, [
        el("span", { "class": "verdict", text: detail.ok ? "Correct." : "Answer " + detail.correct + "." }),
        document.createTextNode(" " + (detail.explanation || ""))
      ]));
      if (sources.length) item.appendChild(el("div", { "class": "source", text: "Source: " + sources.join("; ") }));
    });
    $("quiz-panel").setAttribute("data-state", "scored");
  }

  function closeQuiz() {
    state.quiz = null;
    $("quiz-panel").hidden = true;
    $("quiz-panel").removeAttribute("data-state");
    $("quiz-list").hidden = false;
    refresh();
  }

  function renderBadges(data) {
    var grid = $("badges");
    grid.textContent = "";
    $("badge-count").textContent = data.unlocked + " of " + data.total + " unlocked";
    data.badges.forEach(function (badge) {
      var title = badge.unlocked ? "Unlocked " + new Date(badge.unlocked_at).toLocaleString() : "Locked";
      grid.appendChild(el("div", { "class": "badge " + (badge.unlocked ? "unlocked" : "locked"), title: title, "data-badge": badge.id }, [
        el("div", { "class": badge.icon.length > 2 ? "icon long" : "icon", "aria-hidden": "true", text: badge.icon }),
        el("div", null, [el("div", { "class": "name", text: badge.name }), el("div", { "class": "crit", text: badge.criterion })])
      ]));
    });
  }

  // -- review -----------------------------------------------------------------------------
  function renderDue(data) {
    state.due = data.due || [];
    var stats = data.stats || {};
    $("stat-due").textContent = String((stats.due || 0) + (stats.new || 0));
    var list = $("due-list");
    list.textContent = "";
    if (!state.due.length) list.appendChild(el("li", { "class": "empty", text: "Nothing is due. Well done." }));
    state.due.slice(0, 8).forEach(function (card) {
      list.appendChild(el("li", null, [
        el("span", { "class": "title", title: card.path, text: card.front.split("\n")[0] }),
        el("span", { "class": "pill" + (card.is_new ? " new" : ""), text: card.is_new ? "new" : "due " + shortDate(card.due) })
      ]));
    });
    if (state.due.length > 8) list.appendChild(el("li", { "class": "empty", text: "+ " + (state.due.length - 8) + " more" }));
    $("start-review").disabled = !state.due.length;
  }

  function startReview() {
    state.queue = state.due.slice();
    state.againSeen = {};
    $("review-panel").hidden = false;
    $("due-list").hidden = true;
    nextCard();
  }

  function nextCard() {
    var card = state.current = state.queue.shift() || null;
    $("review-back").hidden = true;
    $("grades").hidden = true;
    $("reveal").hidden = false;
    if (!card) {
      $("review-panel").hidden = true;
      $("due-list").hidden = false;
      refresh();
      return;
    }
    var crumbs = [card.title].concat(card.heading_path || []).join(" › ");
    $("review-meta").textContent = (card.decks || []).join(", ") + " · " + crumbs + (card.is_new ? " · new" : "");
    $("review-front").textContent = card.front;
    $("review-back").textContent = card.back;
    state.shownAt = Date.now();
    $("reveal").focus();
  }

  function reveal() {
    if (!state.current) return;
    $("review-back").hidden = false;
    $("grades").hidden = false;
    $("reveal").hidden = true;
  }

  function grade(rating) {
    var card = state.current;
    if (!card || $("grades").hidden) return;
    $("grades").hidden = true;
    api("/api/review/" + encodeURIComponent(card.id), { method: "POST", body: { rating: rating, path: card.path, duration_ms: Date.now() - state.shownAt } })
      .then(function (outcome) {
        $("review-result").textContent = "Next review " + outcome.due + " (in " + days(outcome.interval) + ").";
        if (rating === 1 && !state.againSeen[card.id]) { state.againSeen[card.id] = true; state.queue.push(card); }
        nextCard();
      })
      .catch(function (error) { $("review-result").textContent = error.message; nextCard(); });
  }

  // -- mind maps ----------------------------------------------------------------------------
  function loadMapList(data) {
    var select = $("map-select");
    select.textContent = "";
    var maps = data.mindmaps || [];
    $("map-empty").hidden = maps.length > 0;
    $("map-view").classList.toggle("is-empty", !maps.length);
    $("map-tools").hidden = !maps.length;  // nothing to pick, zoom or fit
    maps.forEach(function (map) { select.appendChild(el("option", { value: map.path, text: map.title || map.path })); });
    if (maps.length && (!state.map || !maps.some(function (m) { return m.path === state.map.path; }))) loadMap(maps[0].path);
    else if (state.map) select.value = state.map.path;
  }

  function loadMap(path) {
    api("/api/mindmap?path=" + encodeURIComponent(path)).then(function (map) {
      state.map = map;
      state.collapsed = {};
      drawMap(true);
      api("/api/progress/event", { method: "POST", body: { kind: "mindmap_view", data: { path: path } } }).catch(function () {});
    }).catch(function (error) { $("map-info").textContent = error.message; });
  }

  function layout(root) {
    var nodes = [], links = [], row = 0, gapX = 48, rowH = 34;
    function width(label) { return Math.min(260, 18 + label.length * 7.2); }
    function walk(node, depth, x, key, parent) {
      var hidden = state.collapsed[key];
      var kids = hidden ? [] : (node.children || []);
      var item = { node: node, key: key, depth: depth, x: x, w: width(node.label), y: 0, collapsed: !!hidden && (node.children || []).length > 0 };
      nodes.push(item);
      if (parent) links.push([parent, item]);
      if (!kids.length) { item.y = row * rowH; row += 1; }
      else {
        var ys = kids.map(function (child, i) { return walk(child, depth + 1, x + item.w + gapX, key + "/" + i, item).y; });
        item.y = (ys[0] + ys[ys.length - 1]) / 2;
      }
      return item;
    }
    walk(root, 0, 0, "0", null);
    return { nodes: nodes, links: links, height: row * rowH };
  }

  function drawMap(fit) {
    var svg = $("map-svg");
    svg.textContent = "";
    if (!state.map) return;
    var ns = "http://www.w3.org/2000/svg";
    var data = layout(state.map.root);
    var group = document.createElementNS(ns, "g");
    group.setAttribute("id", "map-root");
    data.links.forEach(function (pair) {
      var a = pair[0], b = pair[1];
      var x1 = a.x + a.w, y1 = a.y, x2 = b.x, y2 = b.y, mx = (x1 + x2) / 2;
      var path = document.createElementNS(ns, "path");
      path.setAttribute("class", "link");
      path.setAttribute("d", "M" + x1 + "," + y1 + " C" + mx + "," + y1 + " " + mx + "," + y2 + " " + x2 + "," + y2);
      group.appendChild(path);
    });
    data.nodes.forEach(function (item) {
      var g = document.createElementNS(ns, "g");
      g.setAttribute("class", "node" + (item.depth === 0 ? " root" : "") + (item.collapsed ? " collapsed" : ""));
      g.setAttribute("transform", "translate(" + item.x + "," + (item.y - 13) + ")");
      g.setAttribute("data-label", item.node.label);
      var rect = document.createElementNS(ns, "rect");
      rect.setAttribute("width", item.w); rect.setAttribute("height", 26); rect.setAttribute("rx", 8);
      var text = document.createElementNS(ns, "text");
      text.setAttribute("x", 9); text.setAttribute("y", 13);
      var label = item.node.label.length > 34 ? item.node.label.slice(0, 33) + "…" : item.node.label;
      text.textContent = label + (item.collapsed ? "  +" : "");
      var title = document.createElementNS(ns, "title");
      title.textContent = item.node.label + (item.node.target ? "\n" + item.node.target + (item.node.heading ? " › " + item.node.heading : "") : "");
      g.appendChild(title); g.appendChild(rect); g.appendChild(text);
      g.addEventListener("click", function (event) {
        event.stopPropagation();
        if ((item.node.children || []).length) { state.collapsed[item.key] = !state.collapsed[item.key]; drawMap(false); }
        $("map-info").textContent = item.node.target ? "Source: " + item.node.target + (item.node.heading ? " › " + item.node.heading : "") : item.node.label;
      });
      group.appendChild(g);
    });
    svg.appendChild(group);
    if (fit) fitMap(data); else applyView();
  }

  function fitMap(data) {
    var svg = $("map-svg"), box = svg.getBoundingClientRect();
    data = data || layout(state.map.root);
    var maxX = 0;
    data.nodes.forEach(function (n) { maxX = Math.max(maxX, n.x + n.w); });
    var k = Math.min(1.4, (box.width - 40) / Math.max(1, maxX), (box.height - 40) / Math.max(1, data.height));
    k = Math.max(0.25, k || 1);
    state.view = { k: k, x: (box.width - maxX * k) / 2, y: (box.height - (data.height - 34) * k) / 2 };
    applyView();
  }

  function applyView() {
    var group = document.getElementById("map-root");
    if (group) group.setAttribute("transform", "translate(" + state.view.x + "," + state.view.y + ") scale(" + state.view.k + ")");
  }

  function zoom(factor) { state.view.k = Math.max(0.2, Math.min(3, state.view.k * factor)); applyView(); }

  function setupMapInteraction() {
    var svg = $("map-svg"), drag = null;
    svg.addEventListener("mousedown", function (e) { drag = { x: e.clientX, y: e.clientY, vx: state.view.x, vy: state.view.y }; svg.classList.add("dragging"); });
    window.addEventListener("mousemove", function (e) { if (!drag) return; state.view.x = drag.vx + e.clientX - drag.x; state.view.y = drag.vy + e.clientY - drag.y; applyView(); });
    window.addEventListener("mouseup", function () { drag = null; svg.classList.remove("dragging"); });
    svg.addEventListener("wheel", function (e) { e.preventDefault(); zoom(e.deltaY < 0 ? 1.1 : 1 / 1.1); }, { passive: false });
    $("map-zoom-in").addEventListener("click", function () { zoom(1.2); });
    $("map-zoom-out").addEventListener("click", function () { zoom(1 / 1.2); });
    $("map-fit").addEventListener("click", function () { fitMap(); });
    $("map-select").addEventListener("change", function (e) { loadMap(e.target.value); });
  }

  // -- wiring --------------------------------------------------------------------------------
  function refresh() {
    showError("");
    return Promise.all([
      Promise.all([api("/api/progress?days=90"), api("/api/quizzes")]).then(function (loaded) {
        renderProgress(loaded[0]);
        renderQuizzes(loaded[1].quizzes || [], loaded[0].recent_quizzes || []);
      }),
      api("/api/badges").then(renderBadges),
      api("/api/review/due?limit=200").then(renderDue),
      api("/api/mindmaps").then(loadMapList)
    ]).then(function () {
      $("updated").textContent = "Updated " + new Date().toLocaleTimeString();
      document.body.setAttribute("data-loaded", "true");
    }).catch(function (error) {
      showError("Could not load the dashboard: " + error.message);
      document.body.setAttribute("data-loaded", "error");
    });
  }

  $("refresh").addEventListener("click", refresh);
  $("quiz-panel").addEventListener("submit", submitQuiz);
  $("quiz-close").addEventListener("click", closeQuiz);
  $("start-review").addEventListener("click", startReview);
  $("reveal").addEventListener("click", reveal);
  Array.prototype.forEach.call(document.querySelectorAll("#grades button"), function (button) {
    button.addEventListener("click", function () { grade(Number(button.getAttribute("data-grade"))); });
  });
  document.addEventListener("keydown", function (e) {
    if ($("review-panel").hidden || e.target.tagName === "SELECT") return;
    if (e.key === " " || e.key === "Enter") { if (!$("reveal").hidden) { e.preventDefault(); reveal(); } }
    else if (/^[1-4]$/.test(e.key)) grade(Number(e.key));
  });
  setupMapInteraction();
  refresh();
})();
