/**
 * Command wiring against the fake `vscode` module: activation, every contributed command
 * registered, and each command driving the (fake) language server or companion.
 */

import { chmodSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as vscode from "vscode";

import { type FakeEditor, type FakePanel, Position, Selection, Uri, fakeDocument, mock } from "./mocks/vscode";

const lspCalls: { method: string; params: unknown }[] = [];
const lspAnswers: Record<string, (params: unknown) => unknown> = {};
const lspStarts: { command: { command: string; args: string[] }; initializationOptions: Record<string, unknown> }[] = [];

vi.mock("../src/lsp", () => ({
  createLspClient: (options: { command: { command: string; args: string[] }; initializationOptions: Record<string, unknown> }) => {
    lspStarts.push(options);
    return {
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
      sendNotification: (method: string, params: unknown) => {
        lspCalls.push({ method, params });
        return Promise.resolve();
      },
      sendRequest: (method: string, params: unknown) => {
        lspCalls.push({ method, params });
        const answer = lspAnswers[method];
        return answer ? Promise.resolve(answer(params)) : Promise.reject(new Error(`no fake answer for ${method}`));
      },
    };
  },
}));

// imported after vi.mock (hoisted): the extension gets the fake language client
const extension = await import("../src/extension");
const { ChatPanel } = await import("../src/chatPanel");
const { DashboardPanel } = await import("../src/dashboardPanel");

const TOKEN = "tok-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const ORIGIN = "http://127.0.0.1:45678";
const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf-8")) as {
  contributes: { commands: { command: string }[]; configuration: { properties: Record<string, { markdownDescription?: string; description?: string }> } };
};

let vault: string;
const transcribed: { route: string; bytes: Buffer }[] = [];
const fetchCalls: { url: string; init?: RequestInit }[] = [];

function ndjson(lines: unknown[]): Response {
  return new Response(lines.map((l) => JSON.stringify(l)).join("\n") + "\n", { status: 200 });
}

function fakeCompanion(url: string, init?: RequestInit): Promise<Response> {
  fetchCalls.push({ url, init });
  const auth = (init?.headers as Record<string, string> | undefined)?.Authorization;
  if (auth !== `Bearer ${TOKEN}`) {
    return Promise.resolve(new Response(JSON.stringify({ error: { code: "unauthorized", message: "missing or wrong token" } }), { status: 401 }));
  }
  const route = url.slice(ORIGIN.length);
  if (route === "/api/status") {
    return Promise.resolve(Response.json({ files: { total: 3 } }));
  }
  if (route === "/api/transcribe?name=question.wav" || route === "/api/transcribe?name=spoken.ogg") {
    return (init?.body as Blob).arrayBuffer().then((body) => {
      transcribed.push({ route, bytes: Buffer.from(body) });
      return Response.json({ text: " What do plants make? ", language: "en", duration_s: 1.5, segments: [] });
    });
  }
  if (route === "/api/ask") {
    return Promise.resolve(ndjson([
      { type: "thinking", data: { text: "checking notes" } },
      { type: "confidence", data: { label: "high", reason: "covered" } },
      { type: "text", data: { text: "Plants make sugar. " } },
      { type: "metadata", data: { label: "S1", path: "Photosynthesis.md", title: "Photosynthesis", heading_path: ["Photosynthesis"], line_start: 3, line_end: 10, snippet: "…" } },
      { type: "text", data: { text: "[S1]" } },
      { type: "done", data: { answer: "Plants make sugar. [S1]", citations: [] } },
    ]));
  }
  if (route.startsWith("/api/generate/")) {
    const kind = route.split("/").pop();
    return Promise.resolve(ndjson([
      { type: "progress", data: { stage: "retrieve", message: "finding passages" } },
      { type: "progress", data: { stage: "write", message: "writing the note" } },
      { type: "done", data: { kind, path: `Study/${kind} - Photosynthesis.md` } },
    ]));
  }
  if (route === "/dashboard") {
    return Promise.resolve(new Response("<!doctype html><html><head><title>Dashboard</title></head><body><script>boot()</script></body></html>",
      { status: 200, headers: { "Content-Type": "text/html" } }));
  }
  if (route.startsWith("/api/review/due")) {
    return Promise.resolve(Response.json({ due: [
      { id: "0123456789ab-0", path: "Study/F.md", title: "F", front: "Q1?", back: "A1" },
      { id: "0123456789ab-1", path: "Study/F.md", title: "F", front: "Q2?", back: "A2" },
    ] }));
  }
  if (route.startsWith("/api/review/")) {
    return Promise.resolve(Response.json({ ok: true }));
  }
  return Promise.resolve(new Response("{}", { status: 404 }));
}

