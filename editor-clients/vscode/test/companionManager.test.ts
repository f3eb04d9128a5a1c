import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";

import { CompanionManager } from "../src/companionManager";
import { readSettings, type Settings } from "../src/settings";

const TOKEN = "TOKEN-0123456789-abcdefghij";

class FakeChild extends EventEmitter {
  stdout = new PassThrough();
  stderr = new PassThrough();
  exitCode: number | null = null;
  pid = 4242;
  killed: string[] = [];
  kill(signal: string): boolean {
    this.killed.push(signal);
    this.exitCode = 0;
    this.emit("exit", 0);
    return true;
  }
}

function settings(values: Record<string, unknown> = {}): () => Settings {
  return () => readSettings({ get: <T>(key: string, fallback: T) => (key in values ? values[key] : fallback) as T });
}

const statusOk = vi.fn((url: string) => Promise.resolve(
  url.endsWith("/api/status") ? Response.json({ ok: true }) : new Response("{}", { status: 404 })));

describe("CompanionManager", () => {
  it("starts `cognivault serve` when none runs, reads its address line and never logs the token", async () => {
    const child = new FakeChild();
    const spawn = vi.fn(() => child);
    const lines: string[] = [];
    const manager = new CompanionManager("/vault", settings({ "embedding.provider": "none", "study.folder": "Cards" }),
      (line) => lines.push(line),
      { spawn: spawn as never, readFile: () => Promise.reject(new Error("ENOENT")), fetch: statusOk });
    const pending = manager.get();
    await new Promise((resolve) => setTimeout(resolve, 0));
    child.stderr.write(`INFO serving with token ${TOKEN}\n`);
    child.stdout.write(JSON.stringify({ url: "http://127.0.0.1:5123", token: TOKEN, pid: 4242, vault: "/vault" }).slice(0, 30));
    child.stdout.write(JSON.stringify({ url: "http://127.0.0.1:5123", token: TOKEN, pid: 4242, vault: "/vault" }).slice(30) + "\n");
    const client = await pending;
    expect(client.origin).toBe("http://127.0.0.1:5123");
    const [command, args, options] = spawn.mock.calls[0] as unknown as [string, string[], { env: Record<string, string> }];
    expect(command).toBe("cognivault");
    expect(args).toEqual(["serve", "--vault", "/vault", "--port", "0", "--keyword-only"]);
    expect(options.env.COGNIVAULT_STUDY_FOLDER).toBe("Cards");
    expect(manager.startedByUs).toBe(true);
    child.stderr.write(`later ${TOKEN}\n`);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(lines.join("\n")).not.toContain(TOKEN);
    expect(lines.join("\n")).toContain("«token»");
    manager.dispose();
    expect(child.killed).toEqual(["SIGTERM"]);
  });

  it("passes the webview host origins as --allow-origin", async () => {
    const child = new FakeChild();
    const spawn = vi.fn(() => child);
    const manager = new CompanionManager("/vault", settings(), () => undefined, {
      spawn: spawn as never, readFile: () => Promise.reject(new Error("ENOENT")), fetch: statusOk,
      allowOrigins: () => Promise.resolve(["http://127.0.0.1:8080"]) });
    const pending = manager.get();
    await new Promise((resolve) => setTimeout(resolve, 0));
    child.stdout.write(JSON.stringify({ url: "http://127.0.0.1:5123", token: TOKEN, pid: 4242, vault: "/vault" }) + "\n");
    await pending;
    const [, args] = spawn.mock.calls[0] as unknown as [string, string[]];
    expect(args).toEqual(["serve", "--vault", "/vault", "--port", "0", "--allow-origin", "http://127.0.0.1:8080"]);
    manager.dispose();
  });

  it("uses a live companion from companion.json instead of starting one", async () => {
    const spawn = vi.fn();
    const manager = new CompanionManager("/vault", settings(), () => undefined, {
      spawn: spawn as never, fetch: statusOk,
      readFile: () => Promise.resolve(JSON.stringify({ url: "http://127.0.0.1:6000", token: TOKEN, pid: 1 })),
    });
    expect((await manager.get()).origin).toBe("http://127.0.0.1:6000");
    expect(spawn).not.toHaveBeenCalled();
  });

  it("says how to start one when auto-start is off", async () => {
    const manager = new CompanionManager("/my vault", settings({ "companion.enabled": false }), () => undefined, {
      readFile: () => Promise.resolve(JSON.stringify({ url: "http://127.0.0.1:6000", token: TOKEN })),
      fetch: () => Promise.reject(new Error("ECONNREFUSED")),
    });
    await expect(manager.get()).rejects.toThrow('cognivault serve --vault "/my vault"');
  });

  it("reports a companion that exits before it is ready", async () => {
    const child = new FakeChild();
    const manager = new CompanionManager("/vault", settings(), () => undefined, {
      spawn: (() => child) as never, readFile: () => Promise.reject(new Error("ENOENT")), fetch: statusOk,
    });
    const pending = manager.get();
    await new Promise((resolve) => setTimeout(resolve, 0));
    child.stderr.write("cognivault: vault folder not found: /vault\n");
    await new Promise((resolve) => setTimeout(resolve, 0));
    child.exitCode = 2;
    child.emit("exit", 2);
    await expect(pending).rejects.toThrow("vault folder not found");
  });
});
