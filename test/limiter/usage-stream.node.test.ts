/**
 * The origin's answer passed on with its usage read on the way (docs/llm.md,
 * "Usage"): `followUsage` on real Responses and streams in plain Node. The
 * client gets the origin's bytes, status and headers unchanged, nothing is
 * read ahead of the client, and `settle` is called exactly once with the
 * tokens reported and whether the answer was cut short: at the end of the
 * body, when the origin breaks it off, or when the client goes away.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseEvents } from "../../src/limiter/sse-events.ts";
import { type BodyCost, StreamUsage } from "../../src/limiter/usage.ts";
import { followUsage, MAX_USAGE_JSON_CHARS, type ReportedUsage } from "../../src/limiter/usage-stream.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const OPENAI_TOTAL: BodyCost = { kind: "usage", preset: "openai", tokens: "total" };
const ANTHROPIC_OUTPUT: BodyCost = { kind: "usage", preset: "anthropic", tokens: "output" };
const BILLED: BodyCost = { kind: "json", path: ["meta", "billed"] };

/** A source that hands out `chunks` one per pull (nothing ahead), then ends, or fails with `failWith`. */
function origin(chunks: Uint8Array[], failWith?: Error) {
  const seen = { pulls: 0, cancelled: undefined as unknown };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        seen.pulls += 1;
        const next = chunks.shift();
        if (next !== undefined) controller.enqueue(next);
        else if (failWith !== undefined) controller.error(failWith);
        else controller.close();
      },
      cancel(reason) {
        seen.cancelled = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

function answer(body: BodyInit | null, type: string | undefined, init: ResponseInit = {}) {
  const headers = new Headers(init.headers);
  if (type !== undefined) headers.set("content-type", type);
  return new Response(body, { ...init, headers });
}

/** `followUsage` with every settle recorded. */
function follow(response: Response, cost: BodyCost) {
  const settled: ReportedUsage[] = [];
  const followed = followUsage(response, cost, (usage) => settled.push(usage));
  return { followed, settled };
}

const sse = (...events: unknown[]) => events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");

describe("answers that are not read", () => {
  it.each([
    ["text/plain", "hello"],
    ["application/jsonx", '{"usage":{"total_tokens":5}}'],
    ["application/json-seq", '{"usage":{"total_tokens":5}}'],
    ["text/event-streams", sse({ usage: { total_tokens: 5 } })],
    [undefined, '{"usage":{"total_tokens":5}}'],
  ])("%s: settled at once with no usage, the answer returned as it is", async (type, body) => {
    const response = answer(body, type);
    const { followed, settled } = follow(response, OPENAI_TOTAL);
    expect(followed).toBe(response);
    expect(settled).toEqual([{ tokens: undefined, cut: false }]);
    expect(await followed.text()).toBe(body);
  });

  it("an answer without a body, JSON by its type", () => {
    const response = answer(null, "application/json", { status: 204 });
    const { followed, settled } = follow(response, OPENAI_TOTAL);
    expect(followed).toBe(response);
    expect(settled).toEqual([{ tokens: undefined, cut: false }]);
  });
});

describe("a JSON answer", () => {
  const document = { id: "x", usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } };

  it.each(["application/json", "Application/JSON; charset=utf-8", "application/vnd.api+json", "application/json ;charset=utf-8"])(
    "%s: the same bytes, status and headers pass, then its usage settles",
    async (type) => {
      const text = JSON.stringify(document);
      const bytes = encode(text);
      const source = origin([bytes.slice(0, 7), bytes.slice(7, 20), bytes.slice(20)]);
      const { followed, settled } = follow(answer(source.stream, type, { status: 201, headers: { "x-request-id": "r1" } }), OPENAI_TOTAL);
      expect([followed.status, followed.headers.get("x-request-id"), followed.headers.get("content-type")]).toEqual([201, "r1", type]);
      expect(settled).toEqual([]);
      expect(await followed.text()).toBe(text);
      expect(settled).toEqual([{ tokens: 21, cut: false }]);
    },
  );

  it("a character split across chunks is decoded whole", async () => {
    const bytes = encode(JSON.stringify({ note: "é🙂", meta: { billed: 4 } }));
    const at = bytes.indexOf(0xf0) + 2; // inside the emoji
    const { followed, settled } = follow(answer(origin([bytes.slice(0, at), bytes.slice(at)]).stream, "application/json"), BILLED);
    await followed.arrayBuffer();
    expect(settled).toEqual([{ tokens: 4, cut: false }]);
  });

  it("a body that is not JSON, or reports nothing, settles with no tokens and not cut", async () => {
    for (const text of ['{"usage":', "", '{"meta":{"billed":"4"}}']) {
      const { followed, settled } = follow(answer(text, "application/json"), BILLED);
      expect(await followed.text()).toBe(text);
      expect(settled).toEqual([{ tokens: undefined, cut: false }]);
    }
  });

  it("a body longer than MAX_USAGE_JSON_CHARS passes whole and reports nothing", async () => {
    const pad = "x".repeat(MAX_USAGE_JSON_CHARS);
    const text = `{"meta":{"billed":4},"pad":"${pad}"}`;
    const bytes = encode(text);
    const { followed, settled } = follow(answer(origin([bytes.slice(0, 30), bytes.slice(30)]).stream, "application/json"), BILLED);
    expect((await followed.arrayBuffer()).byteLength).toBe(bytes.byteLength);
    expect(settled).toEqual([{ tokens: undefined, cut: false }]);
    // At the bound exactly, the body is still read.
    const exact = `{"meta":{"billed":4},"pad":"${"x".repeat(MAX_USAGE_JSON_CHARS - 30)}"}`;
    expect(exact.length).toBe(MAX_USAGE_JSON_CHARS);
    const atBound = follow(answer(exact, "application/json"), BILLED);
    await atBound.followed.arrayBuffer();
    expect(atBound.settled).toEqual([{ tokens: 4, cut: false }]);
  });

  it("the origin breaking the body off: settled as cut, the client's read fails", async () => {
    const source = origin([encode('{"meta":{"billed":4}}')], new Error("origin reset"));
    const { followed, settled } = follow(answer(source.stream, "application/json"), BILLED);
    await expect(followed.text()).rejects.toThrow("origin reset");
    expect(settled).toEqual([{ tokens: undefined, cut: true }]);
  });
});

