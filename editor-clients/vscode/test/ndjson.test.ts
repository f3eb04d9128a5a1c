import { describe, expect, it } from "vitest";

import { type Envelope, NdjsonParser, errorOf, parseLine, readNdjson } from "../../shared/ndjson";

const encoder = new TextEncoder();

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      }
      controller.close();
    },
  });
}

async function collect(source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Envelope[]> {
  const out: Envelope[] = [];
  for await (const envelope of readNdjson(source)) {
    out.push(envelope);
  }
  return out;
}

describe("NdjsonParser", () => {
  it("joins a line split across chunks", () => {
    const parser = new NdjsonParser();
    expect(parser.push('{"type": "text", "da')).toEqual([]);
    expect(parser.push('ta": {"text": "Photo"}}\n{"type": "te')).toEqual([{ type: "text", data: { text: "Photo" } }]);
    expect(parser.push('xt", "data": {"text": "synthesis"}}\n')).toEqual([{ type: "text", data: { text: "synthesis" } }]);
    expect(parser.end()).toEqual([]);
  });

  it("handles several lines in one chunk and blank lines", () => {
    const parser = new NdjsonParser();
    const out = parser.push('{"type":"thinking","data":{"text":"a"}}\n\n{"type":"text","data":{"text":"b"}}\r\n');
    expect(out.map((e) => e.type)).toEqual(["thinking", "text"]);
  });

  it("decodes a multi-byte character split between byte chunks", () => {
    const parser = new NdjsonParser();
    const bytes = encoder.encode('{"type":"text","data":{"text":"Lichtabhängige Reaktionen ✓"}}\n');
    const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of "ä"
    expect(parser.push(bytes.slice(0, cut))).toEqual([]);
    const [envelope] = parser.push(bytes.slice(cut));
    expect(envelope).toEqual({ type: "text", data: { text: "Lichtabhängige Reaktionen ✓" } });
  });

  it("flushes a partial final line without a newline at the end", () => {
    const parser = new NdjsonParser();
    expect(parser.push('{"type":"text","data":{"text":"x"}}\n{"type":"done","data":{"answer":"x"}}')).toHaveLength(1);
    expect(parser.end()).toEqual([{ type: "done", data: { answer: "x" } }]);
    expect(parser.end()).toEqual([]);
  });

  it("turns a malformed line into an error envelope", () => {
    expect(parseLine("not json")).toMatchObject({ type: "error", data: { code: "bad_line" } });
    expect(parseLine('{"data": 1}')).toMatchObject({ type: "error", data: { code: "bad_line" } });
    expect(parseLine("   ")).toBeNull();
    expect(parseLine('{"type":"memory"}')).toEqual({ type: "memory", data: null });
  });
});

describe("readNdjson", () => {
  it("streams envelopes from a ReadableStream with lines split across chunks", async () => {
    const body = '{"type":"confidence","data":{"label":"high"}}\n{"type":"text","data":{"text":"A "}}\n' +
      '{"type":"metadata","data":{"label":"S1","path":"a.md"}}\n{"type":"done","data":{"answer":"A [S1]"}}\n';
    const chunks = [];
    for (let i = 0; i < body.length; i += 7) {
      chunks.push(body.slice(i, i + 7));
    }
    const envelopes = await collect(streamOf(chunks));
    expect(envelopes.map((e) => e.type)).toEqual(["confidence", "text", "metadata", "done"]);
  });

  it("reads the final line when the stream ends without a newline", async () => {
    const envelopes = await collect(streamOf(['{"type":"text","data":{"text":"x"}}\n{"type":"done",', '"data":{}}']));
    expect(envelopes.map((e) => e.type)).toEqual(["text", "done"]);
  });

  it("stops at an error envelope and surfaces its code and message", async () => {
    const envelopes = await collect(streamOf([
      '{"type":"progress","data":{"stage":"retrieve","message":"finding passages"}}\n',
      '{"type":"error","data":{"code":"unknown_note","message":"no indexed note matches"}}\n',
      '{"type":"text","data":{"text":"never read"}}\n',
    ]));
    expect(envelopes.map((e) => e.type)).toEqual(["progress", "error"]);
    expect(errorOf(envelopes[1])).toEqual({ code: "unknown_note", message: "no indexed note matches" });
  });

  it("ends with an error when the stream stops before done", async () => {
    const cut = await collect(streamOf(['{"type":"text","data":{"text":"half"}}\n{"type":"te']));
    expect(cut.map((e) => e.type)).toEqual(["text", "error"]);
    expect(errorOf(cut[1]).code).toBe("bad_line");
    const short = await collect(streamOf(['{"type":"text","data":{"text":"half"}}\n']));
    expect(short.map((e) => e.type)).toEqual(["text", "error"]);
    expect(errorOf(short[1]).code).toBe("incomplete");
  });

  it("accepts any async iterable of bytes (a Node stream)", async () => {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield encoder.encode('{"type":"text","data":{"text":"a"}}\n{"type":"do');
      yield encoder.encode('ne","data":{}}\n');
    }
    expect((await collect(chunks())).map((e) => e.type)).toEqual(["text", "done"]);
  });
});
