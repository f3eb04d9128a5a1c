import { describe, expect, it, vi } from "vitest";

import {
  CompanionClient, CompanionError, applyEnvelope, embedDashboard, isLoopbackUrl, newAnswer, parseCompanionInfo,
  redact, startCommand,
} from "../../shared/companion";

const TOKEN = "s3cr3t-token-value";
const INFO = { url: "http://127.0.0.1:40123", token: TOKEN, pid: 42 };

function ndjsonResponse(lines: unknown[]): Response {
  return new Response(lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
    { status: 200, headers: { "Content-Type": "application/x-ndjson" } });
}

describe("companion discovery", () => {
  it("parses companion.json and refuses non-loopback URLs", () => {
    expect(parseCompanionInfo(JSON.stringify({ ...INFO, vault: "/v" }))).toEqual({ ...INFO, vault: "/v" });
    expect(parseCompanionInfo(JSON.stringify({ ...INFO, url: "http://example.com:80" }))).toBeNull();
    expect(parseCompanionInfo(JSON.stringify({ ...INFO, url: "https://127.0.0.1:1" }))).toBeNull();
    expect(parseCompanionInfo(JSON.stringify({ url: INFO.url }))).toBeNull();
    expect(parseCompanionInfo("{broken")).toBeNull();
    expect(isLoopbackUrl("http://[::1]:8080")).toBe(true);
    expect(isLoopbackUrl("http://localhost:8080")).toBe(true);
    expect(isLoopbackUrl("http://user:pw@127.0.0.1:8080")).toBe(false);
  });

  it("tells the user the exact start command", () => {
    expect(startCommand("/home/me/vault")).toBe("cognivault serve --vault /home/me/vault");
    expect(startCommand("/home/me/My Vault")).toBe('cognivault serve --vault "/home/me/My Vault"');
  });
});

