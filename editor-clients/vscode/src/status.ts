/**
 * Index progress in the status bar, from the language server's `cognivault/status`
 * (polled: often while indexing, rarely when idle), and the "Show index status" report.
 */

import * as vscode from "vscode";

import { type LspClient, STATUS } from "./protocol";

export interface IndexingState {
  phase: string;
  stage: string;
  done: number;
  total: number;
  current: string;
  summary: string;
  errors: string[];
}

export interface LspStatus {
  vault: string | null;
  indexing: IndexingState;
  provider?: { embeddings: string | null; note?: string | null };
  index?: {
    files?: Record<string, number>;
    stages?: Record<string, Record<string, number | boolean>>;
    failures?: { path: string; state: string; reason?: string }[];
  };
  error?: string | null;
}

const STAGE: Record<string, string> = { scan: "scanning", read: "reading", embed: "embedding", finish: "finishing" };

/** The status bar text and tooltip for a status answer (pure). */
export function statusBarText(status: LspStatus | null): { text: string; tooltip: string; busy: boolean } {
  if (!status) {
    return { text: "$(circle-slash) CogniVault", tooltip: "CogniVault: the language server is not running", busy: false };
  }
  const state = status.indexing;
  if (status.error) {
    return { text: "$(error) CogniVault", tooltip: `CogniVault: ${status.error}`, busy: false };
  }
  switch (state.phase) {
    case "indexing": {
      const stage = STAGE[state.stage] ?? state.stage ?? "indexing";
      const count = state.total ? ` ${state.done}/${state.total}` : "";
      const percent = state.total ? ` (${Math.round((100 * state.done) / state.total)}%)` : "";
      return { text: `$(sync~spin) CogniVault ${stage}${count}`, tooltip: `CogniVault: ${stage}${count}${percent}${state.current ? `\n${state.current}` : ""}`, busy: true };
    }
    case "starting":
      return { text: "$(sync~spin) CogniVault", tooltip: "CogniVault: starting", busy: true };
    case "failed":
      return { text: "$(error) CogniVault", tooltip: `CogniVault: ${state.summary || "indexing failed"}`, busy: false };
    case "read-only":
      return { text: "$(lock) CogniVault", tooltip: `CogniVault: read-only (${state.summary})`, busy: false };
    default: {
      const files = status.index?.files;
      const count = files?.indexed !== undefined ? ` ${files.indexed} notes` : "";
      return { text: `$(database) CogniVault${count}`, tooltip: `CogniVault: ${state.summary || "ready"}\nClick for the index status`, busy: false };
    }
  }
}

/** A plain-text report of the index (for the output channel). */
export function statusReport(status: LspStatus): string {
  const lines = [`Vault: ${status.vault ?? "(none)"}`];
  const state = status.indexing;
  lines.push(`Phase: ${state.phase}${state.stage ? ` (${state.stage} ${state.done}/${state.total})` : ""}`);
  if (state.summary) {
    lines.push(`Last run: ${state.summary}`);
  }
  lines.push(`Embeddings: ${status.provider?.embeddings ?? "off (keyword search only)"}`);
  if (status.provider?.note) {
    lines.push(`  ${status.provider.note}`);
  }
  for (const [name, count] of Object.entries(status.index?.files ?? {})) {
    lines.push(`Files ${name}: ${count}`);
  }
  for (const [stage, values] of Object.entries(status.index?.stages ?? {})) {
    lines.push(`Stage ${stage}: ${Object.entries(values).map(([k, v]) => `${k} ${String(v)}`).join(", ")}`);
  }
  for (const failure of status.index?.failures ?? []) {
    lines.push(`  ${failure.state}: ${failure.path}${failure.reason ? ` (${failure.reason})` : ""}`);
  }
  for (const error of state.errors) {
    lines.push(`Error: ${error}`);
  }
  if (status.error) {
    lines.push(`Server error: ${status.error}`);
  }
  return lines.join("\n");
}

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  last: LspStatus | null = null;

  constructor(private readonly lsp: () => LspClient | undefined, private readonly intervals = { busyMs: 1000, idleMs: 15000 }) {
    this.item = vscode.window.createStatusBarItem("cognivault.status", vscode.StatusBarAlignment.Left, 50);
    this.item.name = "CogniVault index";
    this.item.command = "cognivault.showStatus";
    this.render(null);
    this.item.show();
  }

  async poll(): Promise<LspStatus | null> {
    const client = this.lsp();
    let status: LspStatus | null = null;
    if (client) {
      try {
        status = await client.sendRequest<LspStatus>(STATUS, {});
      } catch {
        status = null;
      }
    }
    this.last = status;
    const { busy } = this.render(status);
    this.schedule(busy ? this.intervals.busyMs : this.intervals.idleMs);
    return status;
  }

  private render(status: LspStatus | null): { busy: boolean } {
    const view = statusBarText(status);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    return view;
  }

  schedule(delayMs: number): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    if (!this.disposed) {
      this.timer = setTimeout(() => void this.poll(), delayMs);
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.item.dispose();
  }
}
