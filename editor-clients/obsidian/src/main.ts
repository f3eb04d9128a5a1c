/**
 * CogniVault for Obsidian (desktop): a chat view, a related-notes pane and the study dashboard,
 * plus commands to generate flashcards / quizzes / mind maps, review due cards and re-index —
 * all through the CogniVault companion (`cognivault serve`) running on this machine. When none
 * runs for the vault, the plugin starts one (`cognivault` from the vault's .venv, pipx's bin
 * folder, PATH or its setting) and stops the one it started when it unloads.
 */

import { spawn } from "node:child_process";
import { constants as fsConstants, promises as fs } from "node:fs";
import * as os from "node:os";

import { FileSystemAdapter, MarkdownView, Notice, Platform, Plugin, TFile, type WorkspaceLeaf } from "obsidian";

import {
  CompanionClient, CompanionError, type FetchLike, type GenerateKind, type GenerateRequest,
  isAlive, isLoopbackUrl, startCommand,
} from "../../shared/companion";
import { type CompanionLaunch, CompanionManager, CompanionUnavailable, type SpawnLike }
  from "../../shared/companionProcess";
import { locateCognivault } from "../../shared/locate";
import { ReviewModal } from "./review";
import { CogniVaultSettingTab, type CogniVaultSettings, mergeSettings } from "./settings";
import { ChatView, VIEW_CHAT } from "./views/chat";
import { DashboardView, VIEW_DASHBOARD } from "./views/dashboard";
import { RelatedView, VIEW_RELATED } from "./views/related";

export const COMPANION_FILE = ".cognivault/companion.json";

export class CompanionMissing extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CompanionMissing";
  }
}

const KIND_LABEL: Record<GenerateKind, string> = { flashcards: "flashcards", quiz: "a quiz", mindmap: "a mind map" };

export default class CogniVaultPlugin extends Plugin {
  override settings: CogniVaultSettings = mergeSettings(undefined);
  /** How the plugin reaches the network and starts processes; tests may swap them. */
  fetchImpl: FetchLike = (input, init) => fetch(input, init);
  spawnImpl: SpawnLike = (command, args, options) => spawn(command, args, options);
  private client: CompanionClient | null = null;
  private managed: CompanionManager | null = null;

  override async onload(): Promise<void> {
    this.settings = mergeSettings(await this.loadData());
    this.registerView(VIEW_CHAT, (leaf) => new ChatView(leaf, this));
    this.registerView(VIEW_RELATED, (leaf) => new RelatedView(leaf, this));
    this.registerView(VIEW_DASHBOARD, (leaf) => new DashboardView(leaf, this));
    this.addRibbonIcon("message-circle", "CogniVault: ask the vault", () => void this.openView(VIEW_CHAT));

    this.addCommand({ id: "open-chat", name: "Ask the vault", callback: () => void this.openView(VIEW_CHAT) });
    this.addCommand({ id: "open-related", name: "Show related notes", callback: () => void this.openView(VIEW_RELATED) });
    this.addCommand({ id: "open-dashboard", name: "Open study dashboard", callback: () => void this.openView(VIEW_DASHBOARD, "tab") });
    for (const kind of ["flashcards", "quiz", "mindmap"] as const) {
      this.addCommand({
        id: `generate-${kind}`,
        name: `Generate ${KIND_LABEL[kind]} from the current note`,
        checkCallback: (checking) => {
          const file = this.app.workspace.getActiveFile();
          if (!file || file.extension !== "md") {
            return false;
          }
          if (!checking) {
            void this.generate(kind, file);
          }
          return true;
        },
      });
    }
    this.addCommand({ id: "review-due", name: "Review due cards", callback: () => void this.reviewDue() });
    this.addCommand({ id: "reindex", name: "Re-index the vault", callback: () => void this.reindex() });
    this.addCommand({ id: "companion-status", name: "Show companion status", callback: () => void this.showStatus() });
    this.addSettingTab(new CogniVaultSettingTab(this.app, this));

    this.registerEvent(this.app.workspace.on("file-open", (file) => {
      for (const leaf of this.app.workspace.getLeavesOfType(VIEW_RELATED)) {
        if (leaf.view instanceof RelatedView) {
          void leaf.view.show(file);
        }
      }
    }));
  }

