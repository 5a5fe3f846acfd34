/**
 * What an LLM API's answer says it spent (docs/llm.md, "Usage"): the usage
 * report of an OpenAI- or Anthropic-shaped response, or a number at a
 * dotted path, read from a JSON body or from streamed events one by one.
 * Pure: the stream around it is src/limiter/usage-stream.ts.
 */
import { memberAt } from "../request/json-body.ts";
import type { ResponseCost } from "../rules/types.ts";

/** A `cost_from_response` read from the response's body rather than a header. */
export type BodyCost = Exclude<ResponseCost, { kind: "header" }>;

/** Tokens a usage report gives, each absent when it did not say. */
interface Counts {
  input?: number;
  output?: number;
  total?: number;
}

/**
 * The tokens the JSON `document` (a whole response body) reports under `cost`, or undefined.
 *
 * @example
 * usageOfDocument({ kind: "usage", preset: "openai", tokens: "total" }, { usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } }); // 21
 * usageOfDocument({ kind: "usage", preset: "anthropic", tokens: "output" }, { usage: { input_tokens: 9, output_tokens: 12 } }); // 12
 */
export function usageOfDocument(cost: BodyCost, document: unknown): number | undefined {
  if (cost.kind === "json") return count(memberAt(document, cost.path));
  const usage = memberAt(document, ["usage"]);
  return pick(cost.preset === "openai" ? openaiCounts(usage) : anthropicCounts(usage, {}), cost.tokens);
}

/**
 * The usage of a streamed answer (`text/event-stream`), fed its events in
 * order. OpenAI: the chunk that carries `usage` (sent last when the client
 * asked for `stream_options.include_usage`). Anthropic: `message_start`'s
 * input tokens and the last `message_delta`'s output tokens (cumulative).
 * A `json` path: the last event holding a number there.
 *
 * @example
 * const reader = new StreamUsage({ kind: "usage", preset: "anthropic", tokens: "total" });
 * reader.event('{"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}');
 * reader.event('{"type":"message_delta","usage":{"output_tokens":15}}');
 * reader.event('{"type":"message_stop"}');
 * [reader.tokens(), reader.finished]; // [40, true]
 */
export class StreamUsage {
  private readonly cost: BodyCost;
  private counts: Counts = {};
  private found: number | undefined;
  /** The stream's last event came (`[DONE]`, `message_stop`): its report is final. */
  finished = false;

  constructor(cost: BodyCost) {
    this.cost = cost;
  }

  /** One event's data (its `data:` lines joined). Data that is not JSON is passed over. */
  event(data: string): void {
    if (data === "[DONE]") {
      this.finished = true;
      return;
    }
    // Most events are text deltas: only those that can hold what is read are parsed.
    const cost = this.cost;
    const needle = cost.kind === "json" ? cost.path[cost.path.length - 1] : cost.preset === "openai" ? '"usage"' : '"message_';
    if (!data.includes(needle)) return;
    // OpenAI sends `"usage":null` in every chunk but the last when asked for usage: only an object is read.
    if (cost.kind === "usage" && cost.preset === "openai" && !objectFollows(data, needle)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    if (cost.kind === "json") {
      this.found = count(memberAt(parsed, cost.path)) ?? this.found;
    } else if (cost.preset === "openai") {
      const usage = memberAt(parsed, ["usage"]);
      if (typeof usage === "object" && usage !== null) this.counts = openaiCounts(usage);
    } else {
      this.anthropic(parsed);
    }
  }

  /** The tokens reported so far (undefined: none yet). */
  tokens(): number | undefined {
    return this.cost.kind === "json" ? this.found : pick(this.counts, this.cost.tokens);
  }

  private anthropic(event: unknown): void {
    const type = memberAt(event, ["type"]);
    if (type === "message_start") this.counts = anthropicCounts(memberAt(event, ["message", "usage"]), {});
    else if (type === "message_delta") this.counts = anthropicCounts(memberAt(event, ["usage"]), this.counts);
    else if (type === "message_stop") this.finished = true;
  }
}

// Whether some `"name":` in `data` (JSON) is followed by an object. A quoted name cannot occur inside a JSON string
// (its quotes would be escaped), so every match is a member name or a whole string value.
function objectFollows(data: string, quotedName: string): boolean {
  for (let at = data.indexOf(quotedName); at >= 0; at = data.indexOf(quotedName, at + 1)) {
    let i = skipSpace(data, at + quotedName.length);
    if (data.charCodeAt(i) !== 0x3a /* : */) continue;
    i = skipSpace(data, i + 1);
    if (data.charCodeAt(i) === 0x7b /* { */) return true;
  }
  return false;
}

function skipSpace(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  return i;
}

function openaiCounts(usage: unknown): Counts {
  const input = count(memberAt(usage, ["prompt_tokens"]));
  const output = count(memberAt(usage, ["completion_tokens"]));
  return { input, output, total: count(memberAt(usage, ["total_tokens"])) ?? sum(input, output) };
}

// Anthropic's input is every prompt token the model read: uncached, written to and read from the cache.
// A message_delta's counts are cumulative and may leave input out: what it omits stays as it was.
function anthropicCounts(usage: unknown, before: Counts): Counts {
  const parts = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"].map((name) => count(memberAt(usage, [name])));
  const input = parts.every((part) => part === undefined) ? before.input : parts.reduce<number>((a, b) => a + (b ?? 0), 0);
  const output = count(memberAt(usage, ["output_tokens"])) ?? before.output;
  return { input, output, total: sum(input, output) };
}

function pick(counts: Counts, tokens: "total" | "input" | "output"): number | undefined {
  return counts[tokens];
}

function sum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

// A count is a whole number from 0; anything else reports nothing.
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
