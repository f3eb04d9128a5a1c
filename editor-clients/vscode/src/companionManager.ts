/**
 * The companion for the VS Code extension: the shared manager (../../shared/companionProcess.ts)
 * with the extension's settings (`cognivault.companion.enabled`, the executable, models) and
 * Node's process and file functions. It passes `--allow-origin` for each origin the webviews
 * call from besides `vscode-webview://` (the page of a browser-hosted VS Code).
 */

import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";

import { startCommand } from "../../shared/companion";
import { type CompanionDeps, CompanionManager as SharedManager } from "../../shared/companionProcess";
import { type Settings, companionCommand, companionEnv } from "./settings";

export { CompanionUnavailable, companionFile, redactTokens } from "../../shared/companionProcess";

export interface ExtensionCompanionDeps extends CompanionDeps {
  /** Origins to pass as `--allow-origin` (the page of a browser-hosted VS Code). */
  allowOrigins: () => Promise<readonly string[]>;
}

const defaultDeps: ExtensionCompanionDeps = {
  spawn: (command, args, options) => spawn(command, args, options),
  readFile: (file) => fs.readFile(file, "utf-8"),
  fetch: (input, init) => fetch(input, init),
  env: process.env,
  startTimeoutMs: 120_000,
  allowOrigins: () => Promise.resolve([]),
};

export class CompanionManager extends SharedManager {
  constructor(vault: string, settings: () => Settings, log: (line: string) => void,
    deps: Partial<ExtensionCompanionDeps> = {}) {
    const all = { ...defaultDeps, ...deps };
    super(vault, async () => {
      const current = settings();
      if (!current.companionEnabled) {
        return `No CogniVault companion is running for this vault. Start one in a terminal: ${startCommand(vault)} ` +
          "(or turn on the cognivault.companion.enabled setting).";
      }
      return { ...companionCommand(current, vault, await all.allowOrigins()), env: companionEnv(current) };
    }, log, all);
  }
}
