/**
 * The origin's answer passed to the client with its usage read on the way
 * (docs/llm.md, "Usage"): a streamed answer's events are parsed as each
 * chunk goes by, a JSON answer's bytes copied (up to a bound) and parsed
 * when it ends. Each chunk is handed on as it is read, never held back.
 * Once the body ended, failed or the client went away, `settle` gets the
 * tokens reported and whether the report is final.
 */
import { SseEvents } from "./sse-events.ts";
import { type BodyCost, StreamUsage, usageOfDocument } from "./usage.ts";

/** What the answer reported: its tokens (undefined: none), and whether it was cut short before its report was final. */
export interface ReportedUsage {
  readonly tokens: number | undefined;
  readonly cut: boolean;
}

/**
 * The most of a JSON answer copied to find its usage, and the longest
 * streamed event parsed: past it, the answer still passes whole, but reports nothing.
 */
export const MAX_USAGE_JSON_CHARS = 8 * 1024 * 1024;

const EVENT_STREAM = /^text\/event-stream\s*(?:;|$)/i;
const JSON_TYPE = /^application\/(?:[^;/\s]+\+)?json\s*(?:;|$)/i;

/**
 * `response` with its usage followed; `settle` is called exactly once.
 * An answer neither JSON nor an event stream, or without a body, settles
 * at once (no usage) and is returned as it is.
 *
 * @example
 * return followUsage(upstream, { kind: "usage", preset: "openai", tokens: "total" }, (usage) => reconcile(usage));
 */
export function followUsage(response: Response, cost: BodyCost, settle: (usage: ReportedUsage) => void): Response {
  const type = response.headers.get("content-type") ?? "";
  const source = response.body;
  const streamed = EVENT_STREAM.test(type);
  if (source === null || (!streamed && !JSON_TYPE.test(type))) {
    settle({ tokens: undefined, cut: false });
    return response;
  }
  const reader = source.getReader();
  const watcher = streamed ? new StreamWatcher(cost) : new JsonWatcher(cost);
  let settled = false;
  const once = (cut: boolean) => {
    if (settled) return;
    settled = true;
    settle(watcher.report(cut));
  };
  const body = new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          // The origin broke the stream off: what it reported so far is charged if more than reserved.
          once(true);
          controller.error(error);
          return;
        }
        if (next.done) {
          controller.close();
          once(false);
          return;
        }
        controller.enqueue(next.value);
        watcher.push(next.value);
      },
      cancel: (reason) => {
        // The client went away: the same rule as a stream cut by the origin.
        once(true);
        return reader.cancel(reason);
      },
    },
    // Nothing read ahead of the client: each chunk is read when the client asks for one and passed on at once.
    // A TransformStream the origin's body is piped into cost the process about 1 ms more CPU per streamed answer
    // in workerd than this pull (bench/README.md, "Streamed LLM answers").
    { highWaterMark: 0 },
  );
  return new Response(body, response);
}

interface Watcher {
  push(chunk: Uint8Array): void;
  report(cut: boolean): ReportedUsage;
}

class StreamWatcher implements Watcher {
  private readonly cost: BodyCost;
  private readonly usage: StreamUsage;
  private readonly events: SseEvents;

  constructor(cost: BodyCost) {
    this.cost = cost;
    this.usage = new StreamUsage(cost);
    this.events = new SseEvents((data) => this.usage.event(data), MAX_USAGE_JSON_CHARS);
  }

  push(chunk: Uint8Array): void {
    this.events.push(chunk);
  }

  // A stream that ended without its last event (`[DONE]`, `message_stop`) was cut short too.
  report(cut: boolean): ReportedUsage {
    const presetEnd = this.usage.finished || this.cost.kind === "json";
    return { tokens: this.usage.tokens(), cut: cut || !presetEnd };
  }
}

class JsonWatcher implements Watcher {
  private readonly cost: BodyCost;
  private readonly decoder = new TextDecoder();
  private text = "";
  private tooLarge = false;

  constructor(cost: BodyCost) {
    this.cost = cost;
  }

  push(chunk: Uint8Array): void {
    if (this.tooLarge) return;
    this.text += this.decoder.decode(chunk, { stream: true });
    if (this.text.length > MAX_USAGE_JSON_CHARS) {
      this.tooLarge = true;
      this.text = "";
    }
  }

  report(cut: boolean): ReportedUsage {
    if (cut || this.tooLarge) return { tokens: undefined, cut };
    let document: unknown;
    try {
      document = JSON.parse(this.text + this.decoder.decode());
    } catch {
      return { tokens: undefined, cut: false };
    }
    return { tokens: usageOfDocument(this.cost, document), cut: false };
  }
}
