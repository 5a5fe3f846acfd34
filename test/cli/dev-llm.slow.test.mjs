// Token budgets against `wrangler dev` (npm run dev) and the mock OpenAI/Anthropic API of
// test/support/llm-origin.mjs on 127.0.0.1 (ORIGIN_URL), with the rules of docs/llm.md as they stand
// there: usage charged exactly from JSON and streamed answers of both APIs, reservations that admit only
// what fits while another is held open and give the rest back, per-model budgets apart, the body byte for
// byte at the origin, the first streamed event at the client while the origin holds the rest (order, not
// time), streams the origin ends early (cleanly, or by breaking the connection) charged by the rule of
// "When a stream is cut short", bad and oversized bodies (a chunked one too) 4xx, never 500.
// The dev tier (a wrangler dev of its own: it needs ORIGIN_URL):
//   flock /tmp/floodgate-heavy.lock ./node_modules/.bin/node --test test/cli/dev-llm.slow.test.mjs
// Break tried on the workerd twin of the ordering check (test/gateway/llm.test.ts): followUsage reading the
// whole stream before passing its first chunk on; the first event reached the client only after the origin's
// 10 s stall, with every event already sent. Breaks tried here: the settlement's refunds dropped
// (src/limiter/reconcile.ts settlementCalls skipping negative deltas: the JSON, stream, both-APIs and
// "admits only while it fits" cases failed, remaining short by the unused tokens); a cut stream charged its report
// only (reportedOf without Math.max: "a stream the origin breaks off" failed, 40 charged for 321 reserved).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { after, before, describe, it } from "node:test";
import { startDev, putRules } from "../browser/dev-server.mjs";
import { isLlmPath, serveLlm } from "../support/llm-origin.mjs";

const TOKEN = "llm-token-of-at-least-32-characters!!";
const DAY = 2_000_000;
const MODEL_MINUTE = 30_000;

/** The first ```json block of docs/llm.md: the rules the page shows. */
function docsRules() {
  const page = readFileSync(new URL("../../docs/llm.md", import.meta.url), "utf8");
  const block = /```json\n([\s\S]*?)\n```/.exec(page);
  assert.ok(block, "docs/llm.md has no json example");
  return JSON.parse(block[1]);
}

let dev;
let origin;
let originBase;

before(async () => {
  origin = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://origin.test");
    if (isLlmPath(url.pathname)) serveLlm(req, res, url);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originBase = `http://127.0.0.1:${origin.address().port}`;
  dev = await startDev({ ADMIN_TOKEN: TOKEN, ORIGIN_URL: `${originBase}/llm`, MAX_JSON_BODY_BYTES: "4096" });
  await putRules(dev, TOKEN, docsRules());
});

after(async () => {
  await dev?.stop();
  await new Promise((resolve) => origin?.close(resolve) ?? resolve());
});

const post = (path, key, body, headers = {}) =>
  fetch(`${dev.base}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers }, body });

async function remaining(descriptor) {
  const query = `domain=llm-tokens&descriptor=${descriptor}`;
  const response = await fetch(`${dev.base}/__ratelimit/counters?${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.status, 200, await response.clone().text());
  const { limits } = await response.json();
  return Object.fromEntries(limits.map((limit) => [limit.name, limit.remaining]));
}