describe("a streamed answer", () => {
  const openaiEvents = sse(
    { choices: [{ delta: { content: "hi" } }], usage: null },
    { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
    "[DONE]",
  );

  it("passes each chunk as the client asks for it, nothing read ahead", async () => {
    const bytes = encode(openaiEvents);
    const source = origin([bytes.slice(0, 10), bytes.slice(10)]);
    const { followed, settled } = follow(answer(source.stream, "text/event-stream"), OPENAI_TOTAL);
    // A stream fills its queue after a turn of the event loop: give it one, and it must still have read nothing.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(source.seen.pulls).toBe(0);
    const reader = (followed.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).value).toEqual(bytes.slice(0, 10));
    expect(source.seen.pulls).toBe(1);
    expect((await reader.read()).value).toEqual(bytes.slice(10));
    expect(settled).toEqual([]);
    expect((await reader.read()).done).toBe(true);
    expect(settled).toEqual([{ tokens: 7, cut: false }]);
  });

  it("the same report however the bytes are split", async () => {
    const bytes = encode(openaiEvents);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(bytes.length), { maxLength: 6 }), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
        const chunks = points.slice(1).map((end, i) => bytes.slice(points[i], end));
        const { followed, settled } = follow(answer(origin(chunks).stream, "text/event-stream; charset=utf-8"), OPENAI_TOTAL);
        expect(new Uint8Array(await followed.arrayBuffer())).toEqual(bytes);
        expect(settled).toEqual([{ tokens: 7, cut: false }]);
      }),
      { numRuns: 40 },
    );
  });

  it("a preset's stream that ends without its last event was cut short, its tokens still given", async () => {
    const cut = sse({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
    const { followed, settled } = follow(answer(cut, "text/event-stream"), OPENAI_TOTAL);
    await followed.text();
    expect(settled).toEqual([{ tokens: 7, cut: true }]);

    const anthropic = sse(
      { type: "message_start", message: { usage: { input_tokens: 25, output_tokens: 1 } } },
      { type: "message_delta", usage: { output_tokens: 15 } },
    );
    const open = follow(answer(anthropic, "text/event-stream"), ANTHROPIC_OUTPUT);
    await open.followed.text();
    expect(open.settled).toEqual([{ tokens: 15, cut: true }]);
    const ended = follow(answer(`${anthropic}${sse({ type: "message_stop" })}`, "text/event-stream"), ANTHROPIC_OUTPUT);
    await ended.followed.text();
    expect(ended.settled).toEqual([{ tokens: 15, cut: false }]);
  });

  it("a json path's stream has no last event: it ends whole, with the last number found", async () => {
    const events = sse({ meta: { billed: 2 } }, { meta: { billed: "3" } }, { meta: { billed: 5 } }, { meta: {} }, "not json billed");
    const { followed, settled } = follow(answer(events, "text/event-stream"), BILLED);
    await followed.text();
    expect(settled).toEqual([{ tokens: 5, cut: false }]);
  });

  it("the client going away: settled once as cut with what was reported, the origin's body cancelled", async () => {
    const bytes = encode(openaiEvents);
    const usageEnd = openaiEvents.indexOf("[DONE]") - 6;
    const source = origin([bytes.slice(0, usageEnd), bytes.slice(usageEnd)]);
    const { followed, settled } = follow(answer(source.stream, "text/event-stream"), OPENAI_TOTAL);
    const reader = (followed.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel("client gone");
    expect(settled).toEqual([{ tokens: 7, cut: true }]);
    expect(source.seen.cancelled).toBe("client gone");
  });

  it("the origin breaking the stream off: settled once as cut with what was reported", async () => {
    const first = encode(sse({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    const source = origin([first], new Error("origin reset"));
    const { followed, settled } = follow(answer(source.stream, "text/event-stream"), OPENAI_TOTAL);
    const reader = (followed.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).value).toEqual(first);
    await expect(reader.read()).rejects.toThrow("origin reset");
    expect(settled).toEqual([{ tokens: 2, cut: true }]);
  });
});

describe("StreamUsage on a json path", () => {
  it("only events naming the path's last member are parsed; the last number there counts", () => {
    const reader = new StreamUsage({ kind: "json", path: ["usage", "units"] });
    reader.event('{"usage":{"units":4}}');
    reader.event('{"usage":{"units":-1}}');
    reader.event('{"usage":{"units":1.5}}');
    reader.event('{"other":{"units":9}}');
    reader.event("units but not JSON");
    expect(reader.tokens()).toBe(4);
    reader.event('{"usage":{"units":0}}');
    expect([reader.tokens(), reader.finished]).toEqual([0, false]);
  });

  it("OpenAI: a usage that is not an object leaves the counts as they were; total falls back to input + output", () => {
    const reader = new StreamUsage({ kind: "usage", preset: "openai", tokens: "total" });
    reader.event('{"usage":{"prompt_tokens":3}}');
    expect(reader.tokens()).toBe(3);
    reader.event('{"usage":"none"}');
    expect(reader.tokens()).toBe(3);
    reader.event('{"usage":{"completion_tokens":4}}');
    expect(reader.tokens()).toBe(4);
    reader.event('{"usage":{}}');
    expect(reader.tokens()).toBeUndefined();
  });
});

describe("SseEvents at its bounds", () => {
  function events(text: string, max: number) {
    const seen: string[] = [];
    const reader = new SseEvents((data) => seen.push(data), max);
    reader.push(encode(text));
    return seen;
  }

  it("a line of exactly maxChars is kept; one more character drops its event", () => {
    expect(events(`data:${"x".repeat(5)}\n\n`, 10)).toEqual(["xxxxx"]);
    expect(events(`data:${"x".repeat(6)}\n\ndata: ok\n\n`, 10)).toEqual(["ok"]);
    expect(events(`data: ${"x".repeat(4)}\n\n`, 10)).toEqual(["xxxx"]);
  });

  it("an event's data counts each line and its line end against maxChars", () => {
    // "abcd" + "\n" + "efgh" + "\n": 10 characters, at the bound.
    expect(events("data:abcd\ndata:efgh\n\n", 10)).toEqual(["abcd\nefgh"]);
    expect(events("data:abcd\ndata:efghi\n\ndata:z\n\n", 10)).toEqual(["z"]);
  });

  it("only the data field is data: other fields, a bare `data` and no colon", () => {
    expect(events("dat: a\nxata: b\ndataa: c\ndata\n\n", 100)).toEqual([""]);
    expect(events("event: x\nid: 1\n\n", 100)).toEqual([]);
    expect(events("data:  two spaces\n\n", 100)).toEqual([" two spaces"]);
  });

  it("a lone \\r then \\n in the next chunk is one line end; a \\r then more text is its own", () => {
    const seen: string[] = [];
    const reader = new SseEvents((data) => seen.push(data), 100);
    reader.push(encode("data: a\r"));
    reader.push(encode("\ndata: b\r"));
    reader.push(encode(""));
    reader.push(encode("\r"));
    reader.push(encode("data: c\r\r"));
    expect(seen).toEqual(["a\nb", "c"]);
  });
});
