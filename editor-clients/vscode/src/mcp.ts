/**
 * Offers `cognivault mcp` to VS Code's chat (agent mode), so its agents can search and ask the vault:
 * an MCP server definition provider (`vscode.lm.registerMcpServerDefinitionProvider`, VS Code 1.101+,
 * named by `contributes.mcpServerDefinitionProviders`). VS Code before 1.101 has no such API, or only as
 * a proposal that refuses the call: nothing is registered and the extension works as before. The server
 * is read-only (no `--allow-writes`).
 */

import type * as vscode from "vscode";

import type { CommandLine } from "./settings";

export const MCP_PROVIDER_ID = "cognivault.mcp";

// The part of the 1.101 API used here: @types/vscode stays at the oldest VS Code the extension supports.
type StdioDefinition = new (label: string, command: string, args: string[], env: Record<string, string>) => unknown;
interface McpApi {
  lm?: {
    registerMcpServerDefinitionProvider?: (id: string, provider: {
      provideMcpServerDefinitions(): unknown[];
    }) => vscode.Disposable;
  };
  McpStdioServerDefinition?: StdioDefinition;
}

/**
 * Register the provider when this VS Code has the API; `server()` says how to run
 * `cognivault mcp` for the vault (undefined while no executable is known).
 */
export function offerMcpServer(api: object, server: () => CommandLine | undefined): vscode.Disposable | undefined {
  const { lm, McpStdioServerDefinition: Definition } = api as McpApi;
  const register = lm?.registerMcpServerDefinitionProvider;
  if (typeof register !== "function" || typeof Definition !== "function") {
    return undefined;
  }
  try {
    return register.call(lm, MCP_PROVIDER_ID, {
      provideMcpServerDefinitions: () => {
        const line = server();
        return line ? [new Definition("CogniVault", line.command, line.args, {})] : [];
      },
    });
  } catch {
    return undefined; // a VS Code where the API is still a proposal refuses extensions that did not enable it
  }
}
