/**
 * The chat panel's page script (bundled by esbuild into dist/webview/chat.js, loaded by nonce).
 * Turns are drawn by the shared answer view with the answer rendered as Markdown; source links
 * post "open" to the extension host (the note at the cited lines), `[[Note#Heading]]` links post
 * "openNote" (the note at that heading or block). While an answer streams, the log stays at its
 * end if the reader was there. A formula font that fails to load is fetched once more.
 */

import { type AnswerHost, createTurn, renderTurn } from "../../../shared/answerView";
import { type AnswerState, applyEnvelope, newAnswer, type Source } from "../../../shared/companion";
import type { HostMessage, WebviewMessage } from "../chatPanel";
import { renderMarkdown } from "./markdown";

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/**
 * Fetches the formula fonts again, once, after one failed to load: a webview's resource request can
 * fail while the editor is busy, and a failed `@font-face` never retries on its own, so every formula
 * would stay in a fallback font. A second copy of the stylesheet (its own URL, so the browser makes
 * new font faces instead of reusing the failed ones) replaces the first once it has loaded.
 */
export function refetchFailedFonts(doc: Document): void {
  let retried = false;
  doc.fonts?.addEventListener?.("loadingerror", () => {
    const sheet = doc.querySelector<HTMLLinkElement>("link[rel=stylesheet][data-fonts]");
    if (retried || !sheet) {
      return;
    }
    retried = true;
    const fresh = sheet.cloneNode() as HTMLLinkElement;
    const url = new URL(sheet.href);
    url.searchParams.set("retry", "1");
    fresh.href = url.toString();
    fresh.addEventListener("load", () => sheet.remove());
    sheet.after(fresh);
  });
}

export function start(vscode: VsCodeApi, doc: Document = document): void {
  refetchFailedFonts(doc);
  const log = doc.getElementById("log") as HTMLElement;
  const form = doc.getElementById("ask-form") as HTMLFormElement;
  const question = doc.getElementById("question") as HTMLTextAreaElement;
  const stop = doc.getElementById("stop") as HTMLButtonElement;
  const askButton = doc.getElementById("ask") as HTMLButtonElement;
  const turns = new Map<number, { state: AnswerState; root: HTMLElement }>();

  const link = (source: Source, text: string): HTMLElement => {
    const anchor = doc.createElement("a");
    anchor.className = "cv-source-link";
    anchor.textContent = text;
    anchor.href = "#";
    anchor.title = `${source.path}:${source.lineStart}-${source.lineEnd}`;
    anchor.addEventListener("click", (event) => {
      event.preventDefault();
      vscode.postMessage({ type: "open", path: source.path, lineStart: source.lineStart, lineEnd: source.lineEnd });
    });
    return anchor;
  };
  const host: AnswerHost = { render: renderMarkdown, link };

  log.addEventListener("click", (event) => {
    const anchor = (event.target as Element | null)?.closest?.("a.cv-wikilink") as HTMLAnchorElement | null;
    if (!anchor) {
      return;
    }
    event.preventDefault();
    vscode.postMessage({ type: "openNote", target: anchor.dataset.target ?? "", subpath: anchor.dataset.subpath ?? "" });
  });

  /** Draws `turn`, keeping the log at its end when the reader was there (else where it was). */
  const draw = (turn: { state: AnswerState; root: HTMLElement }): void => {
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
    void renderTurn(turn.root, turn.state, host);
    if (atEnd) {
      log.scrollTop = log.scrollHeight;
    }
  };

  window.addEventListener("message", (event: MessageEvent<HostMessage>) => {
    const message = event.data;
    if (message.type === "turn") {
      const turn = { state: newAnswer(), root: createTurn(doc, message.question) };
      turns.set(message.id, turn);
      log.append(turn.root);
      void renderTurn(turn.root, turn.state, host);
      log.scrollTop = log.scrollHeight;
    } else if (message.type === "envelope") {
      const turn = turns.get(message.id);
      if (turn) {
        applyEnvelope(turn.state, message.envelope);
        draw(turn);
      }
    } else if (message.type === "busy") {
      stop.hidden = !message.busy;
      askButton.disabled = message.busy;
    }
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = question.value.trim();
    if (text) {
      vscode.postMessage({ type: "ask", question: text });
      question.value = "";
    }
  });
  question.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  stop.addEventListener("click", () => vscode.postMessage({ type: "cancel" }));
  vscode.postMessage({ type: "ready" });
}

if (typeof acquireVsCodeApi === "function") {
  start(acquireVsCodeApi());
}
