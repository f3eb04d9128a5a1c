/**
 * The language client for `cognivault lsp` (stdio). Kept behind a small interface so the rest of
 * the extension (and its unit tests) do not depend on vscode-languageclient directly.
 */

import type * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions, TransportKind }
  from "vscode-languageclient/node";

import type { LspClient } from "./protocol";
import type { CommandLine } from "./settings";

export interface LspStartOptions {
  command: CommandLine;
  vault: string;
  env: Record<string, string>;
  initializationOptions: Record<string, unknown>;
  outputChannel: vscode.OutputChannel;
}

export function createLspClient(options: LspStartOptions): LspClient {
  const serverOptions: ServerOptions = {
    command: options.command.command,
    args: options.command.args,
    transport: TransportKind.stdio,
    options: { cwd: options.vault, env: { ...process.env, ...options.env } },
  };
  const pattern = `${options.vault.replace(/\\/g, "/")}/**/*`;
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "markdown", pattern }],
    initializationOptions: options.initializationOptions,
    outputChannel: options.outputChannel,
  };
  const client = new LanguageClient("cognivault", "CogniVault", serverOptions, clientOptions);
  return {
    start: () => client.start(),
    stop: () => client.stop(),
    sendRequest: <R>(method: string, params: unknown, token?: vscode.CancellationToken) =>
      token ? client.sendRequest<R>(method, params, token) : client.sendRequest<R>(method, params),
    sendNotification: (method: string, params: unknown) => client.sendNotification(method, params),
  };
}
