/**
 * The plugin against the fake `obsidian` module and a fake companion (fetch): commands, views,
 * companion discovery and the "start it like this" message.
 */

import { EventEmitter } from "node:events";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import CogniVaultPlugin from "../src/main";
import { ReviewModal } from "../src/review";
import { type ChatView, VIEW_CHAT } from "../src/views/chat";
import { type DashboardView, VIEW_DASHBOARD } from "../src/views/dashboard";
import { type RelatedView, VIEW_RELATED } from "../src/views/related";
import { App, MarkdownRenderer, MarkdownView, Modal, TFile, notices } from "./mocks/obsidian";

const ROOT = path.resolve(__dirname, "..");
const TOKEN = "tok_abcdefghijklmnopqrstuvwxyz012345";
const ORIGIN = "http://127.0.0.1:47000";

let vault: string;
let app: App;
let plugin: CogniVaultPlugin;
let calls: { url: string; init?: RequestInit }[];

function ndjson(lines: unknown[]): Response {
  return new Response(lines.map((l) => JSON.stringify(l)).join("\n") + "\n", { status: 200 });
}

function fakeCompanion(url: string, init?: RequestInit): Promise<Response> {
  calls.push({ url, init });
  if ((init?.headers as Record<string, string>).Authorization !== `Bearer ${TOKEN}`) {
    return Promise.resolve(Response.json({ error: { code: "unauthorized", message: "missing or wrong token" } }, { status: 401 }));
  }
  const route = url.slice(ORIGIN.length);
  if (route === "/api/status") return Promise.resolve(Response.json({ files: { total: 2, indexed: 2 } }));
  if (route.startsWith("/api/related")) {
    return Promise.resolve(Response.json({ related: [{ path: "Cells/Chloroplast.md", title: "Chloroplast", score: 0.6, reasons: ["links here", "shared tags: bio"] }] }));
  }
  if (route === "/api/transcribe?name=question.webm") {
    return (init?.body as Blob).text().then((audio) => Response.json(
      audio === "spoken-question" ? { text: "What do chloroplasts hold?", language: "en", duration_s: 1, segments: [] }
        : { error: { code: "audio_unreadable", message: "not audio" } }, { status: audio === "spoken-question" ? 200 : 422 }));
  }
  if (route === "/api/ask") {
    return Promise.resolve(ndjson([
      { type: "thinking", data: { text: "S1 covers it" } },
      { type: "confidence", data: { label: "medium", reason: "partly covered" } },
      { type: "text", data: { text: "Chloroplasts hold chlorophyll. " } },
      { type: "metadata", data: { label: "S1", path: "Cells/Chloroplast.md", title: "Chloroplast", heading_path: ["Chloroplast"], line_start: 5, line_end: 9, snippet: "…" } },
      { type: "text", data: { text: "[S1]" } },
      { type: "done", data: { answer: "Chloroplasts hold chlorophyll. [S1]" } },
    ]));
  }
  if (route.startsWith("/api/generate/")) {
    const kind = route.split("/").pop() ?? "";
    const note = `Study/${kind}.md`;
    mkdirSync(path.join(vault, "Study"), { recursive: true });
    writeFileSync(path.join(vault, note), `# ${kind}\n`);
    return Promise.resolve(ndjson([{ type: "progress", data: { stage: "write", message: "writing the note" } }, { type: "done", data: { kind, path: note } }]));
  }
  if (route.startsWith("/api/review/due")) {
    return Promise.resolve(Response.json({ due: [{ id: "aaaaaaaaaaaa-0", path: "Study/flashcards.md", front: "Q?", back: "A." }] }));
  }
  if (route.startsWith("/api/review/")) return Promise.resolve(Response.json({ ok: true }));
  if (route === "/dashboard") return Promise.resolve(new Response("<html><head></head><body><script>go()</script></body></html>"));
  if (route === "/api/reindex") return Promise.resolve(Response.json({ error: { code: "not_found", message: "no route" } }, { status: 404 }));
  return Promise.resolve(new Response("{}", { status: 404 }));
}

