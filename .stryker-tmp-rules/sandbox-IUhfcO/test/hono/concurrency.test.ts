/**
 * `rate_limit: { concurrency: N }` in the Hono middleware: the slot is held
 * while the downstream handler's body streams, and freed when it ends or the
 * client cancels it (docs/concurrency.md).
 */
// @ts-nocheck

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { rateLimit } from "../../src/hono/middleware.ts";
import { compiled, testEnv } from "../support/app.ts";
import { eventually } from "../support/origin.ts";

const rules = {
  domain: "hono-concurrency",
  descriptors: [{ key: "client", rate_limit: { concurrency: 1, name: "one-at-a-time" } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "client", header: "x-client" }]] }],
};

function userApp() {
  const app = new Hono<{ Bindings: Env }>();
  app.use("*", rateLimit({ rules: compiled(rules), headers: "draft-11" }));
  // A body that streams until the test reads it all: its end is the request's end.
  app.get("/stream", () => {
    const parts = ["one,", "two,", "three"];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const part = parts.shift();
        if (part === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(part));
      },
    });
    return new Response(body);
  });
  app.get("/fail", () => {
    throw new Error("handler failed");
  });
  return async (path: string, client: string) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request(`http://app.test${path}`, { headers: { "x-client": client } }), testEnv, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
}

let clients = 0;
const uniqueClient = () => `hono-client-${Date.now()}-${++clients}`;

describe("concurrency limits in the Hono middleware", () => {
  it("holds the slot until the handler's body has been read, then frees it", async () => {
    const call = userApp();
    const client = uniqueClient();
    const first = await call("/stream", client);
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Policy")).toBe('"one-at-a-time";q=1;qu="concurrent-requests"');
    const refused = await call("/stream", client);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("1");
    expect(await first.text()).toBe("one,two,three");
    const next = await eventually(async () => {
      const res = await call("/stream", client);
      return res.status === 200 ? res : undefined;
    }, 5_000);
    // A client that goes away frees it too.
    await next.body?.cancel();
    const after = await eventually(async () => {
      const res = await call("/stream", client);
      return res.status === 200 ? res : undefined;
    }, 5_000);
    expect(await after.text()).toBe("one,two,three");
  });

  it("frees the slot when the handler throws", async () => {
    const call = userApp();
    const client = uniqueClient();
    for (let i = 0; i < 3; i++) {
      const res = await call("/fail", client);
      expect(res.status).toBe(500);
      await res.text();
    }
  });
});
