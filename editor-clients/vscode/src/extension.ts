/**
 * CogniVault for VS Code: the language server (`cognivault lsp`) for Markdown notes of a vault,
 * plus palette commands backed by it and by the companion (`cognivault serve`).
 */

import * as path from "node:path";
import * as vscode from "vscode";

import { ChatPanel } from "./chatPanel";
import { CompanionManager } from "./companionManager";
import { DashboardPanel } from "./dashboardPanel";
import { createLspClient } from "./lsp";
import { type LspClient, REINDEX } from "./protocol";
import { RelatedNotesProvider } from "./related";
import { searchVault } from "./search";
import { RESTART_KEYS, type Settings, initializationOptions, lspCommand, readSettings } from "./settings";
import { StatusBar, statusReport } from "./status";
import { generate, reviewDue } from "./study";
import { MIN_NOTES, looksLikeVault, vaultRelative } from "./vault";

export const COMMANDS = {
  ask: "cognivault.askVault",
  search: "cognivault.searchVault",
  related: "cognivault.relatedNotes",
  flashcards: "cognivault.generateFlashcards",
  quiz: "cognivault.generateQuiz",
  mindmap: "cognivault.generateMindmap",
  review: "cognivault.reviewDue",
  dashboard: "cognivault.openDashboard",
  status: "cognivault.showStatus",
  reindex: "cognivault.reindex",
  restart: "cognivault.restartServer",
} as const;

/** What `activate` returns (the extension's API; the unit tests drive the extension through it). */
export interface CogniVault {
  vault: string | undefined;
  active: boolean;
  lsp(): LspClient | undefined;
  companion: CompanionManager | undefined;
  related: RelatedNotesProvider | undefined;
  statusBar: StatusBar | undefined;
  settings(): Settings;
}

function settingsNow(): Settings {
  return readSettings(vscode.workspace.getConfiguration("cognivault"));
}

/** The vault folder: the `cognivault.vault` setting (relative to the first workspace folder) or that folder. */
export function resolveVault(settings: Settings, folders: readonly vscode.WorkspaceFolder[] | undefined): string | undefined {
  const first = folders?.find((folder) => folder.uri.scheme === "file");
  if (settings.vault) {
    return path.resolve(first?.uri.fsPath ?? process.cwd(), settings.vault);
  }
  return first?.uri.fsPath;
}

async function folderLooksLikeVault(vault: string): Promise<boolean> {
  const uri = vscode.Uri.file(vault);
  let entries: string[] = [];
  try {
    entries = (await vscode.workspace.fs.readDirectory(uri)).map(([name]) => name);
  } catch {
    return false;
  }
  const notes = await vscode.workspace.findFiles(new vscode.RelativePattern(uri, "**/*.md"), "**/node_modules/**", MIN_NOTES);
  return looksLikeVault({ entries, markdownFiles: notes.length });
}

