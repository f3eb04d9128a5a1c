/** The language server's custom requests and the small client interface the extension uses. */

import type * as vscode from "vscode";

export const SEARCH = "cognivault/search";
export const RELATED = "cognivault/related";
export const STATUS = "cognivault/status";
export const REINDEX = "cognivault/reindex";

export interface LspClient {
  start(): Promise<void>;
  stop(): Promise<void>;
  sendRequest<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R>;
  sendNotification(method: string, params: unknown): Promise<void>;
}
