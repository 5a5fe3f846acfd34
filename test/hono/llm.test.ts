/**
 * The Hono middleware with a token budget (docs/llm.md): it reads the JSON
 * body to key on the model, the handler still reads the same body, and the
 * usage a handler streams back is settled as through the gateway.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { rateLimit } from "../../src/hono/middleware.ts";
import { compiled, testEnv, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "hono-llm",
  descriptors: [
    { key: "api_key", descriptors: [{ key: "model", rate_limit: { name: "model-tokens", unit: "day", requests_per_unit: 500, algorithm: "fixed_window" } }] },
  ],
  routes: [
    {
      match: { path: "/v1/*" },
      descriptors: [
        [
          { key: "api_key", header: "x-api-key" },
          { key: "model", json_body: "model" },
        ],
      ],
      cost: { json_body: "max_tokens", default: 100, max: 400 },
      cost_from_response: { usage: "openai" },
    },
  ],
};

function userApp() {
  const app = new Hono<{ Bindings: Env }>();
  app.use("*", rateLimit({ rules: compiled(rules) }));
  // The handler reads the body the middleware read, and streams its answer with the usage last.
  app.post("/v1/chat", async (c) => {
    const body = await c.req.json<{ model: string; used: number }>();
    return streamSSE(c, async (stream) => {
      await stream.writeSSE({ data: JSON.stringify({ model: body.model, choices: [{ delta: { content: "hi" } }] }) });
      await stream.writeSSE({ data: JSON.stringify({ choices: [], usage: { prompt_tokens: 0, completion_tokens: body.used, total_tokens: body.used } }) });
      await stream.writeSSE({ data: "[DONE]" });
    });
  });
  return async (body: unknown, key: string) => {
    const ctx = createExecutionContext();
    const request = new Request("http://app.test/v1/chat", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const response = await app.fetch(request, testEnv, ctx);
    const text = await response.text();
    await waitOnExecutionContext(ctx);
    return { status: response.status, text };
  };
}

describe("rateLimit() with a token budget", () => {
  it("keys on the model in the body, hands the handler the same body, and settles the streamed usage", async () => {
    const call = userApp();
    const key = uniqueIp();
    const first = await call({ model: "m1", max_tokens: 400, used: 70 }, key);
    expect(first.status).toBe(200);
    expect(first.text).toContain('"model":"m1"');
    // 430 left of m1's 500 once 70 were settled: 400 fits; a second 400 then does not (30 left).
    expect((await call({ model: "m1", max_tokens: 400, used: 400 }, key)).status).toBe(200);
    expect((await call({ model: "m1", max_tokens: 31, used: 1 }, key)).status).toBe(429);
    expect((await call({ model: "m2", max_tokens: 400, used: 1 }, key)).status).toBe(200);
  });
});
