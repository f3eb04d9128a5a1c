/**
 * The extension's side of the protocol against the real `cognivault lsp`: the initializationOptions
 * the settings produce are accepted, and the answers of cognivault/status, cognivault/search and
 * cognivault/related have the shapes the status bar, the search quick pick and the related tree read.
 *
 * Runs when tests/clients/test_vscode.py passes COGNIVAULT_TEST_CLI (the cognivault executable)
 * and COGNIVAULT_TEST_VAULT (a temp copy of examples/vault); skipped otherwise.
 */

import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { RELATED, SEARCH, STATUS } from "../src/protocol";
import type { RelatedEntry } from "../src/related";
import { type LspSearchResult, searchItems } from "../src/search";
import { initializationOptions, lspCommand, readSettings } from "../src/settings";
import { type LspStatus, statusBarText, statusReport } from "../src/status";

const CLI = process.env.COGNIVAULT_TEST_CLI ?? "";
const VAULT = process.env.COGNIVAULT_TEST_VAULT ?? "";

describe.skipIf(!CLI || !VAULT)("against the real language server", () => {
  let server: ChildProcess;
  let connection: MessageConnection;
  let stderr = "";

  beforeAll(async () => {
    const settings = readSettings({ get: <T>(key: string, fallback: T): T =>
      (key === "server.command" ? CLI : key === "embedding.provider" ? "none" : fallback) as T });
    const command = lspCommand(settings, VAULT);
    server = spawn(command.command, command.args, { cwd: VAULT, stdio: ["pipe", "pipe", "pipe"] });
    server.stderr?.on("data", (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
    connection = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
    connection.onRequest(() => null); // workspace/configuration, capability registration, ...
    connection.listen();
    const root = pathToFileURL(VAULT).href;
    await connection.sendRequest("initialize", {
      processId: process.pid, rootUri: root, workspaceFolders: [{ uri: root, name: "vault" }],
      capabilities: { window: { workDoneProgress: false } }, initializationOptions: initializationOptions(settings, VAULT),
    });
    await connection.sendNotification("initialized", {});
    const deadline = Date.now() + 90_000;
    for (;;) {
      const status = await connection.sendRequest<LspStatus>(STATUS, {});
      if (status.indexing.phase === "ready") {
        break;
      }
      if (Date.now() > deadline || status.indexing.phase === "failed") {
        throw new Error(`the server did not finish indexing: ${JSON.stringify(status.indexing)}\n${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 120_000);

  afterAll(async () => {
    try {
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
    } catch {
      // already gone
    }
    connection.dispose();
    if (server.exitCode === null) {
      server.kill("SIGTERM");
    }
  }, 30_000);

  it("reports a status the status bar understands", async () => {
    const status = await connection.sendRequest<LspStatus>(STATUS, {});
    expect(status.vault).toBe(VAULT);
    expect(statusBarText(status).text).toMatch(/^\$\(database\) CogniVault \d+ notes$/);
    expect(statusReport(status)).toContain("Phase: ready");
  });

  it("answers cognivault/search with results the quick pick shows and opens", async () => {
    const answer = await connection.sendRequest<{ results: LspSearchResult[] }>(SEARCH, { query: "chlorophyll", k: 5, mode: "hybrid" });
    const items = searchItems(answer.results);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(item.uri.startsWith("file://")).toBe(true);
      expect(item.range.start.line).toBeGreaterThanOrEqual(0);
      expect(item.range.end.line).toBeGreaterThanOrEqual(item.range.start.line);
      expect(item.label.length).toBeGreaterThan("$(markdown) ".length);
    }
  });

  it("answers cognivault/related with entries for the tree view", async () => {
    const uri = pathToFileURL(path.join(VAULT, "Photosynthesis", "Photosynthesis.md")).href;
    const answer = await connection.sendRequest<{ related: RelatedEntry[] }>(RELATED, { uri, k: 5 });
    expect(answer.related.length).toBeGreaterThan(0);
    for (const entry of answer.related) {
      expect(entry.uri.startsWith("file://")).toBe(true);
      expect(Array.isArray(entry.why)).toBe(true);
      expect(typeof entry.title).toBe("string");
    }
  });
});