function writeCompanionJson(): void {
  mkdirSync(path.join(vault, ".cognivault"), { recursive: true });
  writeFileSync(path.join(vault, ".cognivault", "companion.json"), JSON.stringify({ url: ORIGIN, token: TOKEN, pid: 1, vault }));
}

function openEditor(relative: string, text: string, selection?: Selection): FakeEditor {
  const editor: FakeEditor = {
    document: fakeDocument(Uri.file(path.join(vault, relative)), text),
    selection: selection ?? new Selection(new Position(0, 0), new Position(0, 0)),
    revealRange: vi.fn(),
  };
  mock.activeEditor = editor;
  return editor;
}

const contexts: { subscriptions: { dispose(): unknown }[] }[] = [];

function context(): vscode.ExtensionContext {
  const created = { subscriptions: [] as { dispose(): unknown }[], extensionUri: Uri.file("/ext") };
  contexts.push(created);
  return created as unknown as vscode.ExtensionContext;
}

async function activateVault(): Promise<Awaited<ReturnType<typeof extension.activate>>> {
  mock.workspaceFolders = [{ uri: Uri.file(vault), name: "vault", index: 0 }];
  mock.directory = [[".obsidian", 2], ["Photosynthesis.md", 1]];
  mock.markdownFiles = 5;
  return extension.activate(context());
}

function venvCli(): string {
  return path.join(vault, ".venv", "bin", "cognivault");
}

function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

beforeEach(() => {
  mock.reset();
  lspCalls.length = 0;
  lspStarts.length = 0;
  fetchCalls.length = 0;
  transcribed.length = 0;
  for (const key of Object.keys(lspAnswers)) {
    delete lspAnswers[key];
  }
  lspAnswers["cognivault/status"] = () => ({ vault, indexing: { phase: "ready", stage: "", done: 0, total: 0, current: "", summary: "3 indexed", errors: [] }, index: { files: { indexed: 3 } } });
  vault = mkdtempSync(path.join(tmpdir(), "cognivault-vscode-"));
  // CogniVault installed in the workspace's virtual environment (found before pipx and PATH)
  mkdirSync(path.join(vault, ".venv", "bin"), { recursive: true });
  writeFileSync(venvCli(), "#!/bin/sh\n");
  chmodSync(venvCli(), 0o755);
  vi.stubGlobal("fetch", fakeCompanion);
  ChatPanel.current = undefined;
  DashboardPanel.current = undefined;
});

afterEach(async () => {
  await extension.deactivate();
  for (const created of contexts.splice(0)) {
    for (const subscription of created.subscriptions) {
      subscription.dispose();
    }
  }
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  rmSync(vault, { recursive: true, force: true });
});

