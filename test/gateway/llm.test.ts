/**
 * Token budgets in front of the mock OpenAI/Anthropic API (docs/llm.md):
 * usage charged exactly from JSON and streamed answers, reservations that
 * admit only what fits and refund the rest, per-model budgets apart, the
 * body byte for byte at the origin, the charge of answers cut short, and
 * 4xx for bad and oversized bodies.
 */
import { describe, expect, it } from "vitest";
import { testEnv, uniqueIp } from "../support/app.ts";
import { llmGateway, originSent, releaseOrigin, sha256 } from "../support/llm.ts";
import { uniqueTag } from "../support/origin.ts";

const KEY_BUDGET = 1000;
const MODEL_BUDGET = 600;

let domains = 0;
/** A tokens domain (per key, per key and model) and a requests domain beside it. */
function llmRules(reservation: { default: number; max: number } = { default: 100, max: 500 }) {
  domains += 1;
  const tokens = `llm-tokens-${domains}`;
  const requests = `llm-requests-${domains}`;
  const keyed = { key: "api_key", header: "x-api-key" };
  const cost = { json_body: "max_tokens", ...reservation };
  return {
    tokens,
    requests,
    rules: [
      {
        domain: tokens,
        descriptors: [
          {
            key: "api_key",
            rate_limit: { name: "key-tokens", unit: "day", requests_per_unit: KEY_BUDGET, algorithm: "fixed_window" },
            descriptors: [{ key: "model", rate_limit: { name: "model-tokens", unit: "day", requests_per_unit: MODEL_BUDGET, algorithm: "fixed_window" } }],
          },
        ],
        routes: [
          {
            match: { methods: ["POST"], path: "/llm/v1/messages" },
            descriptors: [[keyed], [keyed, { key: "model", json_body: "model" }]],
            cost,
            cost_from_response: { usage: "anthropic" },
          },
          {
            match: { methods: ["POST"], path: "/llm/v1/*" },
            descriptors: [[keyed], [keyed, { key: "model", json_body: "model" }]],
            cost,
            cost_from_response: { usage: "openai" },
          },
        ],
      },
      {
        domain: requests,
        descriptors: [{ key: "api_key", rate_limit: { name: "key-requests", unit: "minute", requests_per_unit: 1000, algorithm: "fixed_window" } }],
        routes: [{ match: { path: "/llm/*" }, descriptors: [[keyed]] }],
      },
    ],
  };
}

const chat = (model: string, extra: Record<string, unknown> = {}) => JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], ...extra });

describe("usage charged exactly", () => {
  const cases = [
    ["OpenAI JSON", "/llm/v1/chat/completions", {}, 30],
    ["OpenAI stream with include_usage", "/llm/v1/chat/completions", { stream: true, stream_options: { include_usage: true } }, 30],
    ["Anthropic JSON", "/llm/v1/messages", {}, 30],
    ["Anthropic stream", "/llm/v1/messages", { stream: true }, 30],
  ] as const;
  for (const [name, path, extra, used] of cases) {
    it(`${name}: the reservation is settled to the usage on every budget of the request`, async () => {
      const { rules, tokens, requests } = llmRules();
      const llm = llmGateway(rules);
      const key = uniqueIp();
      const { response, text } = await llm.send(`${path}?in=10&out=20`, { headers: { "x-api-key": key }, body: chat("m1", { max_tokens: 400, ...extra }) });
      expect(response.status).toBe(200);
      expect(text.length).toBeGreaterThan(0);
      // Reserved 400 before the origin, as the headers say; the usage (10 + 20) is what stays.
      expect(response.headers.get("RateLimit-Policy")).toContain('qu="tokens"');
      expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET - used });
      expect(await llm.remaining(tokens, `api_key=${key},model=m1`)).toEqual({ "model-tokens": MODEL_BUDGET - used });
      expect(await llm.remaining(requests, `api_key=${key}`)).toEqual({ "key-requests": 999 });
    });
  }

  it("a stream without a usage report keeps its reservation", async () => {
    const { rules, tokens } = llmRules();
    const llm = llmGateway(rules);
    const key = uniqueIp();
    await llm.send("/llm/v1/chat/completions", { headers: { "x-api-key": key }, body: chat("m1", { max_tokens: 250, stream: true }) });
    expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET - 250 });
  });

  it("no max_tokens reserves the default, a larger one the max", async () => {
    const { rules, tokens } = llmRules({ default: 100, max: 500 });
    const llm = llmGateway(rules);
    const key = uniqueIp();
    const first = await llm.open("/llm/v1/chat/completions?mode=error", { headers: { "x-api-key": key }, body: chat("m1") });
    expect(first.response.headers.get("RateLimit")).toContain(`"key-tokens";r=${KEY_BUDGET - 100}`);
    await first.response.text();
    await first.settled();
    const second = await llm.send("/llm/v1/chat/completions?mode=error", { headers: { "x-api-key": key }, body: chat("m1", { max_tokens: 100_000 }) });
    expect(second.response.headers.get("RateLimit")).toContain(`"key-tokens";r=${KEY_BUDGET - 600}`);
    // Errors report no usage: both reservations stay.
    expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET - 600 });
  });
});

