// A mock OpenAI- and Anthropic-compatible origin (docs/llm.md), for the workerd tests (through
// global-setup.mjs, under /llm/) and the `wrangler dev` test (test/cli/dev-llm.slow.test.mjs, on its own server).
//
// POST /llm/v1/chat/completions (OpenAI) and /llm/v1/messages (Anthropic) answer with the usage the query asks
// for: `?in=N&out=M` input and output tokens (default 10 and 20). A body with `"stream": true` is answered as
// `text/event-stream` in that API's events (OpenAI's usage chunk only when `stream_options.include_usage`),
// otherwise as JSON. `x-received-sha256` and `x-received-length` say which bytes arrived, so a test checks
// the body reached the origin byte for byte. `mode` changes the answer:
//   error  — 500 with a JSON error and no usage
//   early  — the stream ends (cleanly) after its first events, before its usage and last event
//   drop   — the connection is destroyed after the first events (a broken stream)
//   stall  — the first event at once, the rest only after POST /__llm/release?tag=T (or 10 s); the origin's
//            progress (`GET /__llm/state?tag=T`: { sent }) shows whether a client saw the first event early.
// `out` is spread over `chunks` content events (default 4).

import { createHash } from "node:crypto";

/** tag → { sent, release } of a stalled stream. */
const stalls = new Map();

/** Whether `url` is this origin's: the caller hands such requests to `serveLlm`. */
export function isLlmPath(pathname) {
  return pathname.startsWith("/llm/") || pathname.startsWith("/__llm/");
}

/** Answer one request of the mock origin. */
export function serveLlm(req, res, url) {
  if (url.pathname === "/__llm/state") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ sent: stalls.get(url.searchParams.get("tag"))?.sent ?? 0 }));
    return;
  }
  if (url.pathname === "/__llm/release") {
    stalls.get(url.searchParams.get("tag"))?.release();
    res.writeHead(204);
    res.end();
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const raw = Buffer.concat(chunks);
    let body = {};
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      body = {};
    }
    const received = { "x-received-sha256": createHash("sha256").update(raw).digest("hex"), "x-received-length": String(raw.length) };
    const api = url.pathname.endsWith("/messages") ? "anthropic" : "openai";
    const input = Number(url.searchParams.get("in") ?? 10);
    const output = Number(url.searchParams.get("out") ?? 20);
    const mode = url.searchParams.get("mode") ?? "";
    if (mode === "error") {
      res.writeHead(500, { "content-type": "application/json", ...received });
      res.end(JSON.stringify({ error: { message: "the model is overloaded", type: "server_error" } }));
      return;
    }
    if (body.stream !== true) {
      res.writeHead(200, { "content-type": "application/json", ...received });
      res.end(JSON.stringify(api === "openai" ? openaiJson(body, input, output) : anthropicJson(body, input, output)));
      return;
    }
    const events =
      api === "openai"
        ? openaiEvents(body, input, output, Number(url.searchParams.get("chunks") ?? 4))
        : anthropicEvents(body, input, output, Number(url.searchParams.get("chunks") ?? 4));
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...received });
    stream(res, events, mode, url.searchParams.get("tag") ?? "");
  });
}

function stream(res, events, mode, tag) {
  if (mode === "early" || mode === "drop") {
    for (const event of events.slice(0, 2)) res.write(event);
    if (mode === "early") res.end();
    else setTimeout(() => res.socket?.destroy(), 20);
    return;
  }
  if (mode !== "stall") {
    for (const event of events) res.write(event);
    res.end();
    return;
  }
  const state = { sent: 1, release: () => {} };
  stalls.set(tag, state);
  res.write(events[0]);
  const rest = () => {
    if (state.sent === events.length) return;
    for (const event of events.slice(1)) res.write(event);
    state.sent = events.length;
    res.end();
  };
  const timer = setTimeout(rest, 10_000);
  state.release = () => {
    clearTimeout(timer);
    rest();
  };
  res.on("close", () => clearTimeout(timer));
}

const sse = (data, event) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

function openaiJson(body, input, output) {
  return {
    id: "chatcmpl-mock",
    object: "chat.completion",
    model: body.model ?? "mock",
    choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  };
}

function openaiEvents(body, input, output, chunks) {
  const events = [];
  // As OpenAI does: asked for usage, every chunk before the usage chunk carries `"usage":null`.
  const includeUsage = body.stream_options?.include_usage === true;
  for (let i = 0; i < chunks; i++)
    events.push(
      sse({
        id: "chatcmpl-mock",
        object: "chat.completion.chunk",
        model: body.model,
        choices: [{ index: 0, delta: { content: `tok${i} ` }, finish_reason: null }],
        ...(includeUsage ? { usage: null } : {}),
      }),
    );
  if (includeUsage)
    events.push(
      sse({
        id: "chatcmpl-mock",
        object: "chat.completion.chunk",
        model: body.model,
        choices: [],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      }),
    );
  events.push(sse("[DONE]"));
  return events;
}

function anthropicJson(body, input, output) {
  return {
    id: "msg_mock",
    type: "message",
    role: "assistant",
    model: body.model ?? "mock",
    content: [{ type: "text", text: "hello" }],
    stop_reason: "end_turn",
    usage: { input_tokens: input, output_tokens: output },
  };
}

function anthropicEvents(body, input, output, chunks) {
  const events = [
    sse(
      {
        type: "message_start",
        message: { id: "msg_mock", type: "message", role: "assistant", model: body.model, content: [], usage: { input_tokens: input, output_tokens: 1 } },
      },
      "message_start",
    ),
    sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
  ];
  for (let i = 0; i < chunks; i++)
    events.push(sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `tok${i} ` } }, "content_block_delta"));
  events.push(sse({ type: "content_block_stop", index: 0 }, "content_block_stop"));
  events.push(sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: output } }, "message_delta"));
  events.push(sse({ type: "message_stop" }, "message_stop"));
  return events;
}
