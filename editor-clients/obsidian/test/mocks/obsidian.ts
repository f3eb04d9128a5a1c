/**
 * A fake of the parts of the `obsidian` API the plugin uses (aliased as "obsidian" in
 * vitest.config.mts). The vault is a real folder on disk (FileSystemAdapter over node:fs), so the
 * integration test sees the notes the companion writes.
 */

import { existsSync, readFileSync, statSync } from "node:fs";
import * as nodePath from "node:path";

type Callback = (...args: unknown[]) => unknown;

export const notices: Notice[] = [];

export class Notice {
  message: string;
  hidden = false;
  constructor(message: string, readonly timeout?: number) {
    this.message = message;
    notices.push(this);
  }
  setMessage(message: string): this {
    this.message = message;
    return this;
  }
  hide(): void {
    this.hidden = true;
  }
}

export class TAbstractFile {
  constructor(readonly path: string) {}
  get name(): string {
    return nodePath.posix.basename(this.path);
  }
}

export class TFile extends TAbstractFile {
  get extension(): string {
    return nodePath.posix.extname(this.path).slice(1);
  }
  get basename(): string {
    return nodePath.posix.basename(this.path, nodePath.posix.extname(this.path));
  }
}

export class TFolder extends TAbstractFile {}

/** The desktop app (the plugin is desktop only); tests may flip it. */
export const Platform = { isDesktopApp: true, isMobile: false };

export class FileSystemAdapter {
  constructor(private readonly base: string) {}
  getBasePath(): string {
    return this.base;
  }
  exists(path: string): Promise<boolean> {
    return Promise.resolve(existsSync(nodePath.join(this.base, path)));
  }
  read(path: string): Promise<string> {
    return Promise.resolve(readFileSync(nodePath.join(this.base, path), "utf-8"));
  }
}

export class Events {
  private handlers = new Map<string, Callback[]>();
  on(name: string, callback: Callback): { name: string; callback: Callback } {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), callback]);
    return { name, callback };
  }
  trigger(name: string, ...args: unknown[]): void {
    for (const handler of this.handlers.get(name) ?? []) {
      handler(...args);
    }
  }
}

export class Vault {
  readonly adapter: FileSystemAdapter;
  constructor(readonly base: string) {
    this.adapter = new FileSystemAdapter(base);
  }
  getName(): string {
    return nodePath.basename(this.base);
  }
  getAbstractFileByPath(path: string): TAbstractFile | null {
    const full = nodePath.join(this.base, path);
    if (!existsSync(full)) {
      return null;
    }
    return statSync(full).isDirectory() ? new TFolder(path) : new TFile(path);
  }
}

export class Component {
  registered: unknown[] = [];
  registerEvent(ref: unknown): void {
    this.registered.push(ref);
  }
}

export class View extends Component {
  readonly app: App;
  readonly containerEl: HTMLElement;
  constructor(readonly leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.app;
    this.containerEl = document.createElement("div");
  }
  getIcon(): string {
    return "";
  }
}

export class ItemView extends View {
  readonly contentEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.contentEl = document.createElement("div");
    this.containerEl.append(this.contentEl);
  }
  async onOpen(): Promise<void> {}
  async onClose(): Promise<void> {}
}

/**
 * Obsidian's Markdown renderer, as far as the chat's answers need it: blank-line paragraphs,
 * `**bold**`, and `[[target#heading|alias]]` as `a.internal-link` with `data-href` (what Obsidian
 * renders); everything else as text. Resolves later, like the real one. Records what it rendered.
 */
export class MarkdownRenderer {
  static rendered: { markdown: string; sourcePath: string; component: Component }[] = [];
  static async render(_app: App, markdown: string, el: HTMLElement, sourcePath: string, component: Component):
    Promise<void> {
    MarkdownRenderer.rendered.push({ markdown, sourcePath, component });
    await Promise.resolve();
    for (const block of markdown.split(/\n\s*\n/).filter((text) => text.trim())) {
      const paragraph = el.ownerDocument.createElement("p");
      for (const piece of block.split(/(\*\*[^*]+\*\*|\[\[[^\]]+\]\])/)) {
        if (piece.startsWith("**") && piece.length > 4) {
          paragraph.append(Object.assign(el.ownerDocument.createElement("strong"), { textContent: piece.slice(2, -2) }));
        } else if (piece.startsWith("[[")) {
          const [href, alias] = piece.slice(2, -2).split("|");
          const link = Object.assign(el.ownerDocument.createElement("a"), { className: "internal-link", textContent: alias ?? href });
          link.dataset.href = href;
          link.href = href;
          paragraph.append(link);
        } else if (piece) {
          paragraph.append(piece);
        }
      }
      el.append(paragraph);
    }
  }
}

export class WorkspaceLeaf {
  view: View | null = null;
  opened: { file: TFile; state?: unknown }[] = [];
  constructor(readonly app: App) {}
  async setViewState(state: { type: string }): Promise<void> {
    const creator = this.app.viewCreators.get(state.type);
    if (!creator) {
      throw new Error(`no view registered for ${state.type}`);
    }
    this.view = creator(this) as View;
    this.app.workspace.leaves.push(this);
    await (this.view as ItemView).onOpen();
  }
  async openFile(file: TFile, state?: unknown): Promise<void> {
    this.opened.push({ file, state });
    this.app.workspace.activeFile = file;
    this.app.workspace.trigger("file-open", file);
    await Promise.resolve();
  }
}

export class MarkdownView {
  constructor(readonly file: TFile, readonly editor: { getSelection(): string; getCursor(which: string): { line: number; ch: number } }) {}
}

