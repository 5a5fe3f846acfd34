/**
 * An override stored through one isolate reaches another isolate's
 * LiveRules by its background version check, within the rules' bound
 * (docs/admin-api.md, "Rules"), and survives the RulesObject's restart.
 * Two gateways on one real RulesObject, their rules clock driven.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, evictAllDurableObjects, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { isolateContexts } from "../../src/admission/isolate-context.ts";
import { createApp } from "../../src/gateway/app.ts";
import { OverridesOverlay } from "../../src/overrides/overlay.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { LiveRules, REFRESH_AFTER_MS } from "../../src/isolate/live-rules.ts";
import { TOKEN } from "../support/envoy.ts";

const RULES = { domain: "prop", descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 5 } }] };
const testEnv = env as unknown as Env;
let objects = 0;

/** One isolate of the gateway following `objectName` on the rules clock `clock`. */
function isolate(objectName: string, clock: { at: number }) {
  const rules = compileOnce(RULES, "the test's rules")();
  const app = createApp(isolateContexts(new LiveRules(() => rules, { objectName, overlay: new OverridesOverlay(), now: () => clock.at })));
  const callEnv = { ...testEnv, ADMIN_TOKEN: TOKEN, ORIGIN_URL: undefined };
  async function call(path: string, init: RequestInit = {}) {
    const ctx = createExecutionContext();
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "cf-connecting-ip": "192.0.2.9" };
    const response = await app.fetch(new Request(`http://gateway.test${path}`, { ...init, headers }), callEnv, ctx);
    const body = await response.json<any>();
    await waitOnExecutionContext(ctx);
    return { status: response.status, body };
  }
  const limitOf = async (user: string) => {
    const answer = await call("/__ratelimit/json", {
      method: "POST",
      body: JSON.stringify({ domain: "prop", descriptors: [{ entries: [{ key: "user", value: user }] }], hits_addend: 0 }),
    });
    return answer.body.statuses[0].currentLimit.requestsPerUnit as number;
  };
  return { call, limitOf };
}

describe("override propagation", () => {
  it("reaches another isolate by its background check, within the rules' bound, and stays after the object restarts", async () => {
    const clock = { at: 5_000_000 };
    const objectName = `overrides-prop-${++objects}`;
    const [a, b] = [isolate(objectName, clock), isolate(objectName, clock)];
    expect([await a.limitOf("acme"), await b.limitOf("acme")]).toEqual([5, 5]);

    clock.at += REFRESH_AFTER_MS - 1;
    const put = await a.call("/__ratelimit/overrides", {
      method: "PUT",
      body: JSON.stringify({ domain: "prop", descriptor: "user=acme", rate_limit: { unit: "minute", requests_per_unit: 500 } }),
    });
    expect(put.status).toBe(200);
    const putAt = clock.at;
    // The isolate that stored it applies it at once; the other still decides with what it last checked.
    expect(await a.limitOf("acme")).toBe(500);
    expect(await b.limitOf("acme")).toBe(5);
    // From REFRESH_AFTER_MS its next request checks in the background (that request is not held for it)…
    clock.at += 1;
    expect(await b.limitOf("acme")).toBe(5);
    // …and the one after decides with the override, well within 10 s of the PUT.
    expect(await b.limitOf("acme")).toBe(500);
    expect(clock.at - putAt).toBeLessThan(10_000);

    // Removal travels the same way.
    await a.call("/__ratelimit/overrides?domain=prop&descriptor=user=acme", { method: "DELETE" });
    clock.at += REFRESH_AFTER_MS;
    await b.limitOf("acme");
    expect(await b.limitOf("acme")).toBe(5);

    // Durable: a fresh isolate after the object restarts still gets what is stored.
    await a.call("/__ratelimit/overrides", {
      method: "PUT",
      body: JSON.stringify({ domain: "prop", descriptor: "user=*", rate_limit: { unit: "minute", requests_per_unit: 7 } }),
    });
    await evictAllDurableObjects();
    const c = isolate(objectName, clock);
    expect(await c.limitOf("anyone")).toBe(7);
    expect((await c.call("/__ratelimit/overrides?domain=prop")).body.overrides).toHaveLength(1);
  });
});