function writeCompanionJson(): void {
  mkdirSync(path.join(vault, ".cognivault"), { recursive: true });
  writeFileSync(path.join(vault, ".cognivault", "companion.json"), JSON.stringify({ url: ORIGIN, token: TOKEN, pid: 1, vault }));
}

async function load(): Promise<void> {
  plugin = new CogniVaultPlugin(app as never, { id: "cognivault", version: "0.1.0" } as never);
  plugin.fetchImpl = fakeCompanion;
  await plugin.onload();
}

/** Runs a command as the palette would (the fake Plugin's helper). */
function run(id: string): boolean {
  return (plugin as unknown as { run(id: string): boolean }).run(id);
}

function flush(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

beforeEach(() => {
  vault = mkdtempSync(path.join(tmpdir(), "cognivault-obsidian-"));
  mkdirSync(path.join(vault, "Cells"));
  writeFileSync(path.join(vault, "Cells", "Chloroplast.md"), "# Chloroplast\n\nGreen.\n");
  writeFileSync(path.join(vault, "Cells", "Cell.md"), "# Cell\n\nA cell.\nWith parts.\n");
  app = new App(vault);
  calls = [];
  notices.length = 0;
  Modal.opened.length = 0;
  // no real cognivault is ever found: tests that start one put a launcher in the vault's .venv
  vi.stubEnv("PATH", path.join(vault, "empty-path"));
  vi.stubEnv("PIPX_BIN_DIR", path.join(vault, "no-pipx"));
});

afterEach(() => {
  plugin?.onunload();
  vi.unstubAllEnvs();
  rmSync(vault, { recursive: true, force: true });
});

describe("plugin wiring", () => {
  it("declares desktop only and matching versions", () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, "manifest.json"), "utf-8")) as Record<string, unknown>;
    const versions = JSON.parse(readFileSync(path.join(ROOT, "versions.json"), "utf-8")) as Record<string, string>;
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf-8")) as { version: string };
    expect(manifest.isDesktopOnly).toBe(true);
    expect(manifest.version).toBe(pkg.version);
    expect(versions[String(manifest.version)]).toBe(manifest.minAppVersion);
  });

  it("registers its views, commands and settings tab", async () => {
    await load();
    expect([...app.viewCreators.keys()].sort()).toEqual([VIEW_CHAT, VIEW_DASHBOARD, VIEW_RELATED].sort());
    const p = plugin as unknown as { commands: Map<string, unknown>; settingTabs: unknown[] };
    expect([...p.commands.keys()].sort()).toEqual(["companion-status", "generate-flashcards", "generate-mindmap",
      "generate-quiz", "open-chat", "open-dashboard", "open-related", "reindex", "review-due"]);
    expect(p.settingTabs).toHaveLength(1);
  });

  it("tells the user how to start the companion when it is not running", async () => {
    await load();
    await expect(plugin.companion()).rejects.toThrow(`cognivault serve --vault ${vault}`);
    await plugin.reviewDue();
    expect(notices.at(-1)?.message).toContain(`cognivault serve --vault ${vault}`);
  });

  it("starts `cognivault serve` from the vault's .venv when none runs, and stops it on unload", async () => {
    const cli = path.join(vault, ".venv", "bin", "cognivault");
    mkdirSync(path.dirname(cli), { recursive: true });
    writeFileSync(cli, "#!/bin/sh\n");
    chmodSync(cli, 0o755);
    const child = Object.assign(new EventEmitter(), {
      stdout: new PassThrough(), stderr: new PassThrough(), exitCode: null as number | null, pid: 77, killed: [] as string[],
      kill(signal: string) {
        child.killed.push(signal);
        child.exitCode = 0;
        child.emit("exit", 0);
        return true;
      },
    });
    const spawned: { command: string; args: string[] }[] = [];
    await load();
    plugin.spawnImpl = (command, args) => {
      spawned.push({ command, args });
      setTimeout(() => child.stdout.write(`${JSON.stringify({ url: ORIGIN, token: TOKEN, pid: 77, vault })}\n`), 0);
      return child as never;
    };
    const client = await plugin.companion();
    expect(client.origin).toBe(ORIGIN);
    expect(spawned).toEqual([{ command: cli, args: ["serve", "--vault", vault, "--port", "0"] }]);
    expect(await plugin.companion()).toBe(client); // one companion, reused
    plugin.onunload();
    expect(child.killed).toEqual(["SIGTERM"]);
  });

  it("starts nothing when starting is turned off, and says how to", async () => {
    const cli = path.join(vault, ".venv", "bin", "cognivault");
    mkdirSync(path.dirname(cli), { recursive: true });
    writeFileSync(cli, "#!/bin/sh\n");
    chmodSync(cli, 0o755);
    await load();
    plugin.settings.startCompanion = false;
    plugin.spawnImpl = () => {
      throw new Error("must not start");
    };
    await expect(plugin.companion()).rejects.toThrow(`Start it in a terminal: cognivault serve --vault ${vault}`);
  });

  it("ignores a stale companion.json", async () => {
    writeCompanionJson();
    await load();
    plugin.fetchImpl = () => Promise.reject(new Error("ECONNREFUSED"));
    await expect(plugin.companion()).rejects.toThrow("is not running");
  });

  it("uses a configured URL and token, and refuses a non-loopback one", async () => {
    await load();
    plugin.settings.companionUrl = ORIGIN;
    plugin.settings.companionToken = TOKEN;
    expect((await plugin.companion()).origin).toBe(ORIGIN);
    plugin.settings.companionUrl = "http://192.168.1.2:8000";
    await plugin.saveSettings();
    await expect(plugin.companion()).rejects.toThrow("127.0.0.1");
  });

  it("shows the settings tab with a password field for the token", async () => {
    await load();
    const tab = (plugin as unknown as { settingTabs: { display(): void; containerEl: HTMLElement }[] }).settingTabs[0];
    tab.display();
    expect(tab.containerEl.textContent).toContain(`cognivault serve --vault ${vault}`);
    const names = [...tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")].map((e) => e.dataset.name);
    expect(names).toEqual(["Start the companion", "cognivault executable", "Companion URL", "Companion token", "Related notes", "Items per generation", "Open generated notes"]);
    expect(tab.containerEl.querySelector<HTMLInputElement>('.setting-item[data-name="Companion token"] input')?.type)
      .toBe("password");
  });
});

