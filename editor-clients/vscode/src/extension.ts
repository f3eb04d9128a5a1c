/**
 * CogniVault for VS Code: the language server (`cognivault lsp`) for Markdown notes of a vault,
 * plus palette commands backed by it and by the companion (`cognivault serve`).
 */

import { constants as fsConstants, promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";

import { ChatPanel } from "./chatPanel";
import { CompanionManager } from "./companionManager";
import { DashboardPanel } from "./dashboardPanel";
import { type Found, locateCognivault } from "../../shared/locate";
import { createLspClient } from "./lsp";
import { offerMcpServer } from "./mcp";
import { type LspClient, REINDEX } from "./protocol";
import { RelatedNotesProvider } from "./related";
import { searchVault } from "./search";
import { DEFAULT_COMMAND, RESTART_KEYS, type Settings, cognivaultCommand, initializationOptions, lspCommand, readSettings }
  from "./settings";
import { StatusBar, statusReport } from "./status";
import { generate, reviewDue } from "./study";
import { openNoteLink } from "./noteLink";
import { MIN_NOTES, looksLikeVault, vaultRelative } from "./vault";
import { defaultVoiceDeps, voiceQuestion } from "./voice";

export const COMMANDS = {
  ask: "cognivault.askVault",
  askByVoice: "cognivault.askByVoice",
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
  chooseExecutable: "cognivault.chooseExecutable",
} as const;

export const CHOOSE_EXECUTABLE = "Choose the cognivault executable";

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

function isExecutable(file: string): Promise<boolean> {
  return fs.access(file, fsConstants.X_OK).then(async () => (await fs.stat(file)).isFile(), () => false);
}

/** Where the language server and the companion are run from (see locate.ts). */
function locate(settings: Settings): Promise<Found | null> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  const configured = settings.pythonPath || settings.command !== DEFAULT_COMMAND ? settings.command : null;
  return locateCognivault(configured, { folders, env: process.env, home: os.homedir(), platform: process.platform, isExecutable });
}

/**
 * Origins the companion must accept besides `vscode-webview://`: in VS Code hosted in a browser
 * page (code-server), webviews call it from that page's origin, which `asExternalUri` reveals
 * (it maps a loopback address to the page's own origin).
 */
export async function webviewHostOrigins(): Promise<string[]> {
  if (vscode.env.uiKind !== vscode.UIKind.Web) {
    return [];
  }
  const probe = "http://127.0.0.1:1";
  const external = await vscode.env.asExternalUri(vscode.Uri.parse(probe));
  try {
    const origin = new URL(external.toString(true)).origin;
    return origin === probe || origin === "null" ? [] : [origin];
  } catch {
    return [];
  }
}

let shutdown: (() => Promise<void>) | undefined;

/** How "Ask by voice" finds and runs a recorder (the unit tests put fake recorders here). */
export const voiceDeps = { ...defaultVoiceDeps };

export async function activate(context: vscode.ExtensionContext): Promise<CogniVault> {
  const output = vscode.window.createOutputChannel("CogniVault");
  context.subscriptions.push(output);
  const log = (line: string): void => output.appendLine(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

  const initial = settingsNow();
  const vault = resolveVault(initial, vscode.workspace.workspaceFolders);
  const active = vault !== undefined && (initial.vault !== "" || await folderLooksLikeVault(vault));
  await vscode.commands.executeCommand("setContext", "cognivault.active", active);

  let lsp: LspClient | undefined;
  let located: Found | null = null;
  // the settings with the executable found (a workspace .venv, pipx's bin folder, PATH)
  const effectiveSettings = (): Settings => {
    const settings = settingsNow();
    return located && located.from !== "setting" ? { ...settings, command: located.command } : settings;
  };
  const offerChooser = async (problem: string): Promise<void> => {
    const choice = await vscode.window.showErrorMessage(`CogniVault: ${problem}`, CHOOSE_EXECUTABLE);
    if (choice === CHOOSE_EXECUTABLE) {
      await vscode.commands.executeCommand(COMMANDS.chooseExecutable);
    }
  };
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
    located = await locate(settingsNow());
    if (!located) {
      log("no cognivault executable: none in the workspace's .venv, pipx's bin folder or on PATH");
      void offerChooser("cognivault was not found (not in the workspace's .venv, pipx's bin folder or on PATH). " +
        "Install CogniVault or choose its executable.");
      return;
    }
    const settings = effectiveSettings();
    const command = lspCommand(settings, vault);
    log(`starting the language server (${located.from}): ${command.command} ${command.args.join(" ")}`);
    const client = createLspClient({ command, vault, env: {}, initializationOptions: initializationOptions(settings, vault),
      outputChannel: output });
    lsp = client;
    try {
      await client.start();
    } catch (error) {
      lsp = undefined;
      const message = error instanceof Error ? error.message : String(error);
      log(`the language server did not start: ${message}`);
      void offerChooser(`the language server did not start (${message}). ` +
        "Install CogniVault, or choose its executable (the cognivault.server.command setting).");
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
    const openNote = async (target: string, subpath: string): Promise<void> => {
      if (vault && !await openNoteLink(vault, target, subpath, openSource)) {
        void vscode.window.showWarningMessage(`CogniVault: no note "${target}" in the vault.`);
      }
    };
    const panel = ChatPanel.show({ extensionUri: context.extensionUri, companion: companionClient, openSource, openNote,
      log });
    if (text?.trim()) {
      await panel.ask(text);
    }
  });

  register(COMMANDS.askByVoice, async () => {
    if (!needVault()) {
      return;
    }
    try {
      const question = await voiceQuestion(companionClient, voiceDeps);
      if (question === "") {
        void vscode.window.showWarningMessage("CogniVault: no words were heard in the recording.");
      } else if (question) {
        await vscode.commands.executeCommand(COMMANDS.ask, question);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`ask by voice: ${message}`);
      void vscode.window.showErrorMessage(`CogniVault: ask by voice: ${message}`);
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

  register(COMMANDS.chooseExecutable, async () => {
    const picked = await vscode.window.showOpenDialog({ title: CHOOSE_EXECUTABLE, openLabel: "Use this executable",
      canSelectFiles: true, canSelectFolders: false, canSelectMany: false });
    const file = picked?.[0];
    if (file) {
      // a changed server.command restarts the language server (onDidChangeConfiguration below)
      await vscode.workspace.getConfiguration("cognivault").update("server.command", file.fsPath,
        vscode.ConfigurationTarget.Global);
      log(`cognivault.server.command set to ${file.fsPath}`);
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
  const managed = new CompanionManager(vault, effectiveSettings, log, { allowOrigins: webviewHostOrigins });
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
  const agents = offerMcpServer(vscode,
    () => located ? cognivaultCommand(effectiveSettings(), vault, ["mcp", "--vault", vault]) : undefined);
  if (agents) {
    context.subscriptions.push(agents);
  }
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