export class Workspace extends Events {
  leaves: WorkspaceLeaf[] = [];
  activeFile: TFile | null = null;
  activeMarkdownView: MarkdownView | null = null;
  mainLeaf: WorkspaceLeaf;
  revealed: WorkspaceLeaf[] = [];
  constructor(private readonly app: App) {
    super();
    this.mainLeaf = new WorkspaceLeaf(app);
  }
  getActiveFile(): TFile | null {
    return this.activeFile;
  }
  getActiveViewOfType<T>(type: new (...args: never[]) => T): T | null {
    return this.activeMarkdownView instanceof type ? (this.activeMarkdownView) : null;
  }
  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leaves.filter((leaf) => (leaf.view as { getViewType?(): string } | null)?.getViewType?.() === type);
  }
  getRightLeaf(): WorkspaceLeaf {
    return new WorkspaceLeaf(this.app);
  }
  getLeaf(newLeaf?: unknown): WorkspaceLeaf {
    return newLeaf === "tab" ? new WorkspaceLeaf(this.app) : this.mainLeaf;
  }
  revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
    this.revealed.push(leaf);
    return Promise.resolve();
  }
  linksOpened: { linktext: string; sourcePath: string; newLeaf: boolean }[] = [];
  openLinkText(linktext: string, sourcePath: string, newLeaf = false): Promise<void> {
    this.linksOpened.push({ linktext, sourcePath, newLeaf });
    return Promise.resolve();
  }
}

export class App {
  readonly vault: Vault;
  readonly workspace: Workspace;
  readonly viewCreators = new Map<string, (leaf: WorkspaceLeaf) => unknown>();
  constructor(base: string) {
    this.vault = new Vault(base);
    this.workspace = new Workspace(this);
  }
}

export interface Command {
  id: string;
  name: string;
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
}

export class Plugin extends Component {
  commands = new Map<string, Command>();
  ribbon: { icon: string; title: string }[] = [];
  settingTabs: PluginSettingTab[] = [];
  data: unknown = null;
  constructor(readonly app: App, readonly manifest: { id: string; version: string } = { id: "cognivault", version: "0.1.0" }) {
    super();
  }
  loadData(): Promise<unknown> {
    return Promise.resolve(this.data);
  }
  saveData(data: unknown): Promise<void> {
    this.data = JSON.parse(JSON.stringify(data)) as unknown;
    return Promise.resolve();
  }
  addCommand(command: Command): Command {
    this.commands.set(command.id, command);
    return command;
  }
  addRibbonIcon(icon: string, title: string): HTMLElement {
    this.ribbon.push({ icon, title });
    return document.createElement("div");
  }
  registerView(type: string, creator: (leaf: WorkspaceLeaf) => unknown): void {
    this.app.viewCreators.set(type, creator);
  }
  addSettingTab(tab: PluginSettingTab): void {
    this.settingTabs.push(tab);
  }
  /** Test helper: run a command as the palette would. */
  run(id: string): boolean {
    const command = this.commands.get(id);
    if (!command) {
      throw new Error(`no command ${id}`);
    }
    if (command.checkCallback) {
      if (!command.checkCallback(true)) {
        return false;
      }
      command.checkCallback(false);
      return true;
    }
    command.callback?.();
    return true;
  }
}

export class Modal {
  readonly contentEl: HTMLElement = document.createElement("div");
  static opened: Modal[] = [];
  constructor(readonly app: App) {}
  open(): void {
    Modal.opened.push(this);
    this.onOpen();
  }
  close(): void {
    this.onClose();
  }
  onOpen(): void {}
  onClose(): void {}
}

export class PluginSettingTab {
  readonly containerEl: HTMLElement = document.createElement("div");
  constructor(readonly app: App, readonly plugin: Plugin) {}
}

class TextComponent {
  readonly inputEl: HTMLInputElement = document.createElement("input");
  private handler: ((value: string) => unknown) | null = null;
  setPlaceholder(value: string): this {
    this.inputEl.placeholder = value;
    return this;
  }
  setValue(value: string): this {
    this.inputEl.value = value;
    return this;
  }
  onChange(handler: (value: string) => unknown): this {
    this.handler = handler;
    this.inputEl.addEventListener("input", () => void this.handler?.(this.inputEl.value));
    return this;
  }
}

class ToggleComponent {
  readonly toggleEl: HTMLInputElement = document.createElement("input");
  constructor() {
    this.toggleEl.type = "checkbox";
  }
  setValue(value: boolean): this {
    this.toggleEl.checked = value;
    return this;
  }
  onChange(handler: (value: boolean) => unknown): this {
    this.toggleEl.addEventListener("change", () => void handler(this.toggleEl.checked));
    return this;
  }
}

export class Setting {
  readonly settingEl: HTMLElement;
  constructor(container: HTMLElement) {
    this.settingEl = document.createElement("div");
    this.settingEl.className = "setting-item";
    container.append(this.settingEl);
  }
  setName(name: string): this {
    this.settingEl.dataset.name = name;
    return this;
  }
  setDesc(desc: string): this {
    this.settingEl.dataset.desc = desc;
    return this;
  }
  addText(build: (text: TextComponent) => unknown): this {
    const text = new TextComponent();
    this.settingEl.append(text.inputEl);
    build(text);
    return this;
  }
  addToggle(build: (toggle: ToggleComponent) => unknown): this {
    const toggle = new ToggleComponent();
    this.settingEl.append(toggle.toggleEl);
    build(toggle);
    return this;
  }
}