describe("reservations and budgets side by side", () => {
  it("admits only what fits, names the budget spent in tokens, and refunds the unused", async () => {
    const { rules, tokens } = llmRules({ default: 100, max: 1000 });
    const llm = llmGateway(rules);
    const key = uniqueIp();
    const headers = { "x-api-key": key };
    // 500 reserved on model m1's 600; 40 used.
    expect((await llm.send("/llm/v1/chat/completions?in=15&out=25", { headers, body: chat("m1", { max_tokens: 500 }) })).response.status).toBe(200);
    // 580 does not fit m1's 560 left: refused before the origin, naming m1's budget, in tokens.
    const refused = await llm.send("/llm/v1/chat/completions", { headers, body: chat("m1", { max_tokens: 580 }) });
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get("RateLimit-Policy")).toContain('"model-tokens";q=600;qu="tokens"');
    const problem = JSON.parse(refused.text);
    expect(problem).toMatchObject({ policy: "model-tokens", limit: MODEL_BUDGET, "violated-policies": ["model-tokens"] });
    expect(problem.detail).toContain("600 tokens per 86400 s");
    // Another model has its own budget; the key's is shared: 960 left of it, so 900 fits on m2.
    expect((await llm.send("/llm/v1/chat/completions?in=100&out=200", { headers, body: chat("m2", { max_tokens: 580 }) })).response.status).toBe(200);
    expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET - 40 - 300 });
    expect(await llm.remaining(tokens, `api_key=${key},model=m1`)).toEqual({ "model-tokens": MODEL_BUDGET - 40 });
    expect(await llm.remaining(tokens, `api_key=${key},model=m2`)).toEqual({ "model-tokens": MODEL_BUDGET - 300 });
    // 660 left on the key, 360 after m3's 300: 500 fits m4's own budget, and is refused by the key's this time.
    expect((await llm.send("/llm/v1/chat/completions?in=100&out=200", { headers, body: chat("m3", { max_tokens: 590 }) })).response.status).toBe(200);
    const keySpent = await llm.send("/llm/v1/chat/completions", { headers, body: chat("m4", { max_tokens: 500 }) });
    expect(keySpent.response.status).toBe(429);
    expect(JSON.parse(keySpent.text)).toMatchObject({ policy: "key-tokens" });
    // Refused before the origin, it spent nothing: m4's own budget got its reservation back.
    expect(await llm.remaining(tokens, `api_key=${key},model=m4`)).toEqual({ "model-tokens": MODEL_BUDGET });
    expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET - 640 });
  });

  it("a body without the model member skips the per-model budget only", async () => {
    const { rules, tokens } = llmRules();
    const llm = llmGateway(rules);
    const key = uniqueIp();
    const headers = { "x-api-key": key };
    for (const body of [
      JSON.stringify({ max_tokens: 50 }),
      JSON.stringify({ model: { name: "m1" }, max_tokens: 50 }),
      JSON.stringify({ model: null, max_tokens: 50 }),
    ])
      expect((await llm.send("/llm/v1/chat/completions?in=1&out=2", { headers, body })).response.status).toBe(200);
    // Another Content-Type is no JSON body: not read, the default reserved (and the usage charged).
    const text = await llm.send("/llm/v1/chat/completions?in=1&out=2", { headers: { ...headers, "content-type": "text/plain" }, body: chat("m1") });
    expect(text.response.status).toBe(200);
    expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET - 12 });
    expect(await llm.remaining(tokens, `api_key=${key},model=m1`)).toEqual({ "model-tokens": MODEL_BUDGET });
  });
});

