/**
 * The MCP server offered to VS Code's chat: registered with the definition of `cognivault mcp` for the
 * vault where VS Code has the API (1.101+), nothing at all where it has not.
 */

import { describe, expect, it } from "vitest";

import { MCP_PROVIDER_ID, offerMcpServer } from "../src/mcp";

class StdioDefinition {
  constructor(readonly label: string, readonly command: string, readonly args: string[],
    readonly env: Record<string, string>) {}
}

function fakeApi() {
  const registered: { id: string; provider: { provideMcpServerDefinitions(): unknown[] } }[] = [];
  const api = {
    lm: {
      registerMcpServerDefinitionProvider(id: string, provider: { provideMcpServerDefinitions(): unknown[] }) {
        registered.push({ id, provider });
        return { dispose: () => undefined };
      },
    },
    McpStdioServerDefinition: StdioDefinition,
  };
  return { api, registered };
}

describe("offerMcpServer", () => {
  it("offers `cognivault mcp` for the vault once the executable is known", () => {
    const { api, registered } = fakeApi();
    const located: { line?: { command: string; args: string[] } } = {};
    expect(offerMcpServer(api, () => located.line)).toBeDefined();
    expect(registered.map((r) => r.id)).toEqual([MCP_PROVIDER_ID]);
    expect(registered[0].provider.provideMcpServerDefinitions()).toEqual([]);
    located.line = { command: "/venv/bin/cognivault", args: ["mcp", "--vault", "/notes"] };
    expect(registered[0].provider.provideMcpServerDefinitions()).toEqual([
      new StdioDefinition("CogniVault", "/venv/bin/cognivault", ["mcp", "--vault", "/notes"], {})]);
  });

  it("does nothing on a VS Code without the API", () => {
    expect(offerMcpServer({}, () => ({ command: "cognivault", args: ["mcp"] }))).toBeUndefined();
    expect(offerMcpServer({ lm: {} }, () => undefined)).toBeUndefined();
    const proposal = { ...fakeApi().api, lm: { registerMcpServerDefinitionProvider: () => {
      throw new Error("Extension 'cognivault.cognivault' CANNOT use API proposal: mcpConfigurationProvider");
    } } };
    expect(offerMcpServer(proposal, () => undefined)).toBeUndefined();
  });

  it("names the provider the package contributes", async () => {
    const manifest = JSON.parse(await import("node:fs").then((fs) => fs.promises.readFile(
      new URL("../package.json", import.meta.url), "utf-8"))) as { contributes: { mcpServerDefinitionProviders: { id: string }[] } };
    expect(manifest.contributes.mcpServerDefinitionProviders.map((p) => p.id)).toEqual([MCP_PROVIDER_ID]);
  });
});
