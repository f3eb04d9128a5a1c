/**
 * Finds or starts the companion (`cognivault serve`) for the vault, for the desktop editors
 * (the VS Code extension, the Obsidian plugin on desktop):
 *
 * 1. `<vault>/.cognivault/companion.json` names a live companion (it answers `/api/status`): use it.
 * 2. Else, when the editor's `launch` gives a command line (auto-start is on), start
 *    `cognivault serve --vault V --port 0 …`, read the one JSON line it prints
 *    ({url, token, pid, vault}) and stop it again on dispose.
 * 3. Else tell the user how to start one (`launch`'s sentence).
 *
 * The token is kept in memory only; everything logged goes through `redact`. Node's process and
 * file functions are passed in by the editor (this folder has no dependencies of its own).
 */

import {
  CompanionClient, type CompanionInfo, type FetchLike, discoverCompanion, isAlive, parseCompanionInfo, redact,
} from "./companion";

/** How to run `cognivault serve`: the command line and environment overrides. */
export interface CompanionLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The parts of a Node child process the manager uses. */
export interface ProcessLike {
  pid?: number;
  exitCode: number | null;
  stdout: { on(event: "data", listener: (chunk: { toString(encoding: "utf-8"): string }) => void): unknown } | null;
  stderr: { on(event: "data", listener: (chunk: { toString(encoding: "utf-8"): string }) => void): unknown } | null;
  on(event: "error", listener: (error: Error & { code?: string }) => void): unknown;
  on(event: "exit", listener: (code: number | null) => void): unknown;
  kill(signal?: "SIGTERM"): boolean;
}

export type SpawnLike = (command: string, args: string[],
  options: { cwd: string; env: Record<string, string | undefined>; stdio: ["ignore", "pipe", "pipe"] }) => ProcessLike;

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
  spawn: SpawnLike;
  readFile: (file: string) => Promise<string>;
  fetch: FetchLike;
  /** The editor's environment, which the companion inherits (plus `launch`'s overrides). */
  env: Record<string, string | undefined>;
  startTimeoutMs: number;
}

export function companionFile(vault: string): string {
  return `${vault.replace(/[\\/]+$/, "")}/.cognivault/companion.json`;
}

export class CompanionManager {
  private client: CompanionClient | null = null;
  private child: ProcessLike | null = null;
  private starting: Promise<CompanionClient> | null = null;

  /**
   * `launch`: the command line to start a companion with, or, when the editor may not start one
   * (auto-start off), the sentence telling the user how to.
   */
  constructor(private readonly vault: string, private readonly launch: () => Promise<CompanionLaunch | string>,
    private readonly log: (line: string) => void, private readonly deps: CompanionDeps) {}

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
    const launch = await this.launch();
    if (typeof launch === "string") {
      throw new CompanionUnavailable(launch);
    }
    const started = await this.start(launch);
    this.client = started;
    return started;
  }

  discover(): Promise<CompanionClient | null> {
    return discoverCompanion(() => this.deps.readFile(companionFile(this.vault)), this.log, this.deps.fetch);
  }

  private start({ command, args, env }: CompanionLaunch): Promise<CompanionClient> {
    this.log(`starting the companion: ${command} ${args.join(" ")}`);
    const child = this.deps.spawn(command, args, {
      cwd: this.vault, env: { ...this.deps.env, ...env }, stdio: ["ignore", "pipe", "pipe"],
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
      child.stdout?.on("data", (chunk) => {
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
      child.stderr?.on("data", (chunk) => {
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
        const hint = error.code === "ENOENT" ? ` (${command} not found: install CogniVault or choose its executable)` : "";
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
