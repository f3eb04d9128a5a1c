/**
 * The "Related notes" tree view (Explorer): notes related to the active Markdown note, from the
 * language server's `cognivault/related` request, refreshed when the active editor changes.
 */

import * as vscode from "vscode";

import { type LspClient, RELATED } from "./protocol";

export interface RelatedEntry {
  uri: string;
  path: string;
  title: string;
  score: number;
  reasons: string[];
  why: string[];
}

/** `cognivault/related`'s answer: while an index pass runs it says how far it got. */
export interface RelatedAnswer {
  related: RelatedEntry[];
  noteIndexed?: boolean;
  indexing?: { done: number; total: number };
}

type Node = { kind: "note"; entry: RelatedEntry } | { kind: "message"; text: string };

/** A line above the list while the vault is still being indexed (the list may grow), else undefined. */
export function indexingMessage(answer: RelatedAnswer): string | undefined {
  if (answer.indexing) {
    const { done, total } = answer.indexing;
    return `Indexing the vault (${done} of ${total}): related notes may be incomplete`;
  }
  if (answer.noteIndexed === false) {
    return "This note is not indexed yet: related notes from its words and links";
  }
  return undefined;
}

export class RelatedNotesProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private nodes: Node[] = [{ kind: "message", text: "Open a note to see related notes" }];
  private current: string | undefined;
  private request = 0;

  constructor(private readonly lsp: () => LspClient | undefined, private readonly inVault: (uri: vscode.Uri) => boolean) {}

  /** Loads the related notes of `uri` (the active note); returns them for callers that want them. */
  async refresh(uri: vscode.Uri | undefined, force = false): Promise<RelatedEntry[]> {
    if (!uri || uri.scheme !== "file" || !uri.fsPath.endsWith(".md") || !this.inVault(uri)) {
      return [];
    }
    if (!force && uri.toString() === this.current) {
      return this.entries();
    }
    this.current = uri.toString();
    const mine = ++this.request;
    const client = this.lsp();
    if (!client) {
      this.set([{ kind: "message", text: "The CogniVault language server is not running" }]);
      return [];
    }
    try {
      const answer = await client.sendRequest<RelatedAnswer>(RELATED, { uri: uri.toString(), k: 15 });
      if (mine === this.request) {
        const notes: Node[] = answer.related.map((entry) => ({ kind: "note", entry }));
        const progress = indexingMessage(answer);
        this.set(progress ? [{ kind: "message", text: progress }, ...notes]
          : notes.length ? notes : [{ kind: "message", text: "No related notes found" }]);
      }
      return answer.related;
    } catch (error) {
      if (mine === this.request) {
        this.set([{ kind: "message", text: `Related notes failed: ${error instanceof Error ? error.message : String(error)}` }]);
      }
      return [];
    }
  }

  entries(): RelatedEntry[] {
    return this.nodes.flatMap((node) => (node.kind === "note" ? [node.entry] : []));
  }

  private set(nodes: Node[]): void {
    this.nodes = nodes;
    this.changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "message") {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon("info");
      return item;
    }
    const { entry } = node;
    const item = new vscode.TreeItem(entry.title || entry.path, vscode.TreeItemCollapsibleState.None);
    item.description = entry.why.join(", ");
    item.tooltip = `${entry.path}\n${entry.reasons.join("\n")}\nscore ${entry.score.toFixed(2)}`;
    item.resourceUri = vscode.Uri.parse(entry.uri);
    item.iconPath = new vscode.ThemeIcon("note");
    item.command = { command: "vscode.open", title: "Open note", arguments: [vscode.Uri.parse(entry.uri)] };
    return item;
  }

  getChildren(node?: Node): Node[] {
    return node ? [] : this.nodes;
  }
}
