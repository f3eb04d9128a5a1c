/**
 * "Ask the vault": a webview panel that shows answers streaming from the companion's /api/ask.
 *
 * The extension host holds the token and reads the NDJSON stream; the webview only receives the
 * parsed envelopes by postMessage (so its CSP allows no connections at all) and sends back
 * questions and "open this source" clicks.
 */

import * as vscode from "vscode";

import { type CompanionClient, CompanionError, makeNonce } from "../../shared/companion";
import type { Envelope } from "../../shared/ndjson";
import { escapeHtml, webviewCsp } from "./csp";

export const CHAT_VIEW_TYPE = "cognivault.chat";

export type HostMessage =
  | { type: "turn"; id: number; question: string }
  | { type: "envelope"; id: number; envelope: Envelope }
  | { type: "busy"; busy: boolean };

export type WebviewMessage =
  | { type: "ready" }
  | { type: "ask"; question: string }
  | { type: "cancel" }
  | { type: "open"; path: string; lineStart: number; lineEnd: number }
  | { type: "openNote"; target: string; subpath: string };

export interface ChatDeps {
  extensionUri: vscode.Uri;
  companion: () => Promise<CompanionClient>;
  openSource: (path: string, lineStart: number, lineEnd: number) => Promise<void>;
  /** Opens the note a `[[target#subpath]]` link names, at that heading or block. */
  openNote: (target: string, subpath: string) => Promise<void>;
  log: (line: string) => void;
}

export function chatHtml(webview: { cspSource: string; asWebviewUri(uri: vscode.Uri): vscode.Uri },
  extensionUri: vscode.Uri, nonce: string): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", "chat.js"));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "media", "chat.css"));
  const katex = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", "katex", "katex.min.css"));
  const csp = webviewCsp({ cspSource: webview.cspSource, nonce });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" data-fonts href="${escapeHtml(katex.toString())}">
<link rel="stylesheet" href="${escapeHtml(style.toString())}">
<title>Ask the vault</title>
</head>
<body>
<main id="log" aria-live="polite"></main>
<form id="ask-form">
  <textarea id="question" rows="2" placeholder="Ask your notes…" aria-label="Question"></textarea>
  <div class="actions"><button type="submit" id="ask">Ask</button><button type="button" id="stop" hidden>Stop</button></div>
</form>
<script nonce="${nonce}" src="${escapeHtml(script.toString())}"></script>
</body>
</html>`;
}

export class ChatPanel {
  static current: ChatPanel | undefined;

  private turn = 0;
  private ready = false;
  private queue: HostMessage[] = [];
  private abort: AbortController | null = null;
  private sessionId: string;

  static show(deps: ChatDeps): ChatPanel {
    if (ChatPanel.current) {
      ChatPanel.current.panel.reveal(vscode.ViewColumn.Beside);
      return ChatPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, "Ask the vault", vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(deps.extensionUri, "dist"), vscode.Uri.joinPath(deps.extensionUri, "media")],
    });
    ChatPanel.current = new ChatPanel(panel, deps);
    return ChatPanel.current;
  }

  private constructor(readonly panel: vscode.WebviewPanel, private readonly deps: ChatDeps) {
    this.sessionId = `vscode-${makeNonce().slice(0, 16)}`;
    panel.webview.html = chatHtml(panel.webview, deps.extensionUri, makeNonce());
    panel.webview.onDidReceiveMessage((message: WebviewMessage) => this.onMessage(message));
    panel.onDidDispose(() => {
      this.abort?.abort();
      if (ChatPanel.current === this) {
        ChatPanel.current = undefined;
      }
    });
  }

  private post(message: HostMessage): void {
    if (!this.ready) {
      this.queue.push(message);
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  private onMessage(message: WebviewMessage): void {
    switch (message.type) {
      case "ready":
        this.ready = true;
        for (const queued of this.queue.splice(0)) {
          void this.panel.webview.postMessage(queued);
        }
        break;
      case "ask":
        void this.ask(message.question);
        break;
      case "cancel":
        this.abort?.abort();
        break;
      case "open":
        void this.deps.openSource(message.path, message.lineStart, message.lineEnd);
        break;
      case "openNote":
        void this.deps.openNote(message.target, message.subpath);
        break;
    }
  }

  /** Streams one answer into the panel; resolves when the stream ended (done, error or cancel). */
  async ask(question: string): Promise<void> {
    const text = question.trim();
    if (!text) {
      return;
    }
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    const id = ++this.turn;
    this.post({ type: "turn", id, question: text });
    this.post({ type: "busy", busy: true });
    try {
      const client = await this.deps.companion();
      for await (const envelope of client.ask(text, { sessionId: this.sessionId }, abort.signal)) {
        this.post({ type: "envelope", id, envelope });
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const code = error instanceof CompanionError ? error.code : "unavailable";
      this.deps.log(`ask failed: ${message}`);
      this.post({ type: "envelope", id, envelope: { type: "error", data: { code, message } } });
    } finally {
      if (this.abort === abort) {
        this.abort = null;
        this.post({ type: "busy", busy: false });
      }
    }
  }
}