describe("views", () => {
  it("streams an answer into the chat view with reasoning and internal source links", async () => {
    writeCompanionJson();
    await load();
    const leaf = await plugin.openView(VIEW_CHAT);
    const view = leaf?.view as ChatView;
    const state = await view.ask("What do chloroplasts hold?");
    expect(state.text).toBe("Chloroplasts hold chlorophyll. [S1]");
    const turn = view.contentEl.querySelector(".cv-turn") as HTMLElement;
    expect(turn.querySelector(".cv-thinking")?.textContent).toBe("S1 covers it");
    expect(turn.querySelector(".cv-confidence")?.textContent).toBe("Medium confidence");
    const link = turn.querySelector(".cv-answer a.internal-link") as HTMLAnchorElement;
    expect(link.dataset.href).toBe("Cells/Chloroplast.md");
    link.click();
    await flush();
    const opened = app.workspace.mainLeaf.opened.at(-1);
    expect(opened?.file.path).toBe("Cells/Chloroplast.md");
    expect(opened?.state).toEqual({ eState: { line: 4 } });
    const body = JSON.parse(calls.find((c) => c.url.endsWith("/api/ask"))?.init?.body as string) as Record<string, unknown>;
    expect(body.question).toBe("What do chloroplasts hold?");
    expect(String(body.session_id)).toMatch(/^obsidian-/);
  });

  it("renders the answer through Obsidian's MarkdownRenderer: links open the note, [S1] is a chip", async () => {
    writeCompanionJson();
    await load();
    plugin.fetchImpl = (url, init) => url.endsWith("/api/ask") ? Promise.resolve(ndjson([
      { type: "metadata", data: { label: "S1", path: "Cells/Chloroplast.md", title: "Chloroplast", heading_path: ["Chloroplast"], line_start: 5, line_end: 9, snippet: "Holds **chlorophyll**." } },
      { type: "text", data: { text: "**Green**: chlorophyll [[Chloroplast#Pigments|Chloroplast › Pigments]]<!--cv:c" } },
      { type: "text", data: { text: "ite id=63e8b4962cfd15c8 h=fe49eb37-->. [S1]" } },
      { type: "done", data: {} },
    ])) : fakeCompanion(url, init);
    MarkdownRenderer.rendered = [];
    const view = (await plugin.openView(VIEW_CHAT))?.view as ChatView;
    await view.ask("Why green?");
    const answer = view.contentEl.querySelector(".cv-answer") as HTMLElement;
    // the comment never reaches the renderer, even while it streamed in two pieces
    expect(MarkdownRenderer.rendered.map((call) => call.markdown)).not.toContainEqual(expect.stringMatching(/<!--|<!-?$/));
    expect(MarkdownRenderer.rendered.at(-1)).toMatchObject({
      markdown: "**Green**: chlorophyll [[Chloroplast#Pigments|Chloroplast › Pigments]]. [S1]", component: view });
    expect(answer.querySelector("strong")?.textContent).toBe("Green");
    expect(answer.classList.contains("cv-streaming")).toBe(false);
    const link = answer.querySelector("a.internal-link:not(.cv-chip)") as HTMLAnchorElement;
    expect(link.textContent).toBe("Chloroplast › Pigments");
    link.click();
    expect(app.workspace.linksOpened.at(-1)).toEqual({ linktext: "Chloroplast#Pigments", sourcePath: "", newLeaf: false });
    const chip = answer.querySelector(".cv-chip") as HTMLAnchorElement;
    expect(chip.firstChild?.textContent).toBe("S1");
    expect(chip.querySelector(".cv-chip-passage")?.textContent).toBe("Holds chlorophyll.");
    chip.click();
    await flush();
    expect(app.workspace.mainLeaf.opened.at(-1)).toMatchObject({ state: { eState: { line: 4 } } });
    expect(app.workspace.linksOpened).toHaveLength(1); // the chip opened its source, not a link text
  });

  it("asks by voice: the microphone button records until pressed again, then the transcript is asked", async () => {
    writeCompanionJson();
    await load();
    const stopped: string[] = [];
    class FakeRecorder extends EventTarget {
      state = "inactive";
      mimeType = "audio/webm;codecs=opus";
      constructor(readonly stream: { getTracks(): { stop(): void }[] }) {
        super();
      }
      start() {
        this.state = "recording";
      }
      stop() {
        this.state = "inactive";
        this.dispatchEvent(Object.assign(new Event("dataavailable"), { data: new Blob(["spoken-question"]) }));
        this.dispatchEvent(new Event("stop"));
      }
    }
    vi.stubGlobal("MediaRecorder", FakeRecorder);
    vi.stubGlobal("navigator", { mediaDevices: { getUserMedia: (constraints: unknown) => {
      expect(constraints).toEqual({ audio: true });
      return Promise.resolve({ getTracks: () => [{ stop: () => stopped.push("track") }] });
    } } });
    try {
      const view = (await plugin.openView(VIEW_CHAT))?.view as ChatView;
      const mic = view.contentEl.querySelector("button.cv-mic") as HTMLButtonElement;
      mic.click();
      await vi.waitFor(() => expect(mic.classList.contains("cv-recording")).toBe(true));
      mic.click();
      await vi.waitFor(() => expect(view.contentEl.querySelector(".cv-turn .cv-answer p")?.firstChild?.textContent)
        .toBe("Chloroplasts hold chlorophyll. "));
      expect(view.contentEl.querySelector(".cv-turn .cv-question")?.textContent).toBe("What do chloroplasts hold?");
      expect(stopped).toEqual(["track"]); // the microphone is released
      expect(mic.classList.contains("cv-recording")).toBe(false);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("shows the start command in the chat view when the companion is missing", async () => {
    await load();
    const view = (await plugin.openView(VIEW_CHAT))?.view as ChatView;
    const state = await view.ask("Anything?");
    expect(state.error?.message).toContain("cognivault serve --vault");
    expect(view.contentEl.querySelector(".cv-error")?.textContent).toContain("cognivault serve --vault");
  });

  it("follows the active file in the related-notes pane", async () => {
    writeCompanionJson();
    await load();
    app.workspace.activeFile = new TFile("Cells/Cell.md");
    const view = (await plugin.openView(VIEW_RELATED))?.view as RelatedView;
    expect(view.current).toBe("Cells/Cell.md");
    expect(view.contentEl.querySelector(".cv-related-item a")?.textContent).toBe("Chloroplast");
    expect(calls.some((c) => c.url === `${ORIGIN}/api/related?path=Cells%2FCell.md&k=10`)).toBe(true);
    app.workspace.trigger("file-open", new TFile("Cells/Chloroplast.md"));
    await flush(10);
    expect(view.current).toBe("Cells/Chloroplast.md");
  });

  it("embeds the dashboard with a CSP for the companion origin only", async () => {
    writeCompanionJson();
    await load();
    const view = (await plugin.openView(VIEW_DASHBOARD, "tab"))?.view as DashboardView;
    const srcdoc = view.frame?.srcdoc ?? "";
    expect(srcdoc).toContain(`connect-src ${ORIGIN};`);
    expect(srcdoc).toMatch(/<script nonce="[A-Za-z0-9]{32}">go\(\)<\/script>/);
    expect(view.frame?.getAttribute("src")).toBeNull();
  });
});

describe("commands", () => {
  it.each(["flashcards", "quiz", "mindmap"])("generate-%s sends the current note and opens the new note", async (kind) => {
    writeCompanionJson();
    await load();
    expect(run(`generate-${kind}`)).toBe(false); // no active note: command unavailable
    app.workspace.activeFile = new TFile("Cells/Cell.md");
    const path = await plugin.generate(kind as "flashcards", new TFile("Cells/Cell.md") as never);
    expect(path).toBe(`Study/${kind}.md`);
    const body = JSON.parse(calls.find((c) => c.url.endsWith(`/api/generate/${kind}`))?.init?.body as string) as unknown;
    expect(body).toEqual({ note: "Cells/Cell.md" });
    expect(app.workspace.mainLeaf.opened.at(-1)?.file.path).toBe(`Study/${kind}.md`);
  });

  it("generates from the editor selection with its lines", async () => {
    writeCompanionJson();
    await load();
    const file = new TFile("Cells/Cell.md");
    app.workspace.activeFile = file;
    app.workspace.activeMarkdownView = new MarkdownView(file, {
      getSelection: () => "A cell.\nWith parts.",
      getCursor: (which: string) => ({ line: which === "from" ? 2 : 3, ch: 0 }),
    });
    plugin.settings.generationCount = 5;
    expect(run("generate-quiz")).toBe(true);
    await flush(50);
    const body = JSON.parse(calls.find((c) => c.url.endsWith("/api/generate/quiz"))?.init?.body as string) as unknown;
    expect(body).toEqual({ note: "Cells/Cell.md", selection: "A cell.\nWith parts.", lines: [3, 4], count: 5 });
  });

  it("reviews due cards in a modal", async () => {
    writeCompanionJson();
    await load();
    await plugin.reviewDue();
    const modal = Modal.opened.at(-1) as unknown as ReviewModal;
    expect(modal).toBeInstanceOf(ReviewModal);
    expect(modal.contentEl.querySelector(".cv-review-front")?.textContent).toBe("Q?");
    expect((modal.contentEl.querySelector(".cv-review-back") as HTMLElement).hidden).toBe(true);
    modal.contentEl.dispatchEvent(new KeyboardEvent("keydown", { key: " " }));
    expect((modal.contentEl.querySelector(".cv-review-back") as HTMLElement).hidden).toBe(false);
    (modal.contentEl.querySelector(".cv-grade-3") as HTMLButtonElement).click();
    await flush(10);
    const grade = calls.find((c) => c.url.endsWith("/api/review/aaaaaaaaaaaa-0"));
    expect(JSON.parse(grade?.init?.body as string)).toEqual({ rating: 3, path: "Study/flashcards.md" });
    expect(modal.contentEl.textContent).toContain("Done: 1 card reviewed");
  });

  it("explains when the companion cannot re-index on request", async () => {
    writeCompanionJson();
    await load();
    await plugin.reindex();
    expect(notices.at(-1)?.message).toContain("restart it");
  });
});