describe("activation", () => {
  it("registers every contributed command and starts the language server in a vault", async () => {
    const api = await activateVault();
    expect(api.active).toBe(true);
    expect(mock.context.get("cognivault.active")).toBe(true);
    const contributed = packageJson.contributes.commands.map((c) => c.command).sort();
    expect([...mock.commands.keys()].sort()).toEqual(contributed);
    expect(Object.values(extension.COMMANDS).sort()).toEqual(contributed);
    expect(lspStarts).toHaveLength(1);
    expect(lspStarts[0].command).toEqual({ command: venvCli(), args: ["lsp", "--vault", vault] });
    expect(lspStarts[0].initializationOptions).toMatchObject({ vault });
    expect(mock.treeProviders.has("cognivault.related")).toBe(true);
  });

  it("stays idle (no server) in a folder that is not a vault, and says why on commands", async () => {
    mock.workspaceFolders = [{ uri: Uri.file(vault), name: "code", index: 0 }];
    mock.directory = [["package.json", 1], ["README.md", 1]];
    mock.markdownFiles = 10;
    const api = await extension.activate(context());
    expect(api.active).toBe(false);
    expect(lspStarts).toHaveLength(0);
    expect(mock.commands.size).toBe(packageJson.contributes.commands.length);
    await vscode.commands.executeCommand("cognivault.searchVault");
    expect(mock.messages.at(-1)?.text).toContain("open a vault");
  });

  it("describes every setting, including provider, models, study folder and the companion switch", () => {
    const properties = packageJson.contributes.configuration.properties;
    for (const key of ["cognivault.embedding.provider", "cognivault.models.chatModel", "cognivault.study.folder",
      "cognivault.companion.enabled", "cognivault.server.command", "cognivault.server.pythonPath"]) {
      expect(properties[key], key).toBeDefined();
    }
    for (const [key, value] of Object.entries(properties)) {
      expect((value.markdownDescription ?? value.description ?? "").length, key).toBeGreaterThan(20);
    }
  });

  it("shows index progress in the status bar", async () => {
    lspAnswers["cognivault/status"] = () => ({ vault, indexing: { phase: "indexing", stage: "read", done: 4, total: 20, current: "a.md", summary: "", errors: [] } });
    const api = await activateVault();
    await api.statusBar?.poll();
    expect(mock.statusItems[0].text).toBe("$(sync~spin) CogniVault reading 4/20");
    expect(mock.statusItems[0].command).toBe("cognivault.showStatus");
  });

  it("sends changed settings to the server and restarts it when the command changes", async () => {
    await activateVault();
    mock.config["cognivault.study.folder"] = "Karten";
    mock.configListeners.fire({ affectsConfiguration: (s) => s === "cognivault" || s === "cognivault.study.folder" });
    await flush();
    expect(lspCalls.at(-1)).toEqual({ method: "workspace/didChangeConfiguration",
      params: { settings: expect.objectContaining({ study: { folder: "Karten" } }) as unknown } });
    mock.config["cognivault.server.command"] = "/opt/cv/bin/cognivault";
    mock.configListeners.fire({ affectsConfiguration: (s) => s === "cognivault" || s === "cognivault.server.command" });
    await flush();
    await flush();
    expect(lspStarts.at(-1)?.command.command).toBe("/opt/cv/bin/cognivault");
  });
});

describe("webviews in a browser-hosted VS Code", () => {
  it("registers the page's origin (from asExternalUri) only when VS Code runs in a browser", async () => {
    mock.externalUri = () => ({ toString: () => "http://127.0.0.1:8080/proxy/1/" }) as unknown as Uri;
    expect(await extension.webviewHostOrigins()).toEqual([]);
    mock.uiKind = vscode.UIKind.Web;
    expect(await extension.webviewHostOrigins()).toEqual(["http://127.0.0.1:8080"]);
    mock.externalUri = () => ({ toString: () => "http://127.0.0.1:1" }) as unknown as Uri;
    expect(await extension.webviewHostOrigins()).toEqual([]);
  });
});

describe("finding the cognivault executable", () => {
  it("with none in the .venv, pipx's folder or PATH, offers the chooser, which sets the command and starts the server", async () => {
    rmSync(path.join(vault, ".venv"), { recursive: true });
    vi.stubEnv("PIPX_BIN_DIR", path.join(vault, "no-pipx"));
    vi.stubEnv("PATH", path.join(vault, "empty-path"));
    mock.messageAnswers.push(extension.CHOOSE_EXECUTABLE);
    const chosen = path.join(vault, "elsewhere", "cognivault");
    mock.openDialogAnswers.push([Uri.file(chosen)]);
    await activateVault();
    await flush();
    await flush();
    const error = mock.messages.find((m) => m.level === "error");
    expect(error?.text).toContain("cognivault was not found");
    expect(error?.items).toEqual([extension.CHOOSE_EXECUTABLE]);
    expect(mock.openDialogCalls[0]).toMatchObject({ canSelectFiles: true, canSelectMany: false });
    expect(mock.config["cognivault.server.command"]).toBe(chosen);
    await flush();
    expect(lspStarts.map((start) => start.command.command)).toEqual([chosen]);
  });

  it("uses pipx's bin folder when the workspace has no .venv", async () => {
    rmSync(path.join(vault, ".venv"), { recursive: true });
    const pipx = path.join(vault, "pipx-bin");
    mkdirSync(pipx);
    writeFileSync(path.join(pipx, "cognivault"), "#!/bin/sh\n");
    chmodSync(path.join(pipx, "cognivault"), 0o755);
    vi.stubEnv("PIPX_BIN_DIR", pipx);
    await activateVault();
    expect(lspStarts[0].command.command).toBe(path.join(pipx, "cognivault"));
  });
});

