/**
 * One question-and-answer turn as DOM, shared by the VS Code chat webview and the Obsidian chat
 * view: the question, a confidence chip, a collapsible reasoning fold, the answer rendered as
 * Markdown by the host (bold, lists, tables, code, math, `[[Note#Heading|alias]]` links), its
 * `[S1]` markers as source chips that show the passage on hover, the vault's `<!--cv:…-->`
 * comments never shown, an error line and the numbered sources.
 *
 * The host renders Markdown (`AnswerHost.render`: markdown-it + DOMPurify in the webview,
 * Obsidian's own MarkdownRenderer there) and decides what a source link does (`link`). While the
 * answer streams in, each render is made off-screen and only the blocks that changed replace their
 * old selves, so earlier blocks, the scroll position and a text selection stay put.
 * Everything else is built with textContent.
 */

import type { AnswerState, Source } from "./companion";

export type SourceLink = (source: Source, text: string) => HTMLElement;

const CONFIDENCE_TEXT: Record<string, string> = {
  high: "High confidence", medium: "Medium confidence", low: "Low confidence", none: "Not in your notes",
};

function el<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, className: string, text?: string):
  HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

// A CogniVault comment: `<!--cv:…-->`, or one that lost its `-->` on the way (a model or a
// sentence splitter trimmed it): up to the next punctuation, `[S1]` marker or line end.
const CV_COMMENT = String.raw`<!--cv:[^>\n]*?(?:-->|(?=[.,;:!?]|\s*\[S\d+\]|\s*$))`;
// A citation of the vault (`[[target#heading|label]]<!--cv:cite …-->`, see vault_schema/citation.md), with the
// space a writer may leave before its comment, or any other CogniVault comment, which is dropped.
const COMMENT_RE = new RegExp(String.raw`(\[\[[^[\]\n]+\]\]) ?(?=<!--cv:cite\b)${CV_COMMENT}|${CV_COMMENT}`, "gm");
// The unfinished start of such a comment (and the link before it) at the end of a streamed text:
// held back until it completes.
const PARTIAL_COMMENT_RE = /(?:\[\[[^[\]\n]*\]\] ?)?<(?:!(?:-(?:-(?:c(?:v(?::[^>]*)?)?)?)?)?)?$/;
const WIKILINK_RE = /\[\[([^[\]|#\n]+)(?:#([^[\]|\n]+))?(?:\|([^[\]\n]+))?\]\]/g;
const MARKER_RE = /\[(S\d+)\]/g;
// Source markers after a formula's closing `$$` (`$$E = mc^2$$ [S1]`, as answers cite a formula): renderers
// read a `$$` line that does not end in `$$` as a formula running on to the end of the answer.
const MARKERS_AFTER_MATH_RE = /\$\$[ \t]*((?:\[S\d+\][ \t]*)+[.,;:]?)[ \t]*$/gm;
// Where a `[S1]` in the rendered answer is text the reader sees, not code or math.
const NOT_PROSE = "pre, code, .katex, a, .cv-chip";

/**
 * The answer's text as Markdown to render: CogniVault comments dropped (a citation keeps its
 * `[[…]]` link), source markers after a formula's closing `$$` moved to the next line. While
 * `streaming`, an unfinished comment at the end is held back (it completes in a later chunk).
 */
export function answerMarkdown(text: string, streaming = false): string {
  const visible = streaming ? text.replace(PARTIAL_COMMENT_RE, "") : text;
  return visible.replace(COMMENT_RE, (_whole, link: string | undefined) => link ?? "")
    .replace(MARKERS_AFTER_MATH_RE, (_whole, markers: string) => `$$\n${markers.trim()}`);
}

/**
 * A passage's Markdown as plain text for a one-line preview: links as their labels (or note ›
 * heading), bold, italics and code marks dropped, CogniVault comments dropped.
 */
export function readableText(text: string): string {
  return answerMarkdown(text)
    .replace(WIKILINK_RE, (_whole, target: string, heading?: string, label?: string) =>
      label?.trim() || [target.trim(), heading?.trim()].filter(Boolean).join(" › "))
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/(^|[^\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\2(?![\w*])/g, "$1$3")
    .replace(/`([^`\n]+)`/g, "$1");
}

/** What a host gives the turn: how Markdown becomes DOM, and what a source's link is. */
export interface AnswerHost {
  /** Renders `markdown` into the empty, detached `target` (a Promise when the renderer is async). */
  render: (target: HTMLElement, markdown: string) => void | Promise<void>;
  link: SourceLink;
}

/** A `[S1]` chip: the host's link to the source, with the passage it cites shown on hover. */
function sourceChip(doc: Document, source: Source, link: SourceLink): HTMLElement {
  const chip = link(source, source.label);
  chip.classList.add("cv-chip");
  chip.setAttribute("aria-label", `${source.label}: ${source.title}`);
  const passage = readableText(source.snippet).trim();
  if (passage) {
    const preview = el(doc, "span", "cv-chip-passage", passage);
    preview.setAttribute("role", "tooltip");
    chip.append(preview);
  }
  return chip;
}

/** Turns the `[S1]` markers in the rendered answer's prose into source chips (not in code or math). */
export function decorateAnswer(container: HTMLElement, sources: readonly Source[], link: SourceLink): void {
  const doc = container.ownerDocument;
  const walker = doc.createTreeWalker(container, 4 /* NodeFilter.SHOW_TEXT */);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (MARKER_RE.test(node.nodeValue ?? "") && !node.parentElement?.closest(NOT_PROSE)) {
      texts.push(node as Text);
    }
    MARKER_RE.lastIndex = 0;
  }
  for (const text of texts) {
    const value = text.nodeValue ?? "";
    const parts: (string | Node)[] = [];
    let last = 0;
    for (const match of value.matchAll(MARKER_RE)) {
      const source = sources.find((s) => s.label === match[1]);
      if (source) {
        parts.push(value.slice(last, match.index), sourceChip(doc, source, link));
        last = match.index + match[0].length;
      }
    }
    if (last > 0) {
      parts.push(value.slice(last));
      text.replaceWith(...parts.filter((part) => part !== ""));
    }
  }
}

/**
 * Makes `target`'s children those of `fresh`, keeping every old child equal to its new one in
 * place (a streamed answer changes only at its end: the blocks above are not touched).
 */
export function morphChildren(target: HTMLElement, fresh: HTMLElement): void {
  const incoming = [...fresh.childNodes];
  const current = [...target.childNodes];
  incoming.forEach((node, index) => {
    const old = current[index];
    if (!old) {
      target.append(node);
    } else if (!old.isEqualNode(node)) {
      old.replaceWith(node);
    }
  });
  for (const extra of current.slice(incoming.length)) {
    extra.remove();
  }
}

/** The empty skeleton of a turn for `question` (fill it with `renderTurn`). */
export function createTurn(doc: Document, question: string): HTMLElement {
  const root = el(doc, "section", "cv-turn");
  const chip = el(doc, "span", "cv-confidence");
  chip.hidden = true;
  const reasoning = el(doc, "details", "cv-reasoning");
  reasoning.hidden = true;
  reasoning.append(el(doc, "summary", "cv-reasoning-title", "Reasoning"), el(doc, "div", "cv-thinking"));
  const error = el(doc, "div", "cv-error");
  error.hidden = true;
  const sourcesTitle = el(doc, "div", "cv-sources-title", "Sources");
  sourcesTitle.hidden = true;
  root.append(el(doc, "div", "cv-question", question), el(doc, "div", "cv-meta"), reasoning,
    el(doc, "div", "cv-answer"), error, sourcesTitle, el(doc, "ol", "cv-sources"));
  (root.querySelector(".cv-meta") as HTMLElement).append(chip);
  return root;
}

function part<T extends HTMLElement>(root: HTMLElement, selector: string): T {
  return root.querySelector(selector) as T;
}

// The latest render of each turn's answer: an async render that finishes after a newer one is dropped.
const renders = new WeakMap<HTMLElement, number>();

/** Renders the answer's Markdown off-screen, adds its chips and swaps in the blocks that changed. */
async function renderAnswer(answer: HTMLElement, state: AnswerState, host: AnswerHost): Promise<void> {
  const generation = (renders.get(answer) ?? 0) + 1;
  renders.set(answer, generation);
  const fresh = answer.ownerDocument.createElement("div");
  const rendering = host.render(fresh, answerMarkdown(state.text, !state.done));
  if (rendering) {
    await rendering;
  }
  if (renders.get(answer) !== generation) {
    return;
  }
  decorateAnswer(fresh, state.sources, host.link);
  morphChildren(answer, fresh);
  answer.classList.toggle("cv-streaming", !state.done);
}

/**
 * Shows `state` in a turn made by `createTurn` (call again after every envelope). With a
 * synchronous renderer the turn is drawn when this returns; the Promise is for an async one.
 */
export function renderTurn(root: HTMLElement, state: AnswerState, host: AnswerHost): Promise<void> {
  const doc = root.ownerDocument;
  const link = host.link;
  const reasoning = part<HTMLDetailsElement>(root, ".cv-reasoning");
  reasoning.hidden = !state.thinking;
  part(root, ".cv-thinking").textContent = state.thinking;

  const rendered = renderAnswer(part(root, ".cv-answer"), state, host);

  const chip = part(root, ".cv-confidence");
  chip.hidden = !state.confidence;
  if (state.confidence) {
    chip.textContent = CONFIDENCE_TEXT[state.confidence.label] ?? state.confidence.label;
    chip.title = state.confidence.reason;
    chip.dataset.level = state.confidence.label;
  }

  const list = el(doc, "ol", "");
  for (const source of state.sources) {
    const item = el(doc, "li", "cv-source");
    const title = [source.title, ...source.headingPath.slice(1)].join(" › ");
    item.append(el(doc, "span", "cv-label", source.label), link(source, title),
      el(doc, "span", "cv-lines", ` ${source.path}:${source.lineStart}`));
    if (source.snippet) {
      item.append(el(doc, "div", "cv-snippet", readableText(source.snippet)));
    }
    list.append(item);
  }
  morphChildren(part(root, ".cv-sources"), list);
  part(root, ".cv-sources-title").hidden = state.sources.length === 0;

  const error = part(root, ".cv-error");
  error.hidden = !state.error;
  error.textContent = state.error ? state.error.message : "";
  return rendered;
}