describe("the body reaches the origin byte for byte", () => {
  const bodies: [string, string][] = [
    ["spacing, escapes and key order kept", '{ "max_tokens":5 ,"model" : "m\\u0031",\n"messages":[{"role":"user","content":"h\\u00e9 \\"x\\" 🙂"}]}  '],
    ["numbers as written", '{"model":"m1","temperature":1.0e0,"max_tokens":5.0}'],
    ["duplicates off the paths read", '{"model":"m1","messages":[{"role":"a","role":"b"}]}'],
  ];
  for (const [name, body] of bodies) {
    it(name, async () => {
      const { rules } = llmRules();
      const llm = llmGateway(rules);
      const { response } = await llm.send("/llm/v1/chat/completions", { headers: { "x-api-key": uniqueIp() }, body });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-received-sha256")).toBe(await sha256(body));
      expect(response.headers.get("x-received-length")).toBe(String(new TextEncoder().encode(body).length));
    });
  }

  it("a chunked body, read up to the cap, goes on whole", async () => {
    const { rules, tokens } = llmRules();
    const llm = llmGateway(rules);
    const key = uniqueIp();
    const body = chat("m1", { max_tokens: 77 });
    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
        controller.close();
      },
    });
    const { response } = await llm.send("/llm/v1/chat/completions?mode=error", { headers: { "x-api-key": key }, body: stream });
    expect(response.headers.get("x-received-sha256")).toBe(await sha256(bytes));
    expect(await llm.remaining(tokens, `api_key=${key},model=m1`)).toEqual({ "model-tokens": MODEL_BUDGET - 77 });
  });
});

describe("bad and oversized bodies: 4xx, never 500, nothing spent", () => {
  const cases: [string, Record<string, string>, string, number, string][] = [
    ["malformed JSON", {}, '{"model": "m1",\n "max_tokens": 5,}', 400, "line 2, column 18 (character 33): expected a member name"],
    ["a duplicate model", {}, '{"model":"cheap","model":"dear"}', 400, 'the member "model" more than once'],
    ["a duplicate spelled with an escape", {}, '{"model":"cheap","mod\\u0065l":"dear"}', 400, 'the member "model" more than once'],
    ["not UTF-8", {}, "", 400, "not valid UTF-8"],
    ["over the cap", {}, JSON.stringify({ model: "m1", pad: "x".repeat(300) }), 413, "MAX_JSON_BODY_BYTES (256 bytes)"],
    ["JSON without a Content-Type, malformed", { "content-type": "" }, "{nope", 400, "line 1, column 2"],
  ];
  for (const [name, headers, body, status, says] of cases) {
    it(name, async () => {
      const { rules, tokens } = llmRules();
      const llm = llmGateway(rules, { MAX_JSON_BODY_BYTES: "256" });
      const key = uniqueIp();
      const sent = name === "not UTF-8" ? new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]) : body;
      const init = { headers: { "x-api-key": key, ...headers }, body: sent };
      if (headers["content-type"] === "") delete (init.headers as Record<string, string>)["content-type"];
      const request = llm.send("/llm/v1/chat/completions", init);
      const { response, text } = await request;
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(JSON.parse(text).detail).toContain(says);
      expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET });
    });
  }

  it("a chunked body is read up to the cap and no further: 413", async () => {
    const { rules } = llmRules();
    const llm = llmGateway(rules, { MAX_JSON_BODY_BYTES: "4096" });
    // 256 KiB in 1 KiB chunks, no Content-Length: only what the cap needs may be pulled.
    let pulled = 0;
    const chunked = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 256 * 1024) return controller.close();
        pulled += 1024;
        controller.enqueue(new TextEncoder().encode(pulled === 1024 ? `{"model":"m1","pad":"${"x".repeat(1001)}` : "x".repeat(1024)));
      },
    });
    const { response, text } = await llm.send("/llm/v1/chat/completions", { headers: { "x-api-key": uniqueIp() }, body: chunked });
    expect(response.status).toBe(413);
    expect(JSON.parse(text).detail).toContain("MAX_JSON_BODY_BYTES (4096 bytes)");
    expect(pulled).toBeLessThan(4096 + 8 * 1024);
  });

  it("a route that does not read the body never reads it, whatever its size", async () => {
    const { rules } = llmRules();
    const llm = llmGateway(rules, { MAX_JSON_BODY_BYTES: "16" });
    const { response } = await llm.send("/llm/other", { headers: { "x-api-key": uniqueIp() }, body: JSON.stringify({ pad: "x".repeat(100) }) });
    expect(response.status).not.toBe(413);
  });
});