describe("search and related notes (language server)", () => {
  it("fills the quick pick live from cognivault/search and opens the chosen passage", async () => {
    lspAnswers["cognivault/search"] = (params) => ({ results: [{ uri: Uri.file(path.join(vault, "Photosynthesis.md")).toString(),
      path: "Photosynthesis.md", title: "Photosynthesis", headingPath: ["Photosynthesis", "Light"], snippet: "chlorophyll  absorbs",
      score: 1, range: { start: { line: 4, character: 0 }, end: { line: 9, character: 3 } }, query: params }] });
    await activateVault();
    const done = vscode.commands.executeCommand("cognivault.searchVault");
    await flush();
    const pick = mock.quickPicks[0];
    pick.type("chloro");
    pick.type("chlorophyll");
    await new Promise((resolve) => setTimeout(resolve, 250));
    const searches = lspCalls.filter((c) => c.method === "cognivault/search");
    expect(searches).toEqual([{ method: "cognivault/search", params: { query: "chlorophyll", k: 20, mode: "hybrid" } }]);
    expect(pick.items).toMatchObject([{ label: "$(markdown) Photosynthesis", description: "Light", detail: "chlorophyll absorbs", alwaysShow: true }]);
    pick.accept(0);
    await done;
    await flush();
    expect(mock.opened.at(-1)?.uri.fsPath).toBe(path.join(vault, "Photosynthesis.md"));
    expect(mock.opened.at(-1)?.selection?.start.line).toBe(4);
  });

  it("shows the related notes of the active note in the tree view", async () => {
    lspAnswers["cognivault/related"] = () => ({ related: [{ uri: Uri.file(path.join(vault, "Calvin cycle.md")).toString(),
      path: "Calvin cycle.md", title: "Calvin cycle", score: 0.7, reasons: ["links here"], why: ["linked"] }] });
    const api = await activateVault();
    openEditor("Photosynthesis.md", "# Photosynthesis\n");
    await vscode.commands.executeCommand("cognivault.relatedNotes");
    expect(mock.executed.some((e) => e.command === "cognivault.related.focus")).toBe(true);
    const related = lspCalls.filter((c) => c.method === "cognivault/related");
    expect(related.at(-1)?.params).toMatchObject({ uri: Uri.file(path.join(vault, "Photosynthesis.md")).toString() });
    const provider = api.related;
    const nodes = provider?.getChildren() ?? [];
    expect(nodes).toHaveLength(1);
    const item = provider?.getTreeItem(nodes[0]);
    expect(item).toMatchObject({ label: "Calvin cycle", description: "linked" });
    expect(item?.command?.command).toBe("vscode.open");
  });

  it("says so above the related notes while the vault is indexed or the note is not yet", async () => {
    lspAnswers["cognivault/related"] = () => ({ related: [], noteIndexed: false, indexing: { done: 3, total: 40 } });
    const api = await activateVault();
    openEditor("Photosynthesis.md", "# Photosynthesis\n");
    await vscode.commands.executeCommand("cognivault.relatedNotes");
    const provider = api.related;
    const labels = (provider?.getChildren() ?? []).map((node) => provider?.getTreeItem(node).label);
    expect(labels).toEqual(["Indexing the vault (3 of 40): related notes may be incomplete"]);
    lspAnswers["cognivault/related"] = () => ({ related: [], noteIndexed: false });
    openEditor("Calvin cycle.md", "# Calvin cycle\n");
    await vscode.commands.executeCommand("cognivault.relatedNotes");
    expect((provider?.getChildren() ?? []).map((node) => provider?.getTreeItem(node).label))
      .toEqual(["This note is not indexed yet: related notes from its words and links"]);
  });

  it("reports the index status and can re-index", async () => {
    lspAnswers["cognivault/reindex"] = () => ({ started: true });
    await activateVault();
    mock.messageAnswers.push("Re-index");
    await vscode.commands.executeCommand("cognivault.showStatus");
    expect(mock.messages.at(-1)?.text).toContain("ready — 3 indexed");
    expect(mock.output.some((line) => line.includes("Phase: ready"))).toBe(true);
    expect(lspCalls.some((c) => c.method === "cognivault/reindex")).toBe(true);
  });
});

