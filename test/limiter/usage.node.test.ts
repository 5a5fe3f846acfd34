/**
 * Usage read from LLM answers (docs/llm.md, "Usage"): events cut out of a
 * stream however its bytes are split, the presets' counts, a `json` path.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { SseEvents } from "../../src/limiter/sse-events.ts";
import { StreamUsage, usageOfDocument } from "../../src/limiter/usage.ts";

const encode = (text: string) => new TextEncoder().encode(text);

function eventsOf(bytes: Uint8Array, cuts: number[], max = 1 << 20): string[] {
  const seen: string[] = [];
  const events = new SseEvents((data) => seen.push(data), max);
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((a, b) => a - b)) {
    events.push(bytes.slice(at, cut));
    at = cut;
  }
  events.push(bytes.slice(at));
  return seen;
}

describe("SseEvents", () => {
  const stream = 'event: a\ndata: {"x":1}\n\n: comment\r\ndata: first\r\ndata:second\r\n\r\ndata: é🙂\rid: 7\r\rdata: [DONE]\n\ndata: unended';
  const expected = ['{"x":1}', "first\nsecond", "é🙂", "[DONE]"];

  it("gives the same events however the bytes are split", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
        expect(eventsOf(encode(stream), cuts)).toEqual(expected);
      }),
    );
    // Every single cut, "\r\n" and multi-byte characters split included.
    const bytes = encode(stream);
    for (let cut = 0; cut <= bytes.length; cut++) expect(eventsOf(bytes, [cut])).toEqual(expected);
  });

  it("drops an event or line longer than its bound, and goes on", () => {
    const long = `data: ${"x".repeat(100)}\n\ndata: a\ndata: ${"y".repeat(100)}\n\ndata: ok\n\n`;
    expect(eventsOf(encode(long), [], 50)).toEqual(["ok"]);
  });
});

describe("usage reports", () => {
  const openai = { usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } };
  const anthropic = { usage: { input_tokens: 9, output_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 1 } };

  it.each([
    ["openai", "total", openai, 21],
    ["openai", "input", openai, 9],
    ["openai", "output", openai, 12],
    ["openai", "total", { usage: { prompt_tokens: 9, completion_tokens: 12 } }, 21],
    ["openai", "total", { usage: null }, undefined],
    ["openai", "total", { usage: { total_tokens: -3 } }, undefined],
    ["anthropic", "total", anthropic, 122],
    ["anthropic", "input", anthropic, 110],
    ["anthropic", "output", anthropic, 12],
    ["anthropic", "total", { error: {} }, undefined],
  ] as const)("%s %s of a JSON answer", (preset, tokens, document, want) => {
    expect(usageOfDocument({ kind: "usage", preset, tokens }, document)).toBe(want);
  });

  it("a json path", () => {
    expect(usageOfDocument({ kind: "json", path: ["meta", "billed"] }, { meta: { billed: 7 } })).toBe(7);
    expect(usageOfDocument({ kind: "json", path: ["meta", "billed"] }, { meta: { billed: "7" } })).toBeUndefined();
  });

  it("OpenAI stream: the chunk with usage, final at [DONE]", () => {
    const reader = new StreamUsage({ kind: "usage", preset: "openai", tokens: "total" });
    reader.event('{"choices":[{"delta":{"content":"usage"}}],"usage":null}');
    expect(reader.tokens()).toBeUndefined();
    reader.event(JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }));
    expect([reader.tokens(), reader.finished]).toEqual([7, false]);
    reader.event("[DONE]");
    expect(reader.finished).toBe(true);
  });

  it('OpenAI stream: only an event whose "usage" holds an object is parsed, however it is spaced', () => {
    // Broken on purpose once (every event naming "usage" parsed, as before): 4 parses, not 1. And once without the
    // spaces skipped around the colon: the last event was never read.
    const parse = vi.spyOn(JSON, "parse");
    try {
      const reader = new StreamUsage({ kind: "usage", preset: "openai", tokens: "total" });
      reader.event('{"choices":[{"delta":{"content":"hi"}}],"usage":null}');
      reader.event('{"choices":[{"delta":{"content":"\\"usage\\": {"}}],"usage" :\tnull}');
      reader.event('{"choices":[],"role":"usage","usage":7}');
      expect(parse).not.toHaveBeenCalled();
      reader.event('{"choices":[],"usage" :\n {"prompt_tokens":3,"completion_tokens":4}}');
      expect(parse).toHaveBeenCalledTimes(1);
      expect(reader.tokens()).toBe(7);
    } finally {
      parse.mockRestore();
    }
  });

  it("Anthropic stream: message_start's input, the last message_delta's output", () => {
    const reader = new StreamUsage({ kind: "usage", preset: "anthropic", tokens: "total" });
    reader.event(JSON.stringify({ type: "message_start", message: { usage: { input_tokens: 25, output_tokens: 1 } } }));
    expect(reader.tokens()).toBe(26);
    reader.event(JSON.stringify({ type: "content_block_delta", delta: { text: '"message_delta"' } }));
    reader.event(JSON.stringify({ type: "message_delta", usage: { output_tokens: 10 } }));
    reader.event(JSON.stringify({ type: "message_delta", usage: { output_tokens: 15 } }));
    expect([reader.tokens(), reader.finished]).toEqual([40, false]);
    reader.event('{"type":"message_stop"}');
    expect(reader.finished).toBe(true);
  });
});
