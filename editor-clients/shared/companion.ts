/**
 * A small client for the CogniVault companion (`cognivault serve`), shared by the editor clients.
 *
 * The companion listens on 127.0.0.1 only and wants `Authorization: Bearer <token>` on every call.
 * The token is never put in a URL, an error message or a log line by this module: errors carry
 * the HTTP status and the companion's `{error: {code, message}}` only.
 */

import { type Envelope, errorOf, readNdjson } from "./ndjson";

export interface CompanionInfo {
  url: string;
  token: string;
  pid?: number;
  vault?: string;
}

export const START_HINT = "cognivault serve --vault";

/** The command that starts a companion for `vault` (told to the user when none is running). */
export function startCommand(vault: string): string {
  const quoted = /[\s"'$`\\]/.test(vault) ? `"${vault.replace(/(["$`\\])/g, "\\$1")}"` : vault;
  return `${START_HINT} ${quoted}`;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** `http://127.0.0.1:PORT` style URLs only: the token must never travel anywhere else. */
export function isLoopbackUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === "http:" && LOOPBACK.has(parsed.hostname) && parsed.username === "" &&
    parsed.password === "";
}

/** The origin (`http://127.0.0.1:PORT`) of a companion URL, or null when it is not loopback. */
export function loopbackOrigin(url: string): string | null {
  return isLoopbackUrl(url) ? new URL(url).origin : null;
}

/** `<vault>/.cognivault/companion.json` → connection details, or null when unusable. */
export function parseCompanionInfo(text: string): CompanionInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object") {
    return null;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.url !== "string" || typeof record.token !== "string" || !record.token) {
    return null;
  }
  if (!isLoopbackUrl(record.url)) {
    return null;
  }
  return {
    url: record.url.replace(/\/+$/, ""),
    token: record.token,
    pid: typeof record.pid === "number" ? record.pid : undefined,
    vault: typeof record.vault === "string" ? record.vault : undefined,
  };
}

/** Replace every occurrence of secret in text (for anything that might end up in a log). */
export function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join("«token»") : text;
}

export class CompanionError extends Error {
  constructor(message: string, readonly status: number, readonly code: string) {
    super(message);
    this.name = "CompanionError";
  }
}

export type GenerateKind = "flashcards" | "quiz" | "mindmap";

export interface GenerateRequest {
  note?: string;
  selection?: string;
  lines?: [number, number];
  topic?: string;
  count?: number;
}

export interface GenerateResult {
  kind: string;
  path: string;
  title?: string;
  warnings?: string[];
}

export interface SearchHit {
  path: string;
  title: string;
  heading_path: string[];
  line_start: number;
  line_end: number;
  snippet: string;
  score: number;
}

export interface RelatedNote {
  path: string;
  title: string;
  score: number;
  reasons: string[];
}

export interface DueCard {
  id: string;
  path: string;
  title?: string;
  front: string;
  back: string;
  decks?: string[];
  line?: number;
  is_new?: boolean;
}

/** `POST /api/transcribe`: the spoken question as text. */
export interface Transcript {
  text: string;
  language: string | null;
  duration_s: number | null;
  segments: { time: string; text: string }[];
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export class CompanionClient {
  readonly url: string;

  constructor(private readonly info: CompanionInfo, private readonly fetchImpl: FetchLike = (i, o) => fetch(i, o)) {
    if (!isLoopbackUrl(info.url)) {
      throw new CompanionError("the companion URL must be http://127.0.0.1:PORT (loopback)", 0, "not_loopback");
    }
    this.url = info.url.replace(/\/+$/, "");
  }

  get origin(): string {
    return new URL(this.url).origin;
  }

  /** For embedding the dashboard only (it needs the token to call the API). */
  get token(): string {
    return this.info.token;
  }

  private async request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.info.token}` };
    const raw = body instanceof Blob;  // an upload (a recording): sent as it is
    if (body !== undefined) {
      headers["Content-Type"] = raw ? "application/octet-stream" : "application/json";
    }
    let response: Response;
    try {
      response = await this.fetchImpl(this.url + path, {
        method, headers, body: body === undefined ? undefined : raw ? body : JSON.stringify(body), signal,
      });
    } catch (error) {
      if (signal?.aborted) {
        throw new CompanionError("cancelled", 0, "cancelled");
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new CompanionError(`cannot reach the companion at ${this.url}: ${redact(reason, this.info.token)}`,
        0, "unreachable");
    }
    if (!response.ok) {
      let code = `http_${response.status}`;
      let message = `${method} ${path}: HTTP ${response.status}`;
      try {
        const payload = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
        if (payload.error && typeof payload.error.message === "string") {
          message = payload.error.message;
          code = typeof payload.error.code === "string" ? payload.error.code : code;
        }
      } catch {
        // not JSON: keep the status line
      }
      throw new CompanionError(redact(message, this.info.token), response.status, code);
    }
    return response;
  }

  async json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await this.request(method, path, body, signal);
    return (await response.json()) as T;
  }

  async *stream(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<Envelope> {
    const response = await this.request("POST", path, body, signal);
    if (!response.body) {
      throw new CompanionError(`${path}: the response has no body`, response.status, "no_body");
    }
    try {
      yield* readNdjson(response.body);
    } catch (error) {
      if (signal?.aborted) {
        yield { type: "error", data: { code: "cancelled", message: "cancelled" } };
        return;
      }
      throw error;
    }
  }

  status(): Promise<Record<string, unknown>> {
    return this.json("GET", "/api/status");
  }

  ask(question: string, options: { sessionId?: string; scope?: unknown } = {}, signal?: AbortSignal):
    AsyncGenerator<Envelope> {
    const body: Record<string, unknown> = { question };
    if (options.sessionId) {
      body.session_id = options.sessionId;
    }
    if (options.scope) {
      body.scope = options.scope;
    }
    return this.stream("/api/ask", body, signal);
  }

  async search(query: string, k = 10): Promise<SearchHit[]> {
    const result = await this.json<{ results: SearchHit[] }>("POST", "/api/search", { query, k });
    return result.results;
  }

  async related(path: string, k = 10): Promise<RelatedNote[]> {
    const result = await this.json<{ related: RelatedNote[] }>(
      "GET", `/api/related?path=${encodeURIComponent(path)}&k=${k}`);
    return result.related;
  }

  /** Speech to question text; `name`'s extension gives the recording's format (question.webm, memo.wav...). */
  transcribe(recording: Blob, name: string, signal?: AbortSignal): Promise<Transcript> {
    return this.json("POST", `/api/transcribe?name=${encodeURIComponent(name)}`, recording, signal);
  }

  generate(kind: GenerateKind, request: GenerateRequest, signal?: AbortSignal): AsyncGenerator<Envelope> {
    return this.stream(`/api/generate/${kind}`, request, signal);
  }

  /** Runs a generation to its end: progress messages to `onProgress`, the written note's path back. */
  async generateNote(kind: GenerateKind, request: GenerateRequest, onProgress: (message: string) => void,
    signal?: AbortSignal): Promise<GenerateResult> {
    for await (const envelope of this.generate(kind, request, signal)) {
      if (envelope.type === "progress") {
        const data = envelope.data as { message?: unknown } | null;
        if (data && typeof data.message === "string") {
          onProgress(data.message);
        }
      } else if (envelope.type === "done") {
        const data = envelope.data as GenerateResult;
        if (!data || typeof data.path !== "string") {
          throw new CompanionError("generation finished without a note path", 200, "bad_result");
        }
        return data;
      } else if (envelope.type === "error") {
        const error = errorOf(envelope);
        throw new CompanionError(error.message, 200, error.code);
      }
    }
    throw new CompanionError("the generation stream ended without a result", 200, "incomplete");
  }

  async reviewDue(limit = 100): Promise<DueCard[]> {
    const result = await this.json<{ due: DueCard[] }>("GET", `/api/review/due?limit=${limit}`);
    return result.due;
  }

  grade(card: DueCard, rating: 1 | 2 | 3 | 4): Promise<Record<string, unknown>> {
    return this.json("POST", `/api/review/${encodeURIComponent(card.id)}`, { rating, path: card.path });
  }

  /** Starts an incremental re-index (`POST /api/reindex`); a companion without that route says so. */
  async reindex(): Promise<void> {
    try {
      await this.json("POST", "/api/reindex", {});
    } catch (error) {
      if (error instanceof CompanionError && (error.status === 404 || error.status === 405)) {
        throw new CompanionError("this companion cannot re-index on request; restart it (it indexes on start)",
          error.status, "unsupported");
      }
      throw error;
    }
  }

  async dashboardHtml(): Promise<string> {
    const response = await this.request("GET", "/dashboard");
    return response.text();
  }
}

/** Does the companion answer (with this token)? */
export async function isAlive(client: CompanionClient): Promise<boolean> {
  try {
    await client.status();
    return true;
  } catch {
    return false;
  }
}

/**
 * The companion named by `<vault>/.cognivault/companion.json` (its text from `read`, null when the
 * file is missing), if it answers; `log` hears why not (never the token).
 */
export async function discoverCompanion(read: () => Promise<string | null>, log: (line: string) => void,
  fetchImpl?: FetchLike): Promise<CompanionClient | null> {
  let text: string | null;
  try {
    text = await read();
  } catch {
    text = null;
  }
  if (text === null) {
    return null;
  }
  const info = parseCompanionInfo(text);
  if (!info) {
    log("companion.json is unreadable or does not name a loopback URL; ignoring it");
    return null;
  }
  const client = new CompanionClient(info, fetchImpl);
  if (!await isAlive(client)) {
    log(`companion.json names ${info.url}, which does not answer (a stale file)`);
    return null;
  }
  log(`using the companion at ${info.url}`);
  return client;
}

// -- the answer being streamed -------------------------------------------------------------------

export interface Source {
  label: string;
  path: string;
  title: string;
  headingPath: string[];
  lineStart: number;
  lineEnd: number;
  snippet: string;
}

export interface AnswerState {
  thinking: string;
  text: string;
  sources: Source[];
  confidence: { label: string; reason: string } | null;
  done: boolean;
  error: { code: string; message: string } | null;
  sessionId: string | null;
}

export function newAnswer(): AnswerState {
  return { thinking: "", text: "", sources: [], confidence: null, done: false, error: null, sessionId: null };
}

function str(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

function num(value: unknown, fallback = 0): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

export function sourceOf(data: unknown): Source | null {
  if (!data || typeof data !== "object") {
    return null;
  }
  const record = data as Record<string, unknown>;
  if (typeof record.path !== "string") {
    return null;
  }
  const lineStart = Math.max(1, num(record.line_start, 1));
  return {
    label: str(record.label),
    path: record.path,
    title: str(record.title, record.path),
    headingPath: Array.isArray(record.heading_path) ? record.heading_path.map((h) => String(h)) : [],
    lineStart,
    lineEnd: Math.max(lineStart, num(record.line_end, lineStart)),
    snippet: str(record.snippet),
  };
}

/** Folds one envelope into the answer (mutates and returns `state`). */
export function applyEnvelope(state: AnswerState, envelope: Envelope): AnswerState {
  const data = envelope.data as Record<string, unknown> | null;
  switch (envelope.type) {
    case "thinking":
      state.thinking += str(data?.text ?? envelope.data);
      break;
    case "text":
      state.text += str(data?.text ?? envelope.data);
      break;
    case "confidence":
      state.confidence = { label: str(data?.label, "unknown"), reason: str(data?.reason) };
      break;
    case "metadata": {
      const source = sourceOf(data);
      if (source && !state.sources.some((s) => s.label === source.label && s.path === source.path)) {
        state.sources.push(source);
      }
      break;
    }
    case "done":
      state.done = true;
      if (data && typeof data.answer === "string" && data.answer.trim()) {
        state.text = data.answer;
      }
      if (data && typeof data.session_id === "string") {
        state.sessionId = data.session_id;
      }
      break;
    case "error":
      state.done = true;
      state.error = errorOf(envelope);
      break;
    default: // memory and future envelope types: nothing to show
      break;
  }
  return state;
}

// -- the dashboard inside a webview / iframe --------------------------------------------------------

/**
 * The companion's dashboard page, ready to be shown as a document of the host (a webview's HTML,
 * an iframe's srcdoc): a Content-Security-Policy naming only `origin` for connections, a nonce on
 * every script, and `window.COGNIVAULT_BASE` / `COGNIVAULT_TOKEN` set before the page's own script.
 */
export function embedDashboard(html: string, options: { origin: string; token: string; nonce: string }): string {
  const { origin, token, nonce } = options;
  if (!loopbackOrigin(origin)) {
    throw new CompanionError("the dashboard can only talk to a loopback companion", 0, "not_loopback");
  }
  const csp = [
    "default-src 'none'",
    `connect-src ${origin}`,
    `script-src 'nonce-${nonce}'`,
    // dashboard.js sets a few style="" attributes (progress bars): inline styles only, no scripts
    "style-src 'unsafe-inline'",
    "img-src data:",
    "font-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const config = `<script nonce="${nonce}">window.COGNIVAULT_BASE=${JSON.stringify(origin)};` +
    `window.COGNIVAULT_TOKEN=${JSON.stringify(token).replace(/</g, "\\u003c")};</script>`;
  const head = `<meta http-equiv="Content-Security-Policy" content="${csp}">${config}`;
  let page = html.replace(/<meta[^>]+http-equiv=["']?Content-Security-Policy[^>]*>/gi, "");
  page = page.replace(/<script(?![^>]*\bnonce=)/gi, `<script nonce="${nonce}"`);
  return /<head[^>]*>/i.test(page) ? page.replace(/<head[^>]*>/i, (tag) => tag + head) : head + page;
}

/** A fresh nonce for a Content-Security-Policy (crypto-random, base62). */
export function makeNonce(): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  let out = "";
  for (const byte of bytes) {
    out += chars.charAt(byte % chars.length);
  }
  return out;
}