describe("CompanionClient", () => {
  it("sends the bearer token and streams /api/ask envelopes", async () => {
    const fetch = vi.fn((..._args: [string, RequestInit?]) => Promise.resolve(ndjsonResponse([
      { type: "text", data: { text: "Hi " } }, { type: "done", data: { answer: "Hi" } }])));
    const client = new CompanionClient(INFO, fetch);
    const types = [];
    for await (const envelope of client.ask("What?", { sessionId: "s1" })) {
      types.push(envelope.type);
    }
    expect(types).toEqual(["text", "done"]);
    const [url, init] = fetch.mock.calls[0];
    expect(url).toBe("http://127.0.0.1:40123/api/ask");
    expect((init?.headers as Record<string, string>).Authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(init?.body as string)).toEqual({ question: "What?", session_id: "s1" });
  });

  it("turns HTTP errors into CompanionError without the token", async () => {
    const fetch = vi.fn(() => Promise.resolve(new Response(
      JSON.stringify({ error: { code: "unauthorized", message: `missing or wrong token ${TOKEN}` } }), { status: 401 })));
    const client = new CompanionClient(INFO, fetch);
    const error = await client.status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CompanionError);
    expect((error as CompanionError).status).toBe(401);
    expect((error as CompanionError).code).toBe("unauthorized");
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it("reports an unreachable companion", async () => {
    const client = new CompanionClient(INFO, () => Promise.reject(new Error("ECONNREFUSED")));
    await expect(client.status()).rejects.toMatchObject({ code: "unreachable" });
  });

  it("runs a generation to the written note and surfaces error envelopes", async () => {
    const progress: string[] = [];
    const ok = new CompanionClient(INFO, () => Promise.resolve(ndjsonResponse([
      { type: "progress", data: { stage: "retrieve", message: "finding passages" } },
      { type: "done", data: { kind: "flashcards", path: "Study/Flashcards - A.md" } }])));
    await expect(ok.generateNote("flashcards", { note: "A.md" }, (m) => progress.push(m)))
      .resolves.toMatchObject({ path: "Study/Flashcards - A.md" });
    expect(progress).toEqual(["finding passages"]);
    const failing = new CompanionClient(INFO, () => Promise.resolve(ndjsonResponse([
      { type: "error", data: { code: "unknown_note", message: "no indexed note matches 'X.md'" } }])));
    await expect(failing.generateNote("quiz", { note: "X.md" }, () => undefined))
      .rejects.toMatchObject({ code: "unknown_note", message: "no indexed note matches 'X.md'" });
  });

  it("refuses to talk to anything but loopback", () => {
    expect(() => new CompanionClient({ url: "http://10.0.0.1:1", token: "t" })).toThrow(CompanionError);
  });

  it("uploads a recording for transcription as raw bytes", async () => {
    const fetch = vi.fn((..._args: [string, RequestInit?]) => Promise.resolve(Response.json(
      { text: "What is photosynthesis?", language: "en", duration_s: 2.5, segments: [] })));
    const client = new CompanionClient(INFO, fetch);
    const recording = new Blob([new Uint8Array([26, 69, 223, 163])], { type: "audio/webm" });
    await expect(client.transcribe(recording, "my question.webm")).resolves.toMatchObject(
      { text: "What is photosynthesis?", language: "en" });
    const [url, init] = fetch.mock.calls[0];
    expect(url).toBe("http://127.0.0.1:40123/api/transcribe?name=my%20question.webm");
    expect((init?.headers as Record<string, string>)["Content-Type"]).toBe("application/octet-stream");
    expect(init?.body).toBe(recording);
    const unavailable = new CompanionClient(INFO, () => Promise.resolve(Response.json({ error: {
      code: "transcription_unavailable", message: "cannot transcribe here: set index.whisper_model_dir" } },
    { status: 503 })));
    await expect(unavailable.transcribe(recording, "q.webm")).rejects.toMatchObject(
      { status: 503, code: "transcription_unavailable" });
  });

  it("explains a companion without a re-index route", async () => {
    const client = new CompanionClient(INFO, () => Promise.resolve(new Response("{}", { status: 404 })));
    await expect(client.reindex()).rejects.toMatchObject({ code: "unsupported" });
  });
});

describe("answer state", () => {
  it("folds envelopes into reasoning, text, sources, confidence and the final answer", () => {
    const state = newAnswer();
    applyEnvelope(state, { type: "thinking", data: { text: "Look at S1. " } });
    applyEnvelope(state, { type: "confidence", data: { label: "high", reason: "covered" } });
    applyEnvelope(state, { type: "text", data: { text: "Plants make sugar. " } });
    applyEnvelope(state, { type: "metadata", data: { label: "S1", path: "P.md", title: "P", heading_path: ["P", "Where"],
      line_start: 3, line_end: 10, snippet: "…" } });
    applyEnvelope(state, { type: "metadata", data: { label: "S1", path: "P.md" } });
    applyEnvelope(state, { type: "text", data: { text: "[S1]" } });
    applyEnvelope(state, { type: "memory", data: {} });
    applyEnvelope(state, { type: "done", data: { answer: "Plants make sugar. [S1]", session_id: "s" } });
    expect(state).toMatchObject({ thinking: "Look at S1. ", text: "Plants make sugar. [S1]", done: true, error: null,
      confidence: { label: "high", reason: "covered" }, sessionId: "s" });
    expect(state.sources).toEqual([{ label: "S1", path: "P.md", title: "P", headingPath: ["P", "Where"], lineStart: 3,
      lineEnd: 10, snippet: "…" }]);
  });

  it("shows the last confidence: the rule's label at once, then the one the answer's quotes support", () => {
    const state = newAnswer();
    applyEnvelope(state, { type: "confidence", data: { label: "high", reason: "covered" } });
    expect(state.confidence).toEqual({ label: "high", reason: "covered" });
    applyEnvelope(state, { type: "confidence", data: { label: "medium", reason: "its first quote states 40%" } });
    applyEnvelope(state, { type: "text", data: { text: "Quoted. [S1]" } });
    expect(state.confidence).toEqual({ label: "medium", reason: "its first quote states 40%" });
  });

  it("records an error envelope", () => {
    const state = applyEnvelope(newAnswer(), { type: "error", data: { code: "no_model", message: "start Ollama" } });
    expect(state).toMatchObject({ done: true, error: { code: "no_model", message: "start Ollama" } });
  });
});

describe("dashboard embedding", () => {
  const page = "<!doctype html><html><head><title>d</title></head><body><script>var x = 1;</script></body></html>";

  it("allows connections to the companion origin only and nonces every script", () => {
    const html = embedDashboard(page, { origin: "http://127.0.0.1:40123", token: TOKEN, nonce: "N0NCE" });
    const csp = /Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src http://127.0.0.1:40123;");
    expect(csp).toContain("script-src 'nonce-N0NCE'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(html).toContain('<script nonce="N0NCE">var x = 1;</script>');
    expect(html).toContain('window.COGNIVAULT_BASE="http://127.0.0.1:40123"');
    expect(html.indexOf("COGNIVAULT_TOKEN")).toBeLessThan(html.indexOf("var x = 1"));
  });

  it("refuses a non-loopback origin", () => {
    expect(() => embedDashboard(page, { origin: "https://evil.example", token: TOKEN, nonce: "n" })).toThrow();
  });

  it("redacts secrets", () => {
    expect(redact(`a ${TOKEN} b ${TOKEN}`, TOKEN)).toBe("a «token» b «token»");
    expect(redact("plain", undefined)).toBe("plain");
  });
});