describe("answers cut short", () => {
  it("an origin that closes early: the reservation stays, or what was reported when more", async () => {
    const { rules, tokens } = llmRules({ default: 100, max: 500 });
    const llm = llmGateway(rules);
    const key = uniqueIp();
    const headers = { "x-api-key": key };
    // OpenAI: nothing reported before the end: 300 reserved stays.
    await llm.send("/llm/v1/chat/completions?mode=early", {
      headers,
      body: chat("m1", { max_tokens: 300, stream: true, stream_options: { include_usage: true } }),
    });
    expect(await llm.remaining(tokens, `api_key=${key},model=m1`)).toEqual({ "model-tokens": MODEL_BUDGET - 300 });
    // Anthropic: message_start said 10 input (+1 output) before the end: less than the 200 reserved, which stays.
    await llm.send("/llm/v1/messages?mode=early&in=10", { headers, body: chat("m3", { max_tokens: 200, stream: true }) });
    expect(await llm.remaining(tokens, `api_key=${key},model=m3`)).toEqual({ "model-tokens": MODEL_BUDGET - 200 });
    // Anthropic: message_start said 80 input (+1 output) before the end: more than the 5 reserved, so 81.
    await llm.send("/llm/v1/messages?mode=early&in=80", { headers, body: chat("m2", { max_tokens: 5, stream: true }) });
    expect(await llm.remaining(tokens, `api_key=${key},model=m2`)).toEqual({ "model-tokens": MODEL_BUDGET - 81 });
  });

  it("an origin that breaks the connection mid-stream: the same rule", async () => {
    const { rules, tokens } = llmRules();
    const llm = llmGateway(rules);
    const key = uniqueIp();
    const { response } = await llm.open("/llm/v1/messages?mode=drop&in=90", {
      headers: { "x-api-key": key },
      body: chat("m1", { max_tokens: 5, stream: true }),
    });
    await response.text().catch(() => "");
    await llm.remaining(tokens, `api_key=${key}`);
    expect(await llm.remaining(tokens, `api_key=${key},model=m1`)).toEqual({ "model-tokens": MODEL_BUDGET - 91 });
  });

  it("a client that goes away: what was reported so far, when more than the reservation", async () => {
    const { rules, tokens } = llmRules();
    const llm = llmGateway(rules);
    const key = uniqueIp();
    const tag = uniqueTag("llm-abort");
    const { response, settled } = await llm.open(`/llm/v1/messages?mode=stall&in=70&tag=${tag}`, {
      headers: { "x-api-key": key },
      body: chat("m1", { max_tokens: 5, stream: true }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("message_start");
    await reader.cancel();
    await settled();
    await releaseOrigin(tag);
    expect(await llm.remaining(tokens, `api_key=${key},model=m1`)).toEqual({ "model-tokens": MODEL_BUDGET - 71 });
  });
});

describe("streams pass as they come", () => {
  it("the first event reaches the client while the origin still holds the rest, as through a bare forward", async () => {
    const { rules, tokens } = llmRules();
    const llm = llmGateway(rules);
    const key = uniqueIp();
    const body = chat("m1", { max_tokens: 300, stream: true, stream_options: { include_usage: true } });
    for (const through of ["bare", "floodgate"] as const) {
      const tag = uniqueTag(`llm-first-${through}`);
      const path = `/llm/v1/chat/completions?mode=stall&in=3&out=4&tag=${tag}`;
      const opened =
        through === "bare"
          ? {
              response: await fetch(`${testEnv.TEST_ORIGIN_URL}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body }),
              settled: async () => {},
            }
          : await llm.open(path, { headers: { "x-api-key": key }, body });
      const reader = (opened.response.body as ReadableStream<Uint8Array>).getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      // The origin has sent one event and waits: the client holds it already.
      expect(first, through).toContain("tok0");
      expect(await originSent(tag), through).toBe(1);
      await releaseOrigin(tag);
      let rest = "";
      for (let next = await reader.read(); !next.done; next = await reader.read()) rest += new TextDecoder().decode(next.value);
      expect(rest, through).toContain("[DONE]");
      await opened.settled();
    }
    expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET - 7 });
  });
});
