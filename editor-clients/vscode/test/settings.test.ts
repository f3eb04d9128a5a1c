import { describe, expect, it } from "vitest";

import { webviewCsp } from "../src/csp";
import { companionCommand, companionEnv, initializationOptions, lspCommand, readSettings } from "../src/settings";
import { statusBarText } from "../src/status";
import { looksLikeVault, vaultRelative } from "../src/vault";

function config(values: Record<string, unknown>) {
  return { get: <T>(key: string, fallback: T): T => (key in values ? values[key] : fallback) as T };
}

describe("settings", () => {
  it("has defaults that run `cognivault lsp` with embeddings on", () => {
    const settings = readSettings(config({}));
    expect(lspCommand(settings, "/v")).toEqual({ command: "cognivault", args: ["lsp", "--vault", "/v"] });
    expect(initializationOptions(settings, "/v")).toEqual({ vault: "/v", search: { mode: "hybrid" } });
    expect(companionEnv(settings)).toEqual({});
    expect(companionCommand(settings, "/v").args).toEqual(["serve", "--vault", "/v", "--port", "0"]);
  });

  it("uses a Python interpreter when configured (relative to the vault)", () => {
    const settings = readSettings(config({ "server.pythonPath": ".venv/bin/python" }));
    expect(lspCommand(settings, "/v")).toEqual({ command: "/v/.venv/bin/python",
      args: ["-m", "cognivault.cli", "lsp", "--vault", "/v"] });
    expect(lspCommand(readSettings(config({ "server.pythonPath": "python3" })), "/v").command).toBe("python3");
  });

  it("maps provider, model names and study folder to the server and the companion", () => {
    const settings = readSettings(config({ "embedding.provider": "ollama", "embedding.ollamaModel": "nomic",
      "models.chatProvider": "extractive", "models.chatModel": "gemma", "study.folder": "Karten", "search.mode": "lexical" }));
    expect(initializationOptions(settings, "/v")).toEqual({ vault: "/v", search: { mode: "lexical" },
      embedding: { provider: "ollama", ollama_model: "nomic" }, models: { chat_provider: "extractive", chat_model: "gemma" },
      study: { folder: "Karten" } });
    expect(companionEnv(settings)).toEqual({ COGNIVAULT_EMBEDDING_PROVIDER: "ollama", COGNIVAULT_EMBEDDING_OLLAMA_MODEL: "nomic",
      COGNIVAULT_MODELS_CHAT_PROVIDER: "extractive", COGNIVAULT_MODELS_CHAT_MODEL: "gemma", COGNIVAULT_STUDY_FOLDER: "Karten" });
  });

  it("turns embeddings off for provider none", () => {
    const settings = readSettings(config({ "embedding.provider": "none" }));
    expect(initializationOptions(settings, "/v")).toMatchObject({ embeddings: false });
    expect(companionCommand(settings, "/v").args).toContain("--keyword-only");
  });

  it("ignores invalid values", () => {
    const settings = readSettings(config({ "embedding.provider": "cloud", "search.mode": 3, "server.command": "  " }));
    expect(settings).toMatchObject({ embeddingProvider: "auto", searchMode: "hybrid", command: "cognivault" });
  });
});

describe("vault detection", () => {
  it("recognises vault markers and rejects code projects", () => {
    expect(looksLikeVault({ entries: [".obsidian", "a.md"], markdownFiles: 1 })).toBe(true);
    expect(looksLikeVault({ entries: [".cognivault"], markdownFiles: 0 })).toBe(true);
    expect(looksLikeVault({ entries: ["Notes", "Start here.md"], markdownFiles: 12 })).toBe(true);
    expect(looksLikeVault({ entries: ["package.json", "README.md", "docs"], markdownFiles: 30 })).toBe(false);
    expect(looksLikeVault({ entries: ["a.md"], markdownFiles: 1 })).toBe(false);
  });

  it("keeps paths inside the vault", () => {
    expect(vaultRelative("/v", "/v/Cells/Chloroplast.md")).toBe("Cells/Chloroplast.md");
    expect(vaultRelative("/v", "/other/x.md")).toBeNull();
    expect(vaultRelative("/v", "/v")).toBeNull();
  });
});

describe("webview CSP", () => {
  it("allows only the companion's loopback origin to be connected to", () => {
    const csp = webviewCsp({ cspSource: "vscode-resource:", nonce: "abc", connectOrigin: "http://127.0.0.1:5000/x" });
    expect(csp).toContain("connect-src http://127.0.0.1:5000;");
    expect(csp).toContain("default-src 'none'");
    expect(webviewCsp({ cspSource: "r", nonce: "n" })).toContain("connect-src 'none'");
    expect(() => webviewCsp({ cspSource: "r", nonce: "n", connectOrigin: "https://example.com" })).toThrow();
  });
});

describe("status bar", () => {
  const base = { vault: "/v", indexing: { phase: "ready", stage: "", done: 0, total: 0, current: "", summary: "20 indexed", errors: [] } };

  it("shows progress while indexing", () => {
    const view = statusBarText({ ...base, indexing: { ...base.indexing, phase: "indexing", stage: "embed", done: 5, total: 20 } });
    expect(view).toMatchObject({ text: "$(sync~spin) CogniVault embedding 5/20", busy: true });
    expect(view.tooltip).toContain("25%");
  });

  it("shows the note count when ready and a stop sign without a server", () => {
    expect(statusBarText({ ...base, index: { files: { indexed: 19 } } }).text).toBe("$(database) CogniVault 19 notes");
    expect(statusBarText(null).text).toContain("circle-slash");
    expect(statusBarText({ ...base, indexing: { ...base.indexing, phase: "failed" } }).text).toContain("error");
  });
});