/** The settlement runs after the answer, in the background: poll until the counter shows `want`. */
async function settled(descriptor, name, want) {
  let last;
  for (let i = 0; i < 50; i++) {
    last = (await remaining(descriptor))[name];
    if (last === want) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(last, want, `${descriptor} ${name}`);
}

describe("token budgets against wrangler dev", { timeout: 240_000 }, () => {
  it("charges the usage of a JSON answer exactly, on the key's budgets and the model's", async () => {
    const key = `k-json-${Date.now()}`;
    const response = await post("/v1/chat/completions?in=12&out=30", key, JSON.stringify({ model: "gpt-4o", max_tokens: 900, messages: [] }));
    assert.equal(response.status, 200);
    assert.match(response.headers.get("ratelimit-policy") ?? "", /"gpt-4o-tokens-per-minute";q=30000;qu="tokens";w=60/);
    assert.match(response.headers.get("ratelimit") ?? "", /"tokens-per-day";r=1999100;/);
    await response.json();
    const api = `api_key=Bearer ${key}`;
    await settled(api, "tokens-per-day", DAY - 42);
    await settled(`${api},model=gpt-4o`, "gpt-4o-tokens-per-minute", MODEL_MINUTE - 42);
    // Another model has no budget of its own in these rules: only the key's count it.
    const other = await post("/v1/chat/completions?in=1&out=2", key, JSON.stringify({ model: "gpt-4o-mini", max_tokens: 10 }));
    await other.json();
    await settled(api, "tokens-per-day", DAY - 45);
    await settled(`${api},model=gpt-4o`, "gpt-4o-tokens-per-minute", MODEL_MINUTE - 42);
  });

  it("streams the first event while the origin holds the rest, and charges the usage read on the way", async () => {
    const key = `k-stream-${Date.now()}`;
    const tag = `dev-llm-${Date.now()}`;
    const body = JSON.stringify({ model: "claude", max_tokens: 500, stream: true });
    // The docs' Anthropic route keys on x-api-key, as Anthropic's API does.
    const response = await post(`/v1/messages?mode=stall&in=40&out=60&tag=${tag}`, "", body, { "x-api-key": key });
    assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.equal(response.headers.get("x-received-sha256"), createHash("sha256").update(body).digest("hex"));
    const reader = response.body.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /message_start/);
    const state = await (await fetch(`${originBase}/__llm/state?tag=${tag}`)).json();
    assert.equal(state.sent, 1, "the origin has sent only its first event");
    await fetch(`${originBase}/__llm/release?tag=${tag}`, { method: "POST" });
    let rest = "";
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += new TextDecoder().decode(next.value);
    assert.match(rest, /message_stop/);
    await settled(`api_key=${key}`, "tokens-per-day", DAY - 100);
  });

  it("keeps the reservation of a stream the origin ends early", async () => {
    const key = `k-early-${Date.now()}`;
    const response = await post(
      "/v1/chat/completions?mode=early",
      key,
      JSON.stringify({ model: "x", max_tokens: 321, stream: true, stream_options: { include_usage: true } }),
    );
    await response.text();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await settled(`api_key=Bearer ${key}`, "tokens-per-day", DAY - 321);
  });

  it("charges the usage of an OpenAI stream that asked for it, and of an Anthropic JSON answer", async () => {
    const key = `k-both-${Date.now()}`;
    const stream = await post(
      "/v1/chat/completions?in=7&out=11",
      key,
      JSON.stringify({ model: "gpt-4o", max_tokens: 800, stream: true, stream_options: { include_usage: true } }),
    );
    assert.match(await stream.text(), /\[DONE\]/);
    await settled(`api_key=Bearer ${key}`, "tokens-per-day", DAY - 18);
    await settled(`api_key=Bearer ${key},model=gpt-4o`, "gpt-4o-tokens-per-minute", MODEL_MINUTE - 18);
    const anthropic = await post("/v1/messages?in=30&out=4", "", JSON.stringify({ model: "claude", max_tokens: 600 }), { "x-api-key": key });
    assert.equal((await anthropic.json()).usage.output_tokens, 4);
    await settled(`api_key=${key}`, "tokens-per-day", DAY - 34);
  });

  it("admits a reservation only while it fits, refuses the rest in tokens, and gives back what a held stream did not use", async () => {
    const key = `k-fit-${Date.now()}`;
    const tag = `dev-llm-fit-${Date.now()}`;
    // More than the model's budget at once: refused, the problem naming the budget in tokens.
    const over = await post("/v1/chat/completions", key, JSON.stringify({ model: "gpt-4o", max_tokens: MODEL_MINUTE + 1 }));
    assert.equal(over.status, 429);
    assert.match((await over.json()).detail, /gpt-4o-tokens-per-minute .*30000 tokens per 60 s/);
    // A stream holding all but 10 of the model's budget, stalled by the origin after its first event.
    const held = await post(
      `/v1/chat/completions?mode=stall&tag=${tag}&in=5&out=20`,
      key,
      JSON.stringify({ model: "gpt-4o", max_tokens: MODEL_MINUTE - 10, stream: true, stream_options: { include_usage: true } }),
    );
    assert.equal(held.status, 200);
    const reader = held.body.getReader();
    await reader.read();
    const eleven = await post("/v1/chat/completions?in=1&out=1", key, JSON.stringify({ model: "gpt-4o", max_tokens: 11 }));
    assert.equal(eleven.status, 429, "11 tokens do not fit the 10 left");
    await eleven.text();
    // Another model has its own budget (here: only the key's): the same 11 tokens fit there.
    const other = await post("/v1/chat/completions?in=1&out=1", key, JSON.stringify({ model: "gpt-4o-mini", max_tokens: 11 }));
    assert.equal(other.status, 200);
    await other.text();
    const ten = await post("/v1/chat/completions?in=1&out=1", key, JSON.stringify({ model: "gpt-4o", max_tokens: 10 }));
    assert.equal(ten.status, 200, "10 tokens fit");
    await ten.text();
    await fetch(`${originBase}/__llm/release?tag=${tag}`, { method: "POST" });
    for (let next = await reader.read(); !next.done; next = await reader.read());
    // The held stream used 25, the two small ones 2 each: the rest of every reservation came back.
    await settled(`api_key=Bearer ${key},model=gpt-4o`, "gpt-4o-tokens-per-minute", MODEL_MINUTE - 25 - 2);
    await settled(`api_key=Bearer ${key}`, "tokens-per-day", DAY - 25 - 2 - 2);
  });

  it("charges a stream the origin breaks off the larger of its reservation and what it had reported", async () => {
    const key = `k-drop-${Date.now()}`;
    const cut = async (query, maxTokens) => {
      const response = await post(`/v1/messages?mode=drop&${query}`, "", JSON.stringify({ model: "claude", max_tokens: maxTokens, stream: true }), {
        "x-api-key": key,
      });
      assert.equal(response.status, 200);
      await response.text().catch(() => "");
    };
    // message_start reported 40 input + 1 output before the connection broke: less than the 321 reserved.
    await cut("in=40", 321);
    await settled(`api_key=${key}`, "tokens-per-day", DAY - 321);
    // It reported 900 + 1, more than the 100 reserved: that is charged.
    await cut("in=900", 100);
    await settled(`api_key=${key}`, "tokens-per-day", DAY - 321 - 901);
  });

  it("sends the body to the origin byte for byte: spacing, escapes and member order as written", async () => {
    const body = '{ "max_tokens" : 5,\n  "model":"gpt-4o", "messages":[{"role":"user","content":"caf\\u00e9 \\"q\\" \u00e9"}] }';
    const response = await post("/v1/chat/completions", `k-bytes-${Date.now()}`, body);
    assert.equal(response.status, 200);
    const bytes = Buffer.from(body, "utf8");
    assert.equal(response.headers.get("x-received-length"), String(bytes.length));
    assert.equal(response.headers.get("x-received-sha256"), createHash("sha256").update(bytes).digest("hex"));
    await response.text();
  });

  it("answers a chunked body past the cap with 413, counting nothing", async () => {
    const key = `k-chunked-${Date.now()}`;
    let pulled = 0;
    // 8 KiB in 1 KiB chunks, twice the cap: small enough that the socket takes it all, so the client's upload never
    // meets the connection the 413 closed (with 64 KiB, fetch sometimes failed on that before it read the answer).
    const body = new ReadableStream({
      pull(controller) {
        pulled += 1;
        if (pulled > 8) return controller.close();
        controller.enqueue(new TextEncoder().encode(pulled === 1 ? '{"model":"gpt-4o","pad":"' : "x".repeat(1024)));
      },
    });
    const response = await fetch(`${dev.base}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
      duplex: "half",
    });
    assert.equal(response.status, 413);
    assert.match((await response.json()).detail, /MAX_JSON_BODY_BYTES \(4096 bytes\)/);
    assert.equal((await remaining(`api_key=Bearer ${key}`))["tokens-per-day"], DAY);
  });

  it("answers bad and oversized bodies with 4xx, never 500", async () => {
    const key = `k-bad-${Date.now()}`;
    const cases = [
      ['{"model": "gpt-4o",, }', 400, /not valid JSON at line 1, column 20 \(character 19\): expected a member name/],
      ['{"model":"a","model":"b"}', 400, /more than once/],
      ['{"mod\\u0065l":"a","model":"b"}', 400, /more than once/],
      [JSON.stringify({ model: "m", pad: "x".repeat(5000) }), 413, /MAX_JSON_BODY_BYTES \(4096 bytes\)/],
    ];
    for (const [body, status, detail] of cases) {
      const response = await post("/v1/chat/completions", key, body);
      assert.equal(response.status, status, body.slice(0, 40));
      assert.match((await response.json()).detail, detail);
    }
    assert.equal((await remaining(`api_key=Bearer ${key}`))["tokens-per-day"], DAY);
  });
});
