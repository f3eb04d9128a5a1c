/**
 * NDJSON envelopes from the CogniVault companion (`/api/ask`, `/api/generate/{kind}`).
 *
 * One JSON object per line: `{"type": "...", "data": ...}`. Network chunks can end anywhere,
 * even inside a multi-byte UTF-8 character, so bytes are decoded in streaming mode and only
 * complete lines are parsed; `end()` flushes a final line that has no newline.
 * A line that is not a valid envelope becomes an `error` envelope (code `bad_line`), so a
 * consumer that stops at `done` / `error` always ends.
 *
 * Shared by the VS Code extension and the Obsidian plugin (each bundles it with esbuild);
 * no imports, so it builds under either tsconfig.
 */

export interface Envelope {
  type: string;
  data: unknown;
}

export interface ErrorData {
  code: string;
  message: string;
}

export function isFinal(envelope: Envelope): boolean {
  return envelope.type === "done" || envelope.type === "error";
}

export function errorOf(envelope: Envelope): ErrorData {
  const data = envelope.data;
  if (data && typeof data === "object") {
    const record = data as Record<string, unknown>;
    return {
      code: typeof record.code === "string" ? record.code : "error",
      message: typeof record.message === "string" ? record.message : JSON.stringify(data),
    };
  }
  return { code: "error", message: typeof data === "string" ? data : "the companion reported an error" };
}

export function parseLine(line: string): Envelope | null {
  const text = line.trim();
  if (!text) {
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: "error", data: { code: "bad_line", message: `not JSON: ${text.slice(0, 80)}` } };
  }
  if (!value || typeof value !== "object" || typeof (value as { type?: unknown }).type !== "string") {
    return { type: "error", data: { code: "bad_line", message: `not an envelope: ${text.slice(0, 80)}` } };
  }
  const record = value as { type: string; data?: unknown };
  return { type: record.type, data: record.data ?? null };
}

export class NdjsonParser {
  private buffer = "";
  private readonly decoder = new TextDecoder("utf-8");

  /** The envelopes completed by this chunk (bytes or already-decoded text). */
  push(chunk: Uint8Array | string): Envelope[] {
    this.buffer += typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const out: Envelope[] = [];
    let newline = this.buffer.indexOf("\n");
    while (newline >= 0) {
      const envelope = parseLine(this.buffer.slice(0, newline));
      if (envelope) {
        out.push(envelope);
      }
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf("\n");
    }
    return out;
  }

  /** The stream ended: the last line, even without its newline. */
  end(): Envelope[] {
    const rest = this.buffer + this.decoder.decode();
    this.buffer = "";
    const envelope = parseLine(rest);
    return envelope ? [envelope] : [];
  }
}

export type ByteSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

async function* chunksOf(source: ByteSource): AsyncGenerator<Uint8Array> {
  if (Symbol.asyncIterator in source) {
    yield* source as AsyncIterable<Uint8Array>;
    return;
  }
  const reader = (source as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        return;
      }
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Every envelope of a byte stream, in order; stops after the first `done` or `error`. */
export async function* readNdjson(source: ByteSource): AsyncGenerator<Envelope> {
  const parser = new NdjsonParser();
  for await (const chunk of chunksOf(source)) {
    for (const envelope of parser.push(chunk)) {
      yield envelope;
      if (isFinal(envelope)) {
        return;
      }
    }
  }
  const tail = parser.end();
  for (const envelope of tail) {
    yield envelope;
    if (isFinal(envelope)) {
      return;
    }
  }
  yield { type: "error", data: { code: "incomplete", message: "the stream ended without a result" } };
}