  /** Stops the companion this plugin started (one found running is left alone). */
  override onunload(): void {
    this.managed?.dispose();
    this.managed = null;
  }

  /** data.json changed on disk (a sync service): take the new settings. */
  override async onExternalSettingsChange(): Promise<void> {
    this.settings = mergeSettings(await this.loadData());
    this.client = null;
  }

  async saveSettings(): Promise<void> {
    this.client = null; // the URL or token may have changed
    await this.saveData(this.settings);
  }

  /** The vault's folder on disk (what `cognivault serve --vault` wants). */
  vaultPath(): string {
    const adapter = this.app.vault.adapter;
    return adapter instanceof FileSystemAdapter ? adapter.getBasePath() : this.app.vault.getName();
  }

  /** How to start `cognivault serve` for this vault, or why the plugin does not. */
  private async launch(): Promise<CompanionLaunch | string> {
    const howTo = `Start it in a terminal: ${startCommand(this.vaultPath())}`;
    if (!Platform.isDesktopApp || !this.settings.startCompanion) {
      return `The CogniVault companion is not running. ${howTo}`;
    }
    const isExecutable = (file: string): Promise<boolean> =>
      fs.access(file, fsConstants.X_OK).then(async () => (await fs.stat(file)).isFile(), () => false);
    const found = await locateCognivault(this.settings.cognivaultPath || null, {
      folders: [this.vaultPath()], env: process.env, home: os.homedir(), platform: process.platform, isExecutable });
    if (!found) {
      return "The CogniVault companion is not running and cognivault was not found (not in the vault's .venv, " +
        `pipx's bin folder or on PATH): set its path in the CogniVault settings, or ${howTo.charAt(0).toLowerCase()}${howTo.slice(1)}`;
    }
    return { command: found.command, args: ["serve", "--vault", this.vaultPath(), "--port", "0"], env: {} };
  }

  /** The companion: the configured one, or the one `.cognivault/companion.json` names, if it answers. */
  async companion(): Promise<CompanionClient> {
    if (this.client && await isAlive(this.client)) {
      return this.client;
    }
    this.client = null;
    const { companionUrl, companionToken } = this.settings;
    if (companionUrl) {
      if (!isLoopbackUrl(companionUrl) || !companionToken) {
        throw new CompanionMissing("The configured companion URL must be http://127.0.0.1:PORT and needs its token " +
          "(CogniVault settings), or clear the URL to find the companion automatically.");
      }
      const configured = new CompanionClient({ url: companionUrl, token: companionToken }, this.fetchImpl);
      if (await isAlive(configured)) {
        this.client = configured;
        return configured;
      }
      throw new CompanionMissing(`The CogniVault companion is not running. Start it in a terminal: ${startCommand(this.vaultPath())}`);
    }
    const adapter = this.app.vault.adapter;
    this.managed ??= new CompanionManager(this.vaultPath(), () => this.launch(),
      (line) => console.debug(`CogniVault: ${line}`), {
        spawn: (command, args, options) => this.spawnImpl(command, args, options),
        readFile: async () => (await adapter.exists(COMPANION_FILE)) ? adapter.read(COMPANION_FILE) : Promise.reject(new Error("none")),
        fetch: (input, init) => this.fetchImpl(input, init), env: process.env, startTimeoutMs: 120_000 });
    try {
      this.client = await this.managed.get();
      return this.client;
    } catch (error) {
      throw error instanceof CompanionUnavailable ? new CompanionMissing(error.message) : error;
    }
  }

  /** Shows a failure to the user (how to start the companion when that is the problem). */
  fail(what: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    new Notice(error instanceof CompanionMissing ? message : `CogniVault: ${what}: ${message}`, 10000);
  }

