/**
 * The extension's settings (`cognivault.*`) and what they become: the language server's command
 * line and initializationOptions (see server/cognivault/lsp/options.py), and the companion's
 * command line and environment (`COGNIVAULT_<SECTION>_<KEY>`, see server/cognivault/config.py).
 * Pure functions: no `vscode` import, so they are tested directly.
 */

import * as path from "node:path";

/** The `cognivault.server.command` default: found on PATH (or in a workspace .venv / pipx, see locate.ts). */
export const DEFAULT_COMMAND = "cognivault";

export type EmbeddingProvider = "auto" | "embedded" | "ollama" | "none";
export type ChatProvider = "auto" | "ollama" | "llamacpp" | "extractive";
export type SearchMode = "hybrid" | "lexical" | "dense";

export interface Settings {
  command: string;
  pythonPath: string;
  vault: string;
  embeddingProvider: EmbeddingProvider;
  ollamaEmbeddingModel: string;
  embeddedModel: string;
  chatProvider: ChatProvider;
  chatModel: string;
  studyFolder: string;
  companionEnabled: boolean;
  searchMode: SearchMode;
}

/** Anything with `get(key, default)`, like `vscode.WorkspaceConfiguration`. */
export interface ConfigSource {
  get<T>(section: string, defaultValue: T): T;
}

function choice<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === "string" && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

export function readSettings(config: ConfigSource): Settings {
  return {
    command: text(config.get("server.command", DEFAULT_COMMAND)) || DEFAULT_COMMAND,
    pythonPath: text(config.get("server.pythonPath", "")),
    vault: text(config.get("vault", "")),
    embeddingProvider: choice(config.get("embedding.provider", "auto"), ["auto", "embedded", "ollama", "none"], "auto"),
    ollamaEmbeddingModel: text(config.get("embedding.ollamaModel", "")),
    embeddedModel: text(config.get("embedding.embeddedModel", "")),
    chatProvider: choice(config.get("models.chatProvider", "auto"), ["auto", "ollama", "llamacpp", "extractive"], "auto"),
    chatModel: text(config.get("models.chatModel", "")),
    studyFolder: text(config.get("study.folder", "")),
    companionEnabled: config.get<unknown>("companion.enabled", true) !== false,
    searchMode: choice(config.get("search.mode", "hybrid"), ["hybrid", "lexical", "dense"], "hybrid"),
  };
}

export interface CommandLine {
  command: string;
  args: string[];
}

/** How to run `cognivault <subcommand>`: the configured executable, or `<python> -m cognivault.cli`. */
export function cognivaultCommand(settings: Settings, vault: string, subcommand: string[]): CommandLine {
  if (settings.pythonPath) {
    const python = path.isAbsolute(settings.pythonPath) || !settings.pythonPath.includes("/")
      ? settings.pythonPath
      : path.resolve(vault, settings.pythonPath);
    return { command: python, args: ["-m", "cognivault.cli", ...subcommand] };
  }
  return { command: settings.command, args: subcommand };
}

export function lspCommand(settings: Settings, vault: string): CommandLine {
  return cognivaultCommand(settings, vault, ["lsp", "--vault", vault]);
}

/** `cognivault serve` for the vault; `allowOrigins`: the page origins its webviews call from (browser-hosted VS Code). */
export function companionCommand(settings: Settings, vault: string, allowOrigins: readonly string[] = []): CommandLine {
  const args = ["serve", "--vault", vault, "--port", "0"];
  if (settings.embeddingProvider === "none") {
    args.push("--keyword-only");
  }
  for (const origin of allowOrigins) {
    args.push("--allow-origin", origin);
  }
  return cognivaultCommand(settings, vault, args);
}

/** The vault config sections the settings override (only what the user set). */
function sections(settings: Settings): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  const put = (section: string, key: string, value: string): void => {
    if (value) {
      (out[section] ??= {})[key] = value;
    }
  };
  if (settings.embeddingProvider !== "auto" && settings.embeddingProvider !== "none") {
    put("embedding", "provider", settings.embeddingProvider);
  }
  put("embedding", "ollama_model", settings.ollamaEmbeddingModel);
  put("embedding", "embedded_model", settings.embeddedModel);
  if (settings.chatProvider !== "auto") {
    put("models", "chat_provider", settings.chatProvider);
  }
  put("models", "chat_model", settings.chatModel);
  put("study", "folder", settings.studyFolder);
  return out;
}

/** initializationOptions / didChangeConfiguration settings for `cognivault lsp`. */
export function initializationOptions(settings: Settings, vault: string): Record<string, unknown> {
  const options: Record<string, unknown> = { vault, search: { mode: settings.searchMode }, ...sections(settings) };
  if (settings.embeddingProvider === "none") {
    options.embeddings = false;
  }
  return options;
}

/** Environment overrides for `cognivault serve` (the companion reads COGNIVAULT_<SECTION>_<KEY>). */
export function companionEnv(settings: Settings): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [section, values] of Object.entries(sections(settings))) {
    for (const [key, value] of Object.entries(values)) {
      env[`COGNIVAULT_${section}_${key}`.toUpperCase()] = value;
    }
  }
  return env;
}

/** Which setting changes need the language server restarted (the rest go by didChangeConfiguration). */
export const RESTART_KEYS = ["cognivault.server.command", "cognivault.server.pythonPath", "cognivault.vault"];