let shutdown: (() => Promise<void>) | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<CogniVault> {
  const output = vscode.window.createOutputChannel("CogniVault");
  context.subscriptions.push(output);
  const log = (line: string): void => output.appendLine(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

  const initial = settingsNow();
  const vault = resolveVault(initial, vscode.workspace.workspaceFolders);
  const active = vault !== undefined && (initial.vault !== "" || await folderLooksLikeVault(vault));
  await vscode.commands.executeCommand("setContext", "cognivault.active", active);

  let lsp: LspClient | undefined;
  // set up below once the folder is known to be a vault
  const services: { companion?: CompanionManager; related?: RelatedNotesProvider; statusBar?: StatusBar } = {};

  const api: CogniVault = {
    vault, active, lsp: () => lsp, get companion() { return services.companion; },
    get related() { return services.related; }, get statusBar() { return services.statusBar; }, settings: settingsNow,
  };

  const needVault = (): string | undefined => {
    if (!vault || !active) {
      void vscode.window.showWarningMessage(
        "CogniVault: open a vault (a folder of Markdown notes) or set cognivault.vault to use this command.");
      return undefined;
    }
    return vault;
  };
  const needLsp = (): LspClient | undefined => {
    if (!needVault()) {
      return undefined;
    }
    if (!lsp) {
      void vscode.window.showWarningMessage("CogniVault: the language server is not running (see the CogniVault output).");
    }
    return lsp;
  };
  const companionClient = () => {
    if (!services.companion) {
      return Promise.reject(new Error("open a vault first"));
    }
    return services.companion.get();
  };

  const startLsp = async (): Promise<void> => {
    if (!vault) {
      return;
    }
    const settings = settingsNow();
    const command = lspCommand(settings, vault);
    log(`starting the language server: ${command.command} ${command.args.join(" ")}`);
    const client = createLspClient({ command, vault, env: {}, initializationOptions: initializationOptions(settings, vault),
      outputChannel: output });
    lsp = client;
    try {
      await client.start();
    } catch (error) {
      lsp = undefined;
      const message = error instanceof Error ? error.message : String(error);
      log(`the language server did not start: ${message}`);
      void vscode.window.showErrorMessage(`CogniVault: the language server did not start (${message}). ` +
        "Install CogniVault or set cognivault.server.command / cognivault.server.pythonPath.");
    }
    void services.statusBar?.poll();
  };

  const stopLsp = async (): Promise<void> => {
    const client = lsp;
    lsp = undefined;
    if (client) {
      try {
        await client.stop();
      } catch (error) {
        log(`stopping the language server: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };

  const openSource = async (relative: string, lineStart: number, lineEnd: number): Promise<void> => {
    if (!vault) {
      return;
    }
    const target = vscode.Uri.joinPath(vscode.Uri.file(vault), ...relative.split("/"));
    if (!vaultRelative(vault, target.fsPath)) {
      return; // never open anything outside the vault
    }
    const start = new vscode.Position(Math.max(0, lineStart - 1), 0);
    const end = new vscode.Position(Math.max(0, lineEnd - 1), Number.MAX_SAFE_INTEGER);
    const editor = await vscode.window.showTextDocument(target, { preview: true, viewColumn: vscode.ViewColumn.One });
    editor.selection = new vscode.Selection(start, end);
    editor.revealRange(new vscode.Range(start, end), vscode.TextEditorRevealType.InCenter);
  };

  const register = (id: string, handler: (...args: unknown[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, handler));
  };

  register(COMMANDS.ask, async (question?: unknown) => {
    if (!needVault()) {
      return;
    }
    let text = typeof question === "string" ? question : undefined;
    if (text === undefined) {
      const editor = vscode.window.activeTextEditor;
      const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).trim() : "";
      text = await vscode.window.showInputBox({ title: "Ask the vault", prompt: "A question about your notes",
        value: selected.length <= 300 ? selected : "", ignoreFocusOut: true });
    }
    const panel = ChatPanel.show({ extensionUri: context.extensionUri, companion: companionClient, openSource, log });
    if (text?.trim()) {
      await panel.ask(text);
    }
  });

  register(COMMANDS.search, async () => {
    const client = needLsp();
    if (client) {
      const editor = vscode.window.activeTextEditor;
      const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).trim() : "";
      await searchVault(client, { mode: settingsNow().searchMode, initial: selected.length <= 200 ? selected : "" });
    }
  });

  register(COMMANDS.related, async () => {
    if (!needLsp() || !services.related) {
      return;
    }
    await vscode.commands.executeCommand("cognivault.related.focus");
    await services.related.refresh(vscode.window.activeTextEditor?.document.uri, true);
  });

  for (const kind of ["flashcards", "quiz", "mindmap"] as const) {
    register(COMMANDS[kind], async () => {
      const root = needVault();
      if (root) {
        await generate(kind, root, companionClient, log);
      }
    });
  }

  register(COMMANDS.review, async () => {
    if (needVault()) {
      await reviewDue(companionClient, log);
    }
  });

  register(COMMANDS.dashboard, async () => {
    if (!needVault()) {
      return;
    }
    try {
      await DashboardPanel.show(await companionClient());
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`dashboard: ${message}`);
      void vscode.window.showErrorMessage(`CogniVault: ${message}`);
    }
  });

  register(COMMANDS.status, async () => {
    if (!needLsp() || !services.statusBar) {
      return;
    }
    const status = await services.statusBar.poll();
    if (!status) {
      void vscode.window.showErrorMessage("CogniVault: the language server did not answer (see the CogniVault output).");
      return;
    }
    output.appendLine(statusReport(status));
    const summary = status.indexing.phase === "indexing"
      ? `indexing: ${status.indexing.stage} ${status.indexing.done}/${status.indexing.total}`
      : `${status.indexing.phase}${status.indexing.summary ? ` — ${status.indexing.summary}` : ""}`;
    const choice = await vscode.window.showInformationMessage(`CogniVault index: ${summary}`, "Show details", "Re-index");
    if (choice === "Show details") {
      output.show(true);
    } else if (choice === "Re-index") {
      await vscode.commands.executeCommand(COMMANDS.reindex);
    }
  });

  register(COMMANDS.reindex, async () => {
    const client = needLsp();
    if (client) {
      await client.sendRequest(REINDEX, {});
      services.statusBar?.schedule(300);
      void vscode.window.setStatusBarMessage("CogniVault: re-indexing", 3000);
    }
  });

  register(COMMANDS.restart, async () => {
    if (needVault()) {
      await stopLsp();
      await startLsp();
    }
  });

  if (!active || !vault) {
    log(vault ? `${vault} does not look like a vault (no .obsidian or .cognivault folder, few notes): idle`
      : "no workspace folder: idle");
    return api;
  }

  shutdown = stopLsp;
  const managed = new CompanionManager(vault, settingsNow, log);
  const relatedProvider = new RelatedNotesProvider(() => lsp, (uri) => vaultRelative(vault, uri.fsPath) !== null);
  const bar = new StatusBar(() => lsp);
  services.companion = managed;
  services.related = relatedProvider;
  services.statusBar = bar;
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider("cognivault.related", relatedProvider),
    vscode.window.onDidChangeActiveTextEditor((editor) => void relatedProvider.refresh(editor?.document.uri)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration("cognivault")) {
        return;
      }
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(key))) {
        log("settings changed: restarting the language server");
        await stopLsp();
        await startLsp();
      } else if (lsp) {
        await lsp.sendNotification("workspace/didChangeConfiguration",
          { settings: initializationOptions(settingsNow(), vault) });
      }
      if (managed.startedByUs) {
        log("settings changed: the companion restarts on next use");
        managed.dispose();
      }
    }),
    { dispose: () => managed.dispose() },
    bar,
  );
  await startLsp();
  void relatedProvider.refresh(vscode.window.activeTextEditor?.document.uri);
  return api;
}

export async function deactivate(): Promise<void> {
  ChatPanel.current?.panel.dispose();
  DashboardPanel.current?.panel.dispose();
  const stop = shutdown;
  shutdown = undefined;
  await stop?.();
}
