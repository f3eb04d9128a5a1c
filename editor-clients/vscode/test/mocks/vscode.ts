/**
 * A fake of the parts of the `vscode` API the extension uses (aliased as "vscode" in
 * vitest.config.mts). `mock` holds what the extension did (registered commands, webviews, output
 * lines, messages) and what the fake user will answer (input box, quick picks, configuration).
 */

import * as nodePath from "node:path";
import { vi } from "vitest";

type Listener<T> = (value: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (listener: Listener<T>): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => { this.listeners = this.listeners.filter((l) => l !== listener); } };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      listener(value);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(readonly scheme: string, readonly path: string) {}
  static file(fsPath: string): Uri {
    return new Uri("file", nodePath.resolve(fsPath));
  }
  static parse(value: string): Uri {
    const match = /^([a-z][a-z0-9+.-]*):(?:\/\/)?(.*)$/i.exec(value);
    if (!match) {
      return new Uri("file", value);
    }
    return new Uri(match[1], decodeURIComponent(match[2]).replace(/^\/*/, "/"));
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, nodePath.posix.join(base.path, ...parts));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path.split("/").map(encodeURIComponent).join("/")}`;
  }
}

export class Position {
  constructor(readonly line: number, readonly character: number) {}
}

export class Range {
  constructor(readonly start: Position, readonly end: Position) {}
  get isEmpty(): boolean {
    return this.start.line === this.end.line && this.start.character === this.end.character;
  }
}

export class Selection extends Range {
  constructor(readonly anchor: Position, readonly active: Position) {
    super(anchor, active);
  }
}

export class RelativePattern {
  constructor(readonly base: Uri, readonly pattern: string) {}
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class TreeItem {
  description?: string;
  tooltip?: string;
  iconPath?: ThemeIcon;
  resourceUri?: Uri;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(readonly label: string, readonly collapsibleState: number) {}
}

export class CancellationTokenSource {
  private emitter = new EventEmitter<void>();
  token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export const TreeItemCollapsibleState = { None: 0, Collapsed: 1, Expanded: 2 };
export const ViewColumn = { Active: -1, Beside: -2, One: 1, Two: 2 };
export const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 };
export const StatusBarAlignment = { Left: 1, Right: 2 };
export const TextEditorRevealType = { Default: 0, InCenter: 1, InCenterIfOutsideViewport: 2, AtTop: 3 };
export const UIKind = { Desktop: 1, Web: 2 };
export const ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 };

export interface FakeWebview {
  html: string;
  cspSource: string;
  posted: unknown[];
  postMessage(message: unknown): Promise<boolean>;
  asWebviewUri(uri: Uri): Uri;
  onDidReceiveMessage: (listener: Listener<unknown>) => { dispose(): void };
  receive(message: unknown): void;
}

export interface FakePanel {
  viewType: string;
  title: string;
  options: Record<string, unknown>;
  webview: FakeWebview;
  reveal(): void;
  dispose(): void;
  onDidDispose: (listener: Listener<void>) => { dispose(): void };
}

export interface FakeQuickPick {
  title?: string;
  placeholder?: string;
  value: string;
  items: { label: string }[];
  busy: boolean;
  selectedItems: unknown[];
  activeItems: unknown[];
  matchOnDescription: boolean;
  matchOnDetail: boolean;
  type(value: string): void;
  accept(index: number): void;
  show(): void;
  hide(): void;
  dispose(): void;
  onDidChangeValue: (listener: Listener<string>) => { dispose(): void };
  onDidAccept: (listener: Listener<void>) => { dispose(): void };
  onDidHide: (listener: Listener<void>) => { dispose(): void };
}

function fakeQuickPick(): FakeQuickPick {
  const changed = new EventEmitter<string>();
  const accepted = new EventEmitter<void>();
  const hidden = new EventEmitter<void>();
  const pick: FakeQuickPick = {
    value: "", items: [], busy: false, selectedItems: [], activeItems: [], matchOnDescription: false, matchOnDetail: false,
    type(value: string) {
      pick.value = value;
      changed.fire(value);
    },
    accept(index: number) {
      pick.selectedItems = [pick.items[index]];
      accepted.fire();
    },
    show() { mock.quickPicks.push(pick); },
    hide() { hidden.fire(); },
    dispose() {},
    onDidChangeValue: changed.event,
    onDidAccept: accepted.event,
    onDidHide: hidden.event,
  };
  return pick;
}

function fakePanel(viewType: string, title: string, options: Record<string, unknown>): FakePanel {
  const received = new EventEmitter<unknown>();
  const disposed = new EventEmitter<void>();
  const webview: FakeWebview = {
    html: "",
    cspSource: "https://file+.vscode-resource.vscode-cdn.net",
    posted: [],
    postMessage(message: unknown) {
      webview.posted.push(message);
      return Promise.resolve(true);
    },
    asWebviewUri: (uri: Uri) => Uri.parse(`https://file+.vscode-resource.vscode-cdn.net${uri.path}`),
    onDidReceiveMessage: received.event,
    receive: (message: unknown) => received.fire(message),
  };
  return { viewType, title, options, webview, reveal: vi.fn(), dispose: () => disposed.fire(), onDidDispose: disposed.event };
}

export interface FakeDocument {
  uri: Uri;
  text: string;
  getText(range?: Range): string;
}

export function fakeDocument(uri: Uri, text: string): FakeDocument {
  return {
    uri, text,
    getText(range?: Range) {
      if (!range) {
        return text;
      }
      const lines = text.split("\n");
      const offset = (p: Position): number =>
        lines.slice(0, p.line).reduce((n, line) => n + line.length + 1, 0) + p.character;
      return text.slice(offset(range.start), offset(range.end));
    },
  };
}

export interface FakeEditor {
  document: FakeDocument;
  selection: Selection;
  revealRange: ReturnType<typeof vi.fn>;
}

export const mock = {
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  executed: [] as { command: string; args: unknown[] }[],
  context: new Map<string, unknown>(),
  config: {} as Record<string, unknown>,
  configListeners: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
  activeEditorListeners: new EventEmitter<FakeEditor | undefined>(),
  output: [] as string[],
  messages: [] as { level: string; text: string; items: string[] }[],
  messageAnswers: [] as (string | undefined)[],
  inputAnswers: [] as (string | undefined)[],
  quickPickAnswers: [] as ((items: { label: string }[], options: Record<string, unknown>) => unknown)[],
  quickPickCalls: [] as { items: { label: string }[]; options: Record<string, unknown> }[],
  quickPicks: [] as FakeQuickPick[],
  panels: [] as FakePanel[],
  treeProviders: new Map<string, unknown>(),
  statusItems: [] as { text: string; tooltip: string; command?: string; show(): void; dispose(): void }[],
  progress: [] as string[],
  opened: [] as { uri: Uri; selection?: Selection }[],
  directory: [] as [string, number][],
  markdownFiles: 0,
  workspaceFolders: [] as { uri: Uri; name: string; index: number }[],
  activeEditor: undefined as FakeEditor | undefined,
  openDialogAnswers: [] as (Uri[] | undefined)[],
  openDialogCalls: [] as Record<string, unknown>[],
  uiKind: UIKind.Desktop,
  /** What `env.asExternalUri` maps a URI to (the identity, as on the desktop). */
  externalUri: (uri: Uri): Uri => uri,
  reset(): void {
    this.commands.clear();
    this.executed = [];
    this.context.clear();
    this.config = {};
    this.configListeners = new EventEmitter();
    this.activeEditorListeners = new EventEmitter();
    this.output = [];
    this.messages = [];
    this.messageAnswers = [];
    this.inputAnswers = [];
    this.quickPickAnswers = [];
    this.quickPickCalls = [];
    this.quickPicks = [];
    this.panels = [];
    this.treeProviders.clear();
    this.statusItems = [];
    this.progress = [];
    this.opened = [];
    this.directory = [];
    this.markdownFiles = 0;
    this.workspaceFolders = [];
    this.activeEditor = undefined;
    this.openDialogAnswers = [];
    this.openDialogCalls = [];
    this.uiKind = UIKind.Desktop;
    this.externalUri = (uri: Uri) => uri;
  },
};

function message(level: string) {
  return (text: string, ...items: unknown[]): Promise<string | undefined> => {
    mock.messages.push({ level, text, items: items.filter((i): i is string => typeof i === "string") });
    return Promise.resolve(mock.messageAnswers.shift());
  };
}

export const commands = {
  registerCommand(id: string, handler: (...args: unknown[]) => unknown) {
    if (mock.commands.has(id)) {
      throw new Error(`command '${id}' already exists`);
    }
    mock.commands.set(id, handler);
    return { dispose: () => mock.commands.delete(id) };
  },
  async executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    mock.executed.push({ command, args });
    if (command === "setContext") {
      mock.context.set(String(args[0]), args[1]);
      return undefined;
    }
    const handler = mock.commands.get(command);
    return handler ? await handler(...args) : undefined;
  },
};

export const window = {
  get activeTextEditor() {
    return mock.activeEditor;
  },
  createOutputChannel(name: string) {
    return {
      name,
      appendLine: (line: string) => { mock.output.push(line); },
      append: (text: string) => { mock.output.push(text); },
      show: vi.fn(),
      dispose: vi.fn(),
    };
  },
  createStatusBarItem(id?: string) {
    const item = { id, text: "", tooltip: "", command: undefined as string | undefined, name: "", show: vi.fn(), dispose: vi.fn() };
    mock.statusItems.push(item);
    return item;
  },
  createWebviewPanel(viewType: string, title: string, _column: unknown, options: Record<string, unknown>) {
    const panel = fakePanel(viewType, title, options);
    mock.panels.push(panel);
    return panel;
  },
  createQuickPick: () => fakeQuickPick(),
  showQuickPick(items: { label: string }[], options: Record<string, unknown>) {
    mock.quickPickCalls.push({ items, options });
    const answer = mock.quickPickAnswers.shift();
    return Promise.resolve(answer ? answer(items, options) : undefined);
  },
  showInputBox: () => Promise.resolve(mock.inputAnswers.shift()),
  showOpenDialog(options: Record<string, unknown>) {
    mock.openDialogCalls.push(options);
    return Promise.resolve(mock.openDialogAnswers.shift());
  },
  showInformationMessage: message("info"),
  showWarningMessage: message("warning"),
  showErrorMessage: message("error"),
  setStatusBarMessage: vi.fn(),
  async showTextDocument(target: Uri | FakeDocument) {
    const uri = target instanceof Uri ? target : target.uri;
    const editor = { document: fakeDocument(uri, ""), selection: new Selection(new Position(0, 0), new Position(0, 0)), revealRange: vi.fn() };
    const entry: { uri: Uri; selection?: Selection } = { uri };
    mock.opened.push(entry);
    return new Proxy(editor, {
      set(obj, key, value) {
        if (key === "selection") {
          entry.selection = value as Selection;
        }
        return Reflect.set(obj, key, value);
      },
    });
  },
  async withProgress<T>(_options: unknown, task: (progress: { report(v: { message?: string }): void },
    token: CancellationTokenSource["token"]) => Promise<T>): Promise<T> {
    const source = new CancellationTokenSource();
    return task({ report: (value) => { if (value.message) mock.progress.push(value.message); } }, source.token);
  },
  registerTreeDataProvider(id: string, provider: unknown) {
    mock.treeProviders.set(id, provider);
    return { dispose: vi.fn() };
  },
  onDidChangeActiveTextEditor: (listener: Listener<FakeEditor | undefined>) => mock.activeEditorListeners.event(listener),
};

export const workspace = {
  get workspaceFolders() {
    return mock.workspaceFolders;
  },
  getConfiguration(section?: string) {
    return {
      get<T>(key: string, fallback: T): T {
        const full = section ? `${section}.${key}` : key;
        return (full in mock.config ? mock.config[full] : fallback) as T;
      },
      update(key: string, value: unknown): Promise<void> {
        const full = section ? `${section}.${key}` : key;
        mock.config[full] = value;
        mock.configListeners.fire({ affectsConfiguration: (s: string) => full === s || full.startsWith(`${s}.`) });
        return Promise.resolve();
      },
    };
  },
  fs: {
    readDirectory: () => Promise.resolve(mock.directory),
  },
  findFiles: (_pattern: unknown, _exclude: unknown, max: number) =>
    Promise.resolve(Array.from({ length: Math.min(max, mock.markdownFiles) }, (_, i) => Uri.file(`/note${i}.md`))),
  openTextDocument: (uri: Uri) => Promise.resolve(fakeDocument(uri, "")),
  onDidChangeConfiguration: (listener: Listener<{ affectsConfiguration(section: string): boolean }>) =>
    mock.configListeners.event(listener),
};

export const env = {
  get uiKind() {
    return mock.uiKind;
  },
  asExternalUri: (uri: Uri) => Promise.resolve(mock.externalUri(uri)),
};
