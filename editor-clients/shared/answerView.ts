/**
 * One question-and-answer turn as DOM, shared by the VS Code chat webview and the Obsidian chat
 * view: the question, a confidence chip, a collapsible reasoning fold, the answer (with `[S1]`
 * markers and the vault's citation links `[[Note#Heading|label]]<!--cv:cite id=… h=…-->` turned
 * into source chips, never shown as raw comments), an error line and the numbered sources.
 *
 * Everything is built with textContent: nothing from an answer is ever parsed as HTML.
 * The host decides what a source link does (`link` returns the clickable element).
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

/** One piece of an answer's text: plain text, an `[S1]` marker, or a citation link of the vault. */
export type AnswerPiece =
  | { kind: "text"; text: string }
  | { kind: "source"; source: Source; text: string }
  | { kind: "cite"; label: string; target: string; source: Source | undefined };

// A CogniVault comment: `<!--cv:…-->`, or one that lost its `-->` on the way (a model or a
// sentence splitter trimmed it): up to the next punctuation, `[S1]` marker or line end.
const CV_COMMENT = String.raw`<!--cv:[^>\n]*?(?:-->|(?=[.,;:!?]|\s*\[S\d+\]|\s*$))`;
// `[S1]`, a citation (`[[target#heading|label]]<!--cv:cite …-->`, see vault_schema/citation.md),
// or any other CogniVault comment, which is dropped.
const PIECE_RE = new RegExp(String.raw`\[(S\d+)\]|\[\[([^[\]|#\n]+)(?:#([^[\]|\n]+))?(?:\|([^[\]\n]+))?\]\] ?(?=<!--cv:cite\b)` +
  `${CV_COMMENT}|${CV_COMMENT}`, "gm");
// The unfinished start of such a comment (and the link before it) at the end of a streamed text:
// held back until it completes.
const PARTIAL_COMMENT_RE = /(?:\[\[[^[\]\n]*\]\] ?)?<(?:!(?:-(?:-(?:c(?:v(?::[^>]*)?)?)?)?)?)?$/;

function noteKey(value: string): string {
  return value.replace(/\\/g, "/").replace(/\.md$/i, "").toLowerCase();
}

/** The answer's source a citation's target names (by path, path tail or title). */
function citedSource(target: string, sources: readonly Source[]): Source | undefined {
  const key = noteKey(target.trim());
  return sources.find((s) => noteKey(s.path) === key) ?? sources.find((s) => noteKey(s.path).endsWith(`/${key}`))
    ?? sources.find((s) => s.title.toLowerCase() === key);
}

/**
 * Splits an answer's text into what the view shows: text, source markers and citation chips.
 * While `streaming`, an unfinished comment at the end is held back (it completes in a later chunk).
 */
export function answerPieces(text: string, sources: readonly Source[], streaming = false): AnswerPiece[] {
  const pieces: AnswerPiece[] = [];
  const visible = streaming ? text.replace(PARTIAL_COMMENT_RE, "") : text;
  let last = 0;
  const pushText = (piece: string): void => {
    if (piece) {
      pieces.push({ kind: "text", text: piece });
    }
  };
  for (const match of visible.matchAll(PIECE_RE)) {
    pushText(visible.slice(last, match.index));
    last = match.index + match[0].length;
    const [whole, marker, target, heading, label] = match;
    if (marker) {
      const source = sources.find((s) => s.label === marker);
      pieces.push(source ? { kind: "source", source, text: whole } : { kind: "text", text: whole });
    } else if (target) {
      const shown = label?.trim() || [target.trim(), heading?.trim()].filter(Boolean).join(" › ");
      pieces.push({ kind: "cite", label: shown, target: target.trim(), source: citedSource(target, sources) });
    }
  }
  pushText(visible.slice(last));
  return pieces;
}

/** Text as a reader sees it: citation links as their labels, CogniVault comments dropped. */
export function readableText(text: string): string {
  return answerPieces(text, []).map((piece) => (piece.kind === "cite" ? piece.label : piece.text)).join("");
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

/** Shows `state` in a turn made by `createTurn` (call again after every envelope). */
export function renderTurn(root: HTMLElement, state: AnswerState, link: SourceLink): void {
  const doc = root.ownerDocument;
  const reasoning = part<HTMLDetailsElement>(root, ".cv-reasoning");
  reasoning.hidden = !state.thinking;
  part(root, ".cv-thinking").textContent = state.thinking;

  const answer = part(root, ".cv-answer");
  answer.replaceChildren();
  for (const piece of answerPieces(state.text, state.sources, !state.done)) {
    if (piece.kind === "text") {
      answer.append(doc.createTextNode(piece.text));
    } else if (piece.kind === "source") {
      answer.append(link(piece.source, piece.text));
    } else {
      const chip = piece.source ? link(piece.source, piece.label) : el(doc, "span", "", piece.label);
      chip.classList.add("cv-cite");
      chip.title ||= piece.target;
      answer.append(chip);
    }
  }
  answer.classList.toggle("cv-streaming", !state.done);

  const chip = part(root, ".cv-confidence");
  chip.hidden = !state.confidence;
  if (state.confidence) {
    chip.textContent = CONFIDENCE_TEXT[state.confidence.label] ?? state.confidence.label;
    chip.title = state.confidence.reason;
    chip.dataset.level = state.confidence.label;
  }

  const list = part(root, ".cv-sources");
  list.replaceChildren();
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
  part(root, ".cv-sources-title").hidden = state.sources.length === 0;

  const error = part(root, ".cv-error");
  error.hidden = !state.error;
  error.textContent = state.error ? state.error.message : "";
}
