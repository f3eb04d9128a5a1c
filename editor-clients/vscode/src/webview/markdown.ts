/**
 * An answer's Markdown as the chat webview shows it: markdown-it with raw HTML off (a model's or a
 * note's `<img onerror>` stays text), KaTeX for `$…$` and `$$…$$`, highlight.js for fenced code,
 * tables, Obsidian callouts (`> [!note] Title`) and `[[Note#Heading|alias]]` links (anchors with
 * the note and heading in `data-target`/`data-subpath`; the page script opens them), then DOMPurify
 * over the result. KaTeX's CSS and fonts are bundled with the extension (the CSP loads nothing else).
 */

import markdownKatex from "@vscode/markdown-it-katex";
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/common";
import MarkdownIt, { type StateInline } from "markdown-it";

const WIKILINK = /^\[\[([^[\]|#\n]+)(?:#([^[\]|\n]+))?(?:\|([^[\]\n]+))?\]\]/;
const CALLOUT = /^\[!([\w-]+)\]([+-]?)[ \t]*(.*)$/;

/** `[[target#subpath|alias]]` as a link token (the alias, or "target › subpath", as its text). */
function wikilink(state: StateInline, silent: boolean): boolean {
  if (!state.src.startsWith("[[", state.pos)) {
    return false;
  }
  const match = WIKILINK.exec(state.src.slice(state.pos));
  if (!match) {
    return false;
  }
  if (!silent) {
    const [, target, subpath, alias] = match;
    const open = state.push("link_open", "a", 1);
    open.attrs = [["href", "#"], ["class", "cv-wikilink"], ["data-target", target.trim()]];
    if (subpath?.trim()) {
      open.attrs.push(["data-subpath", subpath.trim()]);
    }
    open.attrs.push(["title", [target.trim(), subpath?.trim()].filter(Boolean).join("#")]);
    state.push("text", "", 0).content = alias?.trim() || [target.trim(), subpath?.trim()].filter(Boolean).join(" › ");
    state.push("link_close", "a", -1);
  }
  state.pos += match[0].length;
  return true;
}

const markdown = new MarkdownIt({
  html: false,
  linkify: false,
  typographer: false,
  highlight: (code, language) => {
    if (language && hljs.getLanguage(language)) {
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    }
    return ""; // markdown-it escapes it
  },
})
  .use(markdownKatex, { throwOnError: false })
  .use((md) => md.inline.ruler.before("link", "cv_wikilink", wikilink));

/** `> [!type] Title` blockquotes as Obsidian's callout boxes (title line, then the content). */
function callouts(root: HTMLElement): void {
  const doc = root.ownerDocument;
  for (const quote of [...root.querySelectorAll("blockquote")]) {
    const first = quote.firstElementChild;
    const lead = first?.tagName === "P" ? first.firstChild : null;
    const match = lead?.nodeType === 3 ? CALLOUT.exec((lead.nodeValue ?? "").split("\n")[0]) : null;
    if (!first || !lead || !match) {
      continue;
    }
    const [whole, type, , title] = match;
    const callout = doc.createElement("div");
    callout.className = "callout";
    callout.dataset.callout = type.toLowerCase();
    const heading = doc.createElement("div");
    heading.className = "callout-title";
    heading.textContent = title || type.charAt(0).toUpperCase() + type.slice(1).toLowerCase();
    lead.nodeValue = (lead.nodeValue ?? "").slice(whole.length).replace(/^\n/, "");
    if (!first.textContent?.trim()) {
      first.remove();
    }
    const content = doc.createElement("div");
    content.className = "callout-content";
    content.append(...quote.childNodes);
    callout.append(heading, content);
    quote.replaceWith(callout);
  }
}

/**
 * KaTeX positions glyphs with style attributes, which the strict CSP does not apply when parsed
 * from markup; set through the CSSOM they are allowed. The values are KaTeX's (raw HTML is off).
 */
function applyStyles(root: HTMLElement): void {
  for (const node of [...root.querySelectorAll<HTMLElement>("[style]")]) {
    const css = node.getAttribute("style") ?? "";
    node.removeAttribute("style");
    node.style.cssText = css;
  }
}

/** Renders `text` (Markdown) into `target`, sanitized. */
export function renderMarkdown(target: HTMLElement, text: string): void {
  const html = markdown.render(text);
  const clean = DOMPurify.sanitize(html, { RETURN_DOM_FRAGMENT: true, FORBID_TAGS: ["style", "form", "input"] });
  target.append(target.ownerDocument.importNode(clean, true));
  callouts(target);
  applyStyles(target);
}