  async openView(type: string, where: "right" | "tab" = "right"): Promise<WorkspaceLeaf | null> {
    const { workspace } = this.app;
    let leaf: WorkspaceLeaf | null = workspace.getLeavesOfType(type)[0] ?? null;
    if (!leaf) {
      leaf = where === "tab" ? workspace.getLeaf("tab") : workspace.getRightLeaf(false);
      if (!leaf) {
        return null;
      }
      await leaf.setViewState({ type, active: true });
    }
    await workspace.revealLeaf(leaf);
    if (type === VIEW_RELATED && leaf.view instanceof RelatedView) {
      await leaf.view.show(workspace.getActiveFile());
    }
    return leaf;
  }

  /** Opens a vault note, scrolled to a 1-based line when given. */
  async openNote(path: string, line?: number): Promise<boolean> {
    const file = this.app.vault.getAbstractFileByPath(path);
    if (!(file instanceof TFile)) {
      new Notice(`CogniVault: ${path} is not in the vault`);
      return false;
    }
    const leaf = this.app.workspace.getLeaf(false);
    await leaf.openFile(file, line ? { eState: { line: Math.max(0, line - 1) } } : undefined);
    return true;
  }

  /** What to generate from: the note, plus the selection and its lines when the note's editor has one. */
  generateRequest(file: TFile): GenerateRequest {
    const request: GenerateRequest = { note: file.path };
    const view = this.app.workspace.getActiveViewOfType(MarkdownView);
    if (view && view.file?.path === file.path) {
      const selection = view.editor.getSelection();
      if (selection.trim()) {
        const from = view.editor.getCursor("from").line + 1;
        const to = view.editor.getCursor("to").line + 1;
        request.selection = selection.slice(0, 20000);
        request.lines = [Math.min(from, to), Math.max(from, to)];
      }
    }
    if (this.settings.generationCount > 0) {
      request.count = this.settings.generationCount;
    }
    return request;
  }

  /** Generates, then opens the new note; returns its vault path (undefined on failure). */
  async generate(kind: GenerateKind, file: TFile): Promise<string | undefined> {
    const notice = new Notice(`CogniVault: generating ${KIND_LABEL[kind]} from ${file.basename}…`, 0);
    try {
      const client = await this.companion();
      const result = await client.generateNote(kind, this.generateRequest(file),
        (message) => notice.setMessage(`CogniVault: ${message}…`));
      notice.hide();
      new Notice(`CogniVault: wrote ${result.path}${result.warnings?.length ? ` (${result.warnings[0]})` : ""}`);
      if (this.settings.openGeneratedNote) {
        await this.openWhenIndexed(result.path);
      }
      return result.path;
    } catch (error) {
      notice.hide();
      this.fail(`generating ${KIND_LABEL[kind]} failed`, error);
      return undefined;
    }
  }

  /** The companion wrote the note on disk; Obsidian notices new files shortly after. */
  private async openWhenIndexed(path: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(this.app.vault.getAbstractFileByPath(path) instanceof TFile) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await this.openNote(path);
  }

  async reviewDue(): Promise<void> {
    try {
      const client = await this.companion();
      const due = await client.reviewDue(100);
      if (due.length === 0) {
        new Notice("CogniVault: no cards are due. Generate flashcards from a note to start.");
        return;
      }
      new ReviewModal(this.app, client, due).open();
    } catch (error) {
      this.fail("loading due cards failed", error);
    }
  }

  async reindex(): Promise<void> {
    try {
      await (await this.companion()).reindex();
      new Notice("CogniVault: re-indexing the vault");
    } catch (error) {
      this.fail("re-indexing failed", error);
    }
  }

  async showStatus(): Promise<void> {
    try {
      const status = await (await this.companion()).status() as { files?: Record<string, number> };
      const files = Object.entries(status.files ?? {}).map(([k, v]) => `${v} ${k}`).join(", ");
      new Notice(`CogniVault companion is running. Files: ${files || "unknown"}`);
    } catch (error) {
      this.fail("status", error);
    }
  }

  describeError(error: unknown): string {
    if (error instanceof CompanionError && error.code === "cancelled") {
      return "Cancelled.";
    }
    return error instanceof Error ? error.message : String(error);
  }
}
