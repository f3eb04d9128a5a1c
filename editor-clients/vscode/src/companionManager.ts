/**
 * Finds or starts the companion (`cognivault serve`) for the vault.
 *
 * 1. `<vault>/.cognivault/companion.json` names a live companion (it answers `/api/status`): use it.
 * 2. Else, when `cognivault.companion.enabled` is on, start `cognivault serve --vault V --port 0`,
 *    read the one JSON line it prints ({url, token, pid, vault}) and stop it again on dispose.
 * 3. Else tell the user how to start one.
 *
 * The token is kept in memory only; everything logged goes through `redact`.
 */

import { type ChildProcess, spawn as nodeSpawn, type SpawnOptions } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";

import {
  CompanionClient, type CompanionInfo, type FetchLike, discoverCompanion, isAlive, parseCompanionInfo, redact, startCommand,
} from "../../shared/companion";
import { type Settings, companionCommand, companionEnv } from "./settings";

/** Anything that looks like a token assignment, for text logged before the token is known. */
export function redactTokens(text: string): string {
  return text.replace(/(token["']?\s*[=:]?\s*["']?)[A-Za-z0-9_-]{16,}/gi, "$1«token»");
}

export class CompanionUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CompanionUnavailable";
  }
}

export interface CompanionDeps {
  spawn: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  readFile: (file: string) => Promise<string>;
  fetch: FetchLike;
  startTimeoutMs: number;
}

const defaultDeps: CompanionDeps = {
  spawn: (command, args, options) => nodeSpawn(command, args, options),
  readFile: (file) => fs.readFile(file, "utf-8"),
  fetch: (input, init) => fetch(input, init),
  startTimeoutMs: 120_000,
};

export function companionFile(vault: string): string {
  return path.join(vault, ".cognivault", "companion.json");
}

export class CompanionManager {
  private client: CompanionClient | null = null;
  private child: ChildProcess | null = null;
  private starting: Promise<CompanionClient> | null = null;
  private readonly deps: CompanionDeps;

  constructor(private readonly vault: string, private readonly settings: () => Settings,
    private readonly log: (line: string) => void, deps: Partial<CompanionDeps> = {}) {
    this.deps = { ...defaultDeps, ...deps };
  }

  /** The running companion's origin (`http://127.0.0.1:PORT`), if one is known. */
  get origin(): string | null {
    return this.client?.origin ?? null;
  }

  get startedByUs(): boolean {
    return this.child !== null && this.child.exitCode === null;
  }

  /** A working client: the known one, a discovered one, or a freshly started companion. */
  async get(): Promise<CompanionClient> {
    if (this.client && await isAlive(this.client)) {
      return this.client;
    }
    this.client = null;
    this.starting ??= this.connect().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async connect(): Promise<CompanionClient> {
    const discovered = await this.discover();
    if (discovered) {
      this.client = discovered;
      return discovered;
    }
    if (!this.settings().companionEnabled) {
      throw new CompanionUnavailable(
        `No CogniVault companion is running for this vault. Start one in a terminal: ${startCommand(this.vault)} ` +
        "(or turn on the cognivault.companion.enabled setting).");
    }
    const started = await this.start();
    this.client = started;
    return started;
  }

  discover(): Promise<CompanionClient | null> {
    return discoverCompanion(() => this.deps.readFile(companionFile(this.vault)), this.log, this.deps.fetch);
  }

  private start(): Promise<CompanionClient> {
    const settings = this.settings();
    const { command, args } = companionCommand(settings, this.vault);
    this.log(`starting the companion: ${command} ${args.join(" ")}`);
    const child = this.deps.spawn(command, args, {
      cwd: this.vault, env: { ...process.env, ...companionEnv(settings) }, stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    return new Promise<CompanionClient>((resolve, reject) => {
      let stdout = "";
      let stderr = "";
      let token: string | undefined;
      let settled = false;
      let flushHeld = (): void => undefined;
      const finish = (error: Error | null, client?: CompanionClient): void => {
        if (settled) {
          return;
        }
        settled = true;
        clearTimeout(timer);
        flushHeld();
        if (error) {
          reject(error);
        } else if (client) {
          resolve(client);
        }
      };
      const timer = setTimeout(() => {
        finish(new CompanionUnavailable(`the companion did not start within ${this.deps.startTimeoutMs / 1000} s`));
        this.stopChild();
      }, this.deps.startTimeoutMs);
      child.stdout?.on("data", (chunk: Buffer) => {
        if (settled) {
          return;
        }
        stdout += chunk.toString("utf-8");
        const newline = stdout.indexOf("\n");
        if (newline < 0) {
          return;
        }
        const info: CompanionInfo | null = parseCompanionInfo(stdout.slice(0, newline));
        if (!info) {
          finish(new CompanionUnavailable("the companion printed something unexpected instead of its address"));
          this.stopChild();
          return;
        }
        token = info.token;
        this.log(`companion started at ${info.url} (pid ${info.pid ?? child.pid ?? "?"})`);
        finish(null, new CompanionClient(info, this.deps.fetch));
      });
      // stderr is logged line by line, but held back until the address line names the token
      // (so it can be redacted); a process that dies first gets its lines logged pattern-redacted.
      let held: string[] = [];
      const logStderr = (lines: string[]): void => {
        for (const line of lines) {
          if (line.trim()) {
            this.log(`companion: ${redactTokens(redact(line, token))}`);
          }
        }
      };
      flushHeld = () => {
        logStderr(held);
        held = [];
      };
      child.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf-8");
        stderr = (stderr + text).slice(-4000);
        const lines = text.split("\n");
        if (token === undefined && !settled) {
          held.push(...lines);
        } else {
          logStderr(lines);
        }
      });
      child.on("error", (error) => {
        const hint = (error as NodeJS.ErrnoException).code === "ENOENT"
          ? ` (${command} not found: install CogniVault or set cognivault.server.command / pythonPath)` : "";
        finish(new CompanionUnavailable(`cannot start the companion: ${error.message}${hint}`));
      });
      child.on("exit", (code) => {
        if (this.child === child) {
          this.child = null;
          this.client = null;
        }
        finish(new CompanionUnavailable(`the companion exited (code ${code ?? "?"}) before it was ready: ` +
          redactTokens(stderr.trim().split("\n").pop() ?? "")));
      });
    });
  }

  private stopChild(): void {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
    }
  }

  /** Stops the companion if this extension started it (one it found is left alone). */
  dispose(): void {
    this.stopChild();
    this.client = null;
  }
}
