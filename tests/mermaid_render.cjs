// Renders Mermaid diagrams with the real mermaid library in one headless Chromium page (through
// puppeteer-core), the way Obsidian's preview does: mermaid.parse() then mermaid.render() for each.
// The result is one JSON document on stdout:
//   {"diagrams": [{"name", "parsed", "rendered", "error", "type", "labels"}]}
// where `labels` is the text of every mind-map node in the rendered SVG.
//
// Usage: node mermaid_render.cjs CONFIG.json   (NODE_PATH must reach puppeteer-core)
// CONFIG: {chromium, mermaid: path of mermaid's dist/mermaid.min.js, diagrams: [{name, source}]}
"use strict";

const fs = require("node:fs");
const puppeteer = require("puppeteer-core");

const config = JSON.parse(fs.readFileSync(process.argv[2], "utf-8"));

/** Runs in the page: parses and renders one diagram, and reads the node labels back from its SVG. */
async function renderInPage(source, index) {
  const result = { parsed: false, rendered: false, error: null, type: null, labels: [] };
  try {
    result.type = (await mermaid.parse(source)).diagramType;
    result.parsed = true;
    const { svg } = await mermaid.render(`diagram${index}`, source);
    const holder = document.createElement("div");
    holder.innerHTML = svg;
    document.body.appendChild(holder);
    result.rendered = holder.querySelector("svg") !== null && !holder.querySelector(".error-icon");
    result.labels = [...holder.querySelectorAll("g.mindmap-node")].map((node) => node.textContent.replace(/\s+/g, " ").trim());
    holder.remove();
  } catch (error) {
    result.error = String(error && error.message ? error.message : error).slice(0, 1000);
  }
  return result;
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: config.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check"],
  });
  try {
    const page = await browser.newPage();
    page.on("pageerror", (error) => process.stderr.write(`page error: ${error.message}\n`));
    await page.goto("about:blank");
    await page.addScriptTag({ path: config.mermaid });
    await page.evaluate(() => mermaid.initialize({ startOnLoad: false, securityLevel: "strict" }));
    const diagrams = [];
    for (const [index, diagram] of config.diagrams.entries()) {
      diagrams.push({ name: diagram.name, ...(await page.evaluate(renderInPage, diagram.source, index)) });
    }
    process.stdout.write(JSON.stringify({ diagrams }));
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
