/**
 * One question-and-answer turn as DOM, shared by the VS Code chat webview and the Obsidian chat
 * view: the question, a confidence chip, a collapsible reasoning fold, the answer (with `[S1]`
 * markers turned into source links), an error line and the numbered sources.
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
  for (const piece of state.text.split(/(\[S\d+\])/)) {
    const label = /^\[(S\d+)\]$/.exec(piece)?.[1];
    const source = label ? state.sources.find((s) => s.label === label) : undefined;
    if (source) {
      answer.append(link(source, piece));
    } else if (piece) {
      answer.append(doc.createTextNode(piece));
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
      item.append(el(doc, "div", "cv-snippet", source.snippet));
    }
    list.append(item);
  }
  part(root, ".cv-sources-title").hidden = state.sources.length === 0;

  const error = part(root, ".cv-error");
  error.hidden = !state.error;
  error.textContent = state.error ? state.error.message : "";
}
