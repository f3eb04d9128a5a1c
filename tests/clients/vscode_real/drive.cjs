// Drives a real VS Code (code-server in headless Chromium, through puppeteer-core) the way a person
// does: keyboard, command palette, quick picks, webviews. Each check is a step that records what it
// saw and a screenshot; the steps go on after a failure, and the result is one JSON document on
// stdout: {"steps": [{"name", "ok", "detail", "ms", "screenshot"}]}.
//
// Usage: node drive.cjs CONFIG.json   (NODE_PATH must reach puppeteer-core)
// CONFIG: {url, chromium, screenshots, vault, question, searchQuery, generatedFolder}
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const puppeteer = require("puppeteer-core");

const config = JSON.parse(fs.readFileSync(process.argv[2], "utf-8"));
const steps = [];
const TIMEOUT = config.stepTimeoutMs ?? 90_000;
let page;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function shot(name) {
  const file = path.join(config.screenshots, `${String(steps.length + 1).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file }).catch(() => undefined);
  return file;
}

async function step(name, body) {
  const started = Date.now();
  let ok = false;
  let detail;
  try {
    detail = await body();
    ok = true;
  } catch (error) {
    detail = String(error && error.stack ? error.stack : error).slice(0, 2000);
  }
  const screenshot = await shot(name);
  steps.push({ name, ok, detail, ms: Date.now() - started, screenshot });
  process.stderr.write(`${ok ? "ok  " : "FAIL"} ${name} (${Date.now() - started} ms)${ok ? "" : `: ${detail}`}\n`);
  return ok;
}

/** Waits until `fn(arg)`, run in the page, returns something truthy, and returns it. */
async function until(fn, arg, timeout = TIMEOUT) {
  const handle = await page.waitForFunction(fn, { timeout, polling: 250 }, arg);
  return handle.jsonValue();
}

/** Text of the elements matching `selector` (visible ones), in the workbench page. */
function texts(selector) {
  return page.$$eval(selector, (nodes) => nodes.filter((n) => n.offsetParent !== null).map((n) => n.textContent.trim()));
}

async function escape(times = 2) {
  for (let i = 0; i < times; i += 1) {
    await page.keyboard.press("Escape");
    await sleep(150);
  }
}

async function focusEditor() {
  await page.click(".editor-group-container.active .monaco-editor .view-lines");
}

/** Runs a palette command by its title ("CogniVault: Ask the vault"). */
async function command(title) {
  await escape(1);
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
  await page.keyboard.type(title, { delay: 5 });
  await until((wanted) => document.querySelector(".quick-input-list .monaco-list-row.focused")
    ?.getAttribute("aria-label")?.toLowerCase().startsWith(wanted.toLowerCase()), title);
  await page.keyboard.press("Enter");
}

/** Opens a vault file with Quick Open and waits for its tab. */
async function openFile(relative) {
  await escape(1);
  await page.keyboard.down("Control");
  await page.keyboard.press("p");
  await page.keyboard.up("Control");
  await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
  await page.keyboard.type(relative, { delay: 5 });
  const base = path.basename(relative);
  await until((name) => (document.querySelector(".quick-input-list .monaco-list-row.focused")
    ?.getAttribute("aria-label") || "").includes(name), base);
  await page.keyboard.press("Enter");
  await until((name) => document.querySelector(".editor-group-container.active .tab.active")?.getAttribute("aria-label")?.includes(name), base);
  await page.waitForSelector(".editor-group-container.active .monaco-editor .view-lines", { visible: true });
}

/** Moves the cursor to the 1-based line and column with Go to Line. */
async function goTo(line, column) {
  await focusEditor();
  await page.keyboard.down("Control");
  await page.keyboard.press("g");
  await page.keyboard.up("Control");
  await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
  await page.keyboard.type(`${line}:${column}`, { delay: 5 });
  await page.keyboard.press("Enter");
  await sleep(300);
}

/** The workbench document and every document nested in it (webviews are same-origin iframes here). */
function allDocuments(root) {
  const nested = [...root.querySelectorAll("iframe")].flatMap((frame) => {
    try {
      return frame.contentDocument ? allDocuments(frame.contentDocument) : [];
    } catch {
      return []; // a cross-origin frame
    }
  });
  return [root, ...nested];
}

/**
 * Waits until `probe(doc, arg)` returns something truthy for one of the webviews' documents, and
 * returns it. Runs as an expression in the page (puppeteer does not track every webview's frames).
 */
async function inWebview(probe, arg, timeout = TIMEOUT) {
  const expression = `(() => { const allDocuments = ${allDocuments.toString()}; const probe = ${probe.toString()};
    for (const doc of allDocuments(document).slice(1)) { const seen = probe(doc, ${JSON.stringify(arg ?? null)});
      if (seen) { return seen; } } return null; })()`;
  const handle = await page.waitForFunction(expression, { timeout, polling: 250 });
  return handle.jsonValue();
}

function lineOf(file, needle) {
  const lines = fs.readFileSync(path.join(config.vault, file), "utf-8").split("\n");
  const index = lines.findIndex((line) => line.includes(needle));
  if (index < 0) {
    throw new Error(`${needle} not in ${file}`);
  }
  return { line: index + 1, column: lines[index].indexOf(needle) + 1 };
}

async function main() {
  fs.mkdirSync(config.screenshots, { recursive: true });
  const browser = await puppeteer.launch({
    executablePath: config.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900",
      "--no-first-run", "--no-default-browser-check", `--user-data-dir=${config.browserProfile}`],
    defaultViewport: { width: 1400, height: 900 },
  });
  try {
    page = await browser.newPage();
    page.setDefaultTimeout(TIMEOUT);
    page.on("pageerror", (error) => process.stderr.write(`page error: ${error.message}\n`));
    page.on("requestfailed", (request) => process.stderr.write(
      `request failed: ${request.url().slice(0, 200)} ${request.failure()?.errorText ?? ""}\n`));

    await step("workbench", async () => {
      await page.goto(`${config.url}/?folder=${encodeURIComponent(config.vault)}`, { waitUntil: "domcontentloaded" });
      await page.waitForSelector(".monaco-workbench .part.editor", { visible: true, timeout: 120_000 });
      return "workbench loaded";
    });

    await step("activation", async () => {
      await openFile("Index.md");
      // the status bar item counts the notes once the language server has indexed the vault
      return await until(() => [...document.querySelectorAll(".statusbar-item")]
        .map((item) => item.textContent || "").find((label) => /CogniVault \d+ notes?/.test(label)));
    });

    await step("hover", async () => {
      const at = lineOf("Index.md", "[[Photosynthesis]]");
      await goTo(at.line, at.column + 4);
      await command("Show or Focus Hover");
      const text = await until(() => {
        const hover = [...document.querySelectorAll(".monaco-hover")].find((n) => n.offsetParent !== null);
        return hover && /Photosynthesis turns light energy/.test(hover.textContent) ? hover.textContent.trim() : null;
      });
      await shot("hover-open");
      await escape();
      return text.slice(0, 300);
    });

    await step("definition (F12)", async () => {
      const at = lineOf("Index.md", "[[Cells#Organelles]]");
      await goTo(at.line, at.column + 4);
      await page.keyboard.press("F12");
      await until(() => document.querySelector(".editor-group-container.active .tab.active")?.getAttribute("aria-label")?.includes("Cells.md"));
      return await page.$eval(".editor-group-container.active .tab.active", (tab) => tab.getAttribute("aria-label"));
    });

    await step("[[ completion", async () => {
      await openFile("Photosynthesis.md");
      await focusEditor();
      await page.keyboard.down("Control");
      await page.keyboard.press("End");
      await page.keyboard.up("Control");
      await page.keyboard.press("Enter");
      await page.keyboard.type("See [[Enz", { delay: 40 });
      const items = await until(() => {
        const rows = [...document.querySelectorAll(".suggest-widget .monaco-list-row")]
          .map((row) => row.getAttribute("aria-label") || row.textContent);
        return rows.some((row) => /Enzymes/.test(row)) ? rows : null;
      });
      await shot("completion-open");
      await escape(1);
      await command("File: Revert File");
      return items.slice(0, 5);
    });

    await step("diagnostic", async () => {
      await openFile("Index.md");
      await page.keyboard.down("Control");
      await page.keyboard.down("Shift");
      await page.keyboard.press("m"); // View: Toggle Problems
      await page.keyboard.up("Shift");
      await page.keyboard.up("Control");
      const problems = await until(() => {
        const rows = [...document.querySelectorAll(".markers-panel .monaco-list-row")].map((row) => row.textContent);
        return rows.some((row) => /Nonexistent Note/.test(row)) ? rows : null;
      });
      await shot("problems");
      await page.keyboard.down("Control");
      await page.keyboard.press("j"); // View: Toggle Panel Visibility
      await page.keyboard.up("Control");
      return problems.filter((row) => /Nonexistent Note/.test(row));
    });

    await step("search", async () => {
      await command("CogniVault: Search the vault");
      await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
      await page.keyboard.type(config.searchQuery, { delay: 20 });
      const rows = await until(() => {
        const labels = [...document.querySelectorAll(".quick-input-list .monaco-list-row")]
          .map((row) => row.getAttribute("aria-label") || row.textContent);
        return labels.some((label) => /Photosynthesis/.test(label)) ? labels : null;
      });
      await shot("search-open");
      await page.keyboard.press("Enter");
      await until(() => document.querySelector(".editor-group-container.active .tab.active")?.getAttribute("aria-label")?.includes(".md"));
      return rows.slice(0, 5);
    });

    await step("related", async () => {
      await openFile("Photosynthesis.md");
      await command("CogniVault: Related notes");
      const rows = await until(() => {
        const pane = [...document.querySelectorAll(".pane")].find((p) => /Related notes/i.test(
          p.querySelector(".pane-header")?.textContent || ""));
        const labels = pane ? [...pane.querySelectorAll(".monaco-list-row")].map((row) => row.textContent.trim()) : [];
        return labels.some((label) => /Fotosynthese|Cells|Index|Enzymes/.test(label)) ? labels : null;
      });
      return rows;
    });

    await step("ask", async () => {
      await command("CogniVault: Ask the vault");
      await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
      await page.keyboard.type(config.question, { delay: 5 });
      await page.keyboard.press("Enter");
      return await inWebview((doc) => {
        const answer = doc.querySelector(".cv-turn .cv-answer");
        if (!answer || !answer.textContent.trim() || answer.classList.contains("cv-streaming")
          || doc.querySelectorAll(".cv-source").length === 0) {
          return null;
        }
        // A formula's font loads once it is laid out. The page fetches a failed one once more, from a second
        // copy of the stylesheet that replaces the first: a failure counts only once that copy alone is left
        // and no KaTeX face is still loading.
        answer.getBoundingClientRect();
        const katexFaces = [...doc.fonts].filter((font) => font.family.includes("KaTeX"));
        if (answer.querySelector(".katex") && !katexFaces.some((font) => font.family.includes("KaTeX_Main")
          && font.status === "loaded")) {
          const sheets = [...doc.querySelectorAll("link[data-fonts]")];
          const retried = sheets.length === 1 && new URL(sheets[0].href).searchParams.has("retry");
          if (!retried || katexFaces.some((font) => font.status === "loading")
            || !katexFaces.some((font) => font.status === "error")) {
            return null;
          }
        }
        const wikilink = answer.querySelector("a.cv-wikilink");
        // KaTeX lays glyphs out with heights set through the CSSOM (the CSP drops style attributes): the strut
        // that holds a fraction's height is empty, 0 px high, unless they were applied.
        const struts = [...answer.querySelectorAll(".katex-display .strut")];
        return {
          answer: answer.innerText,
          html: answer.innerHTML.slice(0, 4000),
          strong: [...answer.querySelectorAll("strong")].map((node) => node.textContent),
          codeBlocks: [...answer.querySelectorAll("pre > code")].map((node) => node.textContent),
          highlighted: answer.querySelectorAll("pre > code [class^=hljs-]").length,
          katex: answer.querySelectorAll(".katex").length,
          strutHeight: Math.max(0, ...struts.map((strut) => strut.getBoundingClientRect().height)),
          fontSize: parseFloat(getComputedStyle(answer).fontSize),
          katexFonts: [...doc.fonts].filter((font) => font.family.includes("KaTeX") && font.status === "loaded")
            .map((font) => font.family.replace(/"/g, "")),
          fontFaces: [...doc.fonts].filter((font) => font.family.includes("KaTeX") && font.status !== "unloaded")
            .map((font) => `${font.family} ${font.style} ${font.weight}: ${font.status}`),
          wikilink: wikilink ? { text: wikilink.textContent, target: wikilink.dataset.target,
            subpath: wikilink.dataset.subpath ?? null } : null,
          chips: [...answer.querySelectorAll(".cv-chip")].map((chip) => chip.firstChild.textContent),
          links: [...answer.querySelectorAll("a")].map((a) => a.textContent),
          sources: [...doc.querySelectorAll(".cv-source")].map((s) => s.innerText),
          error: doc.querySelector(".cv-error:not([hidden])")?.textContent || null,
          bodyText: doc.body.innerText,
        };
      });
    });

    await step("source chip", async () => {
      // The reader points at the answer's first [S1] chip: the passage it cites shows beside it.
      let chip = null;
      for (const frame of page.frames()) {
        chip = await frame.$(".cv-answer .cv-chip").catch(() => null);
        if (chip) {
          break;
        }
      }
      if (!chip) {
        throw new Error("no source chip in a frame puppeteer can point at");
      }
      await chip.hover();
      await sleep(300);
      return await chip.evaluate((node) => {
        const passage = node.querySelector(".cv-chip-passage");
        return { chip: node.firstChild.textContent, passage: passage?.textContent ?? null,
          shown: Boolean(passage && getComputedStyle(passage).display !== "none" && passage.getBoundingClientRect().height > 0) };
      });
    });

    await step("answer link", async () => {
      // The reader clicks the answer's [[Photosynthesis#Light reactions|…]] link while another note is open
      // beside the chat: Photosynthesis.md opens at that heading.
      await command("View: Focus First Editor Group");
      await openFile("Cells.md");
      let link = null;
      for (const frame of page.frames()) {
        link = await frame.$(".cv-answer a.cv-wikilink").catch(() => null);
        if (link) {
          break;
        }
      }
      const seen = link ? await link.evaluate((a) => ({ text: a.textContent, subpath: a.dataset.subpath }))
        : await inWebview((doc) => {
          if (!doc.querySelector(".cv-answer")) {
            return null;
          }
          const anchor = doc.querySelector(".cv-answer a.cv-wikilink");
          anchor?.click(); // the webview's frame is not one puppeteer tracks: a DOM click
          return anchor ? { text: anchor.textContent, subpath: anchor.dataset.subpath, domClick: true } : { missing: true };
        });
      if (seen.missing) {
        throw new Error("the answer shows no link for its [[wikilink]]");
      }
      if (link) {
        await link.click();
      }
      const tab = await until(() => document.querySelector(
        ".editor-group-container.active .tab.active[aria-label*='Photosynthesis.md']")?.getAttribute("aria-label") || null);
      const heading = lineOf("Photosynthesis.md", `# ${seen.subpath}`);
      const cursor = await until((line) => {
        const text = [...document.querySelectorAll(".statusbar-item")].map((n) => n.textContent).find((t) => /Ln \d+, Col \d+/.test(t));
        return text && text.includes(`Ln ${line},`) ? text : null;
      }, heading.line);
      return { clicked: seen, tab, cursor, headingLine: heading.line };
    });

    await step("generate", async () => {
      await openFile("Photosynthesis.md");
      await command("CogniVault: Generate flashcards from the current note or selection");
      const tab = await until((folder) => {
        const label = document.querySelector(".editor-group-container.active .tab.active")?.getAttribute("aria-label") || "";
        return /Flashcards/i.test(label) ? label : null;
      }, config.generatedFolder, 180_000);
      const editorText = await page.$eval(".editor-group-container.active .monaco-editor .view-lines",
        (lines) => lines.innerText);
      return { tab, editorText: editorText.slice(0, 600) };
    });

    await step("review", async () => {
      await command("CogniVault: Review due cards");
      const title = await until(() => {
        const text = document.querySelector(".quick-input-widget .quick-input-title")?.textContent || "";
        return /^Review 1\//.test(text) ? text : null;
      });
      const front = await page.$eval(".quick-input-widget .quick-input-box input", (input) => input.placeholder);
      await page.keyboard.press("Enter"); // Show answer
      const answerTitle = await until(() => {
        const text = document.querySelector(".quick-input-widget .quick-input-title")?.textContent || "";
        return /^Answer 1\//.test(text) ? text : null;
      });
      const back = await page.$eval(".quick-input-widget .quick-input-box input", (input) => input.placeholder);
      const grades = await texts(".quick-input-list .monaco-list-row .label-name");
      await shot("review-answer");
      await escape(1);
      const done = await until(() => [...document.querySelectorAll(".notification-toast, .notifications-toasts")]
        .map((n) => n.textContent).find((t) => /cards? reviewed/.test(t)) || null);
      return { title, front, answerTitle, back, grades, done };
    });

    await step("dashboard", async () => {
      await command("CogniVault: Open study dashboard");
      const seen = await inWebview((doc) => {
        const value = (id) => doc.getElementById(id)?.textContent.trim() || "";
        if (!doc.getElementById("stat-due")) {
          return null;
        }
        const banner = doc.getElementById("error");
        if (banner && !banner.hidden && banner.textContent.trim()) {
          return { failed: banner.textContent.trim() };
        }
        const loaded = /^\d+$/.test(value("stat-due")) && /\d+ of \d+ unlocked/.test(value("badge-count"));
        return loaded ? { due: value("stat-due"), total: value("stat-total"), today: value("stat-today"),
          streak: value("stat-streak"), badges: value("badge-count"),
          dueList: [...doc.querySelectorAll("#due-list li")].map((li) => li.textContent.trim()).slice(0, 5) } : null;
      });
      if (seen.failed) {
        throw new Error(`the dashboard did not load its data: ${seen.failed}`);
      }
      // Read while the editor is still open: once the browser goes, code-server may stop the
      // extension host, and the companion removes its companion.json on the way out.
      const companion = JSON.parse(fs.readFileSync(path.join(config.vault, ".cognivault", "companion.json"), "utf-8"));
      const companionCommand = fs.readFileSync(`/proc/${companion.pid}/cmdline`, "utf-8").split("\0");
      return { ...seen, companionCommand };
    });
  } finally {
    await browser.close().catch(() => undefined);
  }
}

main().then(() => {
  process.stdout.write(`${JSON.stringify({ steps })}\n`);
}, (error) => {
  steps.push({ name: "driver", ok: false, detail: String(error && error.stack ? error.stack : error), ms: 0 });
  process.stdout.write(`${JSON.stringify({ steps })}\n`);
  process.exitCode = 1;
});