describe("companion commands", () => {
  function panelOf(viewType: string): FakePanel {
    const panel = mock.panels.find((p) => p.viewType === viewType);
    if (!panel) {
      throw new Error(`no ${viewType} panel`);
    }
    return panel;
  }

  it("asks the vault: the chat webview gets the streamed envelopes and opens sources at their lines", async () => {
    writeCompanionJson();
    await activateVault();
    mock.inputAnswers.push("What is photosynthesis?");
    const asking = vscode.commands.executeCommand("cognivault.askVault");
    await flush();
    const panel = panelOf("cognivault.chat");
    panel.webview.receive({ type: "ready" });
    await asking;
    const csp = /Content-Security-Policy" content="([^"]+)"/.exec(panel.webview.html)?.[1] ?? "";
    expect(csp).toContain("default-src &#39;none&#39;");
    expect(csp).toContain("connect-src &#39;none&#39;");
    expect(panel.webview.html).not.toContain(TOKEN);
    const posted = panel.webview.posted as { type: string; envelope?: { type: string } }[];
    expect(posted[0]).toEqual({ type: "turn", id: 1, question: "What is photosynthesis?" });
    expect(posted.filter((m) => m.type === "envelope").map((m) => m.envelope?.type))
      .toEqual(["thinking", "confidence", "text", "metadata", "text", "done"]);
    const ask = fetchCalls.find((c) => c.url.endsWith("/api/ask"));
    expect(JSON.parse(ask?.init?.body as string)).toMatchObject({ question: "What is photosynthesis?" });

    panel.webview.receive({ type: "open", path: "Photosynthesis.md", lineStart: 3, lineEnd: 10 });
    await flush();
    const opened = mock.opened.at(-1);
    expect(opened?.uri.fsPath).toBe(path.join(vault, "Photosynthesis.md"));
    expect(opened?.selection?.start.line).toBe(2);
    expect(opened?.selection?.end.line).toBe(9);
    panel.webview.receive({ type: "open", path: "../outside.md", lineStart: 1, lineEnd: 1 });
    await flush();
    expect(mock.opened.at(-1)).toBe(opened);
    expect(mock.output.join("\n")).not.toContain(TOKEN);
  });

  /** Runs "Ask by voice" with `which` finding the recorders, until the chat asked the transcript. */
  async function askByVoice(which: (program: string) => string | null): Promise<void> {
    const saved = { ...extension.voiceDeps };
    extension.voiceDeps.which = which;
    try {
      const asking = vscode.commands.executeCommand("cognivault.askByVoice");
      await vi.waitFor(() => expect(mock.panels.some((p) => p.viewType === "cognivault.chat")).toBe(true), { timeout: 10_000 });
      panelOf("cognivault.chat").webview.receive({ type: "ready" });
      await asking;
    } finally {
      Object.assign(extension.voiceDeps, saved);
    }
  }

  it("asks by voice: records with arecord until it stops, transcribes, and asks the transcript", async () => {
    writeCompanionJson();
    await activateVault();
    // a stand-in for arecord at the process boundary: writes a WAV into its last argument and exits
    const recorder = path.join(vault, "fake-arecord");
    writeFileSync(recorder, `#!/bin/sh\nfor last in "$@"; do :; done\necho "$*" > "${vault}/recorder-args"\n` +
      `printf 'RIFF----WAVEfmt ' > "$last"\nhead -c 400 /dev/zero >> "$last"\n`);
    chmodSync(recorder, 0o755);
    await askByVoice((program) => (program === "arecord" ? recorder : null));
    expect(readFileSync(path.join(vault, "recorder-args"), "utf-8")).toMatch(/^-q -f S16_LE -c 1 -r 16000 -d 120 \/.*question\.wav\n$/);
    expect(transcribed).toHaveLength(1);
    expect(transcribed[0].bytes.subarray(0, 4).toString()).toBe("RIFF");
    expect(transcribed[0].bytes.length).toBe(416);
    const ask = fetchCalls.find((c) => c.url.endsWith("/api/ask"));
    expect(JSON.parse(ask?.init?.body as string)).toMatchObject({ question: "What do plants make?" });
  });

  it("asks by voice from an audio file when no recorder is installed", async () => {
    writeCompanionJson();
    await activateVault();
    const audio = path.join(vault, "spoken.ogg");
    writeFileSync(audio, Buffer.from("OggS-some-audio"));
    mock.openDialogAnswers.push([Uri.file(audio)]);
    await askByVoice(() => null);
    expect(mock.openDialogCalls[0]).toMatchObject({ filters: { Audio: expect.arrayContaining(["wav", "ogg", "webm"]) as unknown } });
    expect(transcribed.map((t) => [t.route, t.bytes.toString()])).toEqual([["/api/transcribe?name=spoken.ogg", "OggS-some-audio"]]);
    expect(JSON.parse(fetchCalls.find((c) => c.url.endsWith("/api/ask"))?.init?.body as string))
      .toMatchObject({ question: "What do plants make?" });
  });

  it("tells the user how to start the companion when none runs and auto-start is off", async () => {
    mock.config["cognivault.companion.enabled"] = false;
    await activateVault();
    mock.inputAnswers.push("Why?");
    const asking = vscode.commands.executeCommand("cognivault.askVault");
    await flush();
    const panel = panelOf("cognivault.chat");
    panel.webview.receive({ type: "ready" });
    await asking;
    const error = (panel.webview.posted as { envelope?: { type: string; data: { message: string } } }[])
      .find((m) => m.envelope?.type === "error");
    expect(error?.envelope?.data.message).toContain(`cognivault serve --vault ${vault}`);
  });

  it.each([
    ["cognivault.generateFlashcards", "flashcards"],
    ["cognivault.generateQuiz", "quiz"],
    ["cognivault.generateMindmap", "mindmap"],
  ])("%s generates from the current note and opens the new note", async (command, kind) => {
    writeCompanionJson();
    await activateVault();
    openEditor("Photosynthesis.md", "# Photosynthesis\nLight is absorbed.\n");
    await vscode.commands.executeCommand(command);
    const call = fetchCalls.find((c) => c.url.endsWith(`/api/generate/${kind}`));
    expect(JSON.parse(call?.init?.body as string)).toEqual({ note: "Photosynthesis.md" });
    expect(mock.progress).toEqual(["finding passages", "writing the note"]);
    expect(mock.opened.at(-1)?.uri.fsPath).toBe(path.join(vault, "Study", `${kind} - Photosynthesis.md`));
  });

  it("generates from the selection with its line span", async () => {
    writeCompanionJson();
    await activateVault();
    openEditor("Photosynthesis.md", "# Photosynthesis\nLight is absorbed.\nBy chlorophyll.\n",
      new Selection(new Position(1, 0), new Position(2, 15)));
    await vscode.commands.executeCommand("cognivault.generateQuiz");
    const call = fetchCalls.find((c) => c.url.endsWith("/api/generate/quiz"));
    expect(JSON.parse(call?.init?.body as string)).toEqual({ note: "Photosynthesis.md",
      selection: "Light is absorbed.\nBy chlorophyll.", lines: [2, 3] });
  });

  it("refuses to generate from a file outside the vault", async () => {
    writeCompanionJson();
    await activateVault();
    mock.activeEditor = { document: fakeDocument(Uri.file("/elsewhere/x.md"), "x"), selection: new Selection(new Position(0, 0), new Position(0, 0)), revealRange: vi.fn() };
    await vscode.commands.executeCommand("cognivault.generateFlashcards");
    expect(fetchCalls.some((c) => c.url.includes("/api/generate/"))).toBe(false);
    expect(mock.messages.at(-1)?.level).toBe("warning");
  });

  it("reviews due cards with quick picks and grades them", async () => {
    writeCompanionJson();
    await activateVault();
    mock.quickPickAnswers.push(
      (items) => items[0], (items) => items.find((i) => i.label.includes("Good")),
      (items) => items[0], (items) => items.find((i) => i.label.includes("Again")));
    await vscode.commands.executeCommand("cognivault.reviewDue");
    expect(mock.quickPickCalls[0].options.placeHolder).toBe("Q1?");
    expect(mock.quickPickCalls[1].options.placeHolder).toBe("A1");
    const grades = fetchCalls.filter((c) => /\/api\/review\/0123456789ab-\d$/.test(c.url));
    expect(grades.map((c) => JSON.parse(c.init?.body as string) as unknown)).toEqual([
      { rating: 3, path: "Study/F.md" }, { rating: 1, path: "Study/F.md" }]);
    expect(mock.messages.at(-1)?.text).toContain("2 cards reviewed");
  });

  it("opens the dashboard in a webview whose CSP allows only the companion origin", async () => {
    writeCompanionJson();
    await activateVault();
    await vscode.commands.executeCommand("cognivault.openDashboard");
    const panel = panelOf("cognivault.dashboard");
    const html = panel.webview.html;
    const csp = /Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(csp).toContain(`connect-src ${ORIGIN};`);
    expect(csp.match(/https?:\/\/[^\s;]+/g)).toEqual([ORIGIN]);
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9]{32}'/);
    expect(html).toMatch(/<script nonce="[A-Za-z0-9]{32}">boot\(\)<\/script>/);
    expect(panel.options).toMatchObject({ enableScripts: true, localResourceRoots: [] });
    expect(mock.output.join("\n")).not.toContain(TOKEN);
  });
});
