/**
 * "Search the vault": a quick pick whose items come live from the language server's
 * `cognivault/search` request (debounced; a newer query cancels the older request).
 */

import * as vscode from "vscode";

import { type LspClient, SEARCH } from "./protocol";

export interface LspRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface LspSearchResult {
  uri: string;
  path: string;
  title: string;
  range: LspRange;
  headingPath: string[];
  snippet: string;
  score: number;
}

export interface SearchItem extends vscode.QuickPickItem {
  uri: string;
  range: LspRange;
}

export function searchItems(results: LspSearchResult[]): SearchItem[] {
  return results.map((result) => ({
    label: `$(markdown) ${result.title || result.path}`,
    description: result.headingPath.length > 1 ? result.headingPath.slice(1).join(" › ") : result.path,
    detail: result.snippet.replace(/\s+/g, " ").trim(),
    alwaysShow: true, // the server ranks; the quick pick must not filter its results away
    uri: result.uri,
    range: result.range,
  }));
}

export async function openLocation(uri: vscode.Uri, range: LspRange): Promise<void> {
  const start = new vscode.Position(range.start.line, range.start.character);
  const end = new vscode.Position(range.end.line, range.end.character);
  const editor = await vscode.window.showTextDocument(uri, { preview: true });
  editor.selection = new vscode.Selection(start, start);
  editor.revealRange(new vscode.Range(start, end), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

export function searchVault(lsp: LspClient, options: { mode: string; debounceMs?: number; initial?: string })
  : Promise<SearchItem | undefined> {
  const pick = vscode.window.createQuickPick<SearchItem>();
  pick.title = "Search the vault";
  pick.placeholder = "Type to search your notes (keywords and meaning)";
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: vscode.CancellationTokenSource | undefined;
  let generation = 0;

  const run = async (query: string): Promise<void> => {
    pending?.cancel();
    const mine = ++generation;
    if (!query.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    const source = new vscode.CancellationTokenSource();
    pending = source;
    pick.busy = true;
    try {
      const answer = await lsp.sendRequest<{ results: LspSearchResult[] }>(SEARCH,
        { query, k: 20, mode: options.mode }, source.token);
      if (mine === generation) {
        pick.items = searchItems(answer.results);
      }
    } catch (error) {
      if (mine === generation && !source.token.isCancellationRequested) {
        pick.items = [];
        pick.placeholder = `Search failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    } finally {
      if (mine === generation) {
        pick.busy = false;
      }
      source.dispose();
    }
  };

  return new Promise<SearchItem | undefined>((resolve) => {
    let chosen: SearchItem | undefined;
    pick.onDidChangeValue((value) => {
      if (timer) {
        clearTimeout(timer);
      }
      timer = setTimeout(() => void run(value), options.debounceMs ?? 150);
    });
    pick.onDidAccept(() => {
      chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      pick.hide();
      if (chosen) {
        void openLocation(vscode.Uri.parse(chosen.uri), chosen.range);
      }
    });
    pick.onDidHide(() => {
      if (timer) {
        clearTimeout(timer);
      }
      pending?.cancel();
      pick.dispose();
      resolve(chosen);
    });
    if (options.initial) {
      pick.value = options.initial;
      void run(options.initial);
    }
    pick.show();
  });
}
