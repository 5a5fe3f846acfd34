// Issue 25's probe of descriptor values of 64 KB, through the real gateway,
// the decision API and the RPC binding in workerd (docs/rules.md, "Long
// values"): keyed by their first 32 characters and SHA-256, the same in
// counters, metrics, the dashboard and the counters API.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { shownValue } from "../../src/metrics/labels.ts";
import { descriptorText } from "../../src/metrics/traffic-shape.ts";
import bundledRules from "../../rules.json";
import type { Env } from "../../src/config.ts";
import { isolateContexts } from "../../src/admission/isolate-context.ts";
import { LiveRules } from "../../src/isolate/live-rules.ts";
import { bundledRules as compiledBundle } from "../../src/rules/bundled.ts";
import { FloodgateRpc } from "../../src/worker.ts";
import { testEnv, workerLabelKey } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { d, envoyApi as realTimeApi } from "../support/envoy.ts";

const suffix = `${Date.now()}`;

function rules(domain: string) {
  return {
    domain: `${domain}-${suffix}`,
    descriptors: [{ key: "token", detailed_metric: true, rate_limit: { unit: "minute", requests_per_unit: 2, algorithm: "fixed_window" } }],
    routes: [{ match: { path: "/long" }, descriptors: [[{ key: "token", header: "x-token" }]] }],
  };
}

/**
 * One driven clock per test (docs/testing.md) for the isolates and the
 * counter objects: it stands still, so no window turns during a test. Each
 * test starts in a later hour than the last (objects are shared by the file).
 */
const clock = { at: OBJECT_EPOCH };
const now = () => clock.at;
beforeEach(() => {
  clock.at = Math.ceil((clock.at + 1) / 3_600_000) * 3_600_000 + 2_500;
});
// DECISION_TIMEOUT_MS, a timer on the machine's clock, so long that a loaded machine cannot turn an answer into failure-open.
const drivenEnv = (): Partial<Env> => ({ COUNTERS: drivenCounters(testEnv.COUNTERS, now), DECISION_TIMEOUT_MS: "600000" });
const envoyApi = (rules: unknown, vars: Partial<Env> = drivenEnv()) => realTimeApi(rules, vars, { now });

/** FloodgateRpc as the worker exports it, its isolate on the test's clock (the class's one test seam). */
class DrivenRpc extends FloodgateRpc {
  protected override readonly isolates = isolateContexts(new LiveRules(compiledBundle, { bundledJson: bundledRules }), { now });
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("a 64 KB descriptor value", () => {
  const big = (tail: string) => `${"k".repeat(65_536 - tail.length)}${tail}`;

  it("is accepted and counted by its digest, through the gateway, the metrics and the dashboard", async () => {
    const api = envoyApi(rules("long"));
    const domain = `long-${suffix}`;
    const a = big("A");
    const b = big("B");
    const send = (value: string) => api.call("/long", { headers: { "x-token": value } });
    const seen: number[] = [];
    for (const value of [a, a, b, a, b]) {
      const res = await send(value);
      await res.arrayBuffer();
      seen.push(res.status);
    }
    // Same long value: one counter. Two values differing only in the last byte: two counters.
    expect(seen).toEqual([200, 200, 200, 429, 200]);
    const keyed = `${a.slice(0, 32)}…sha256:${await sha256Hex(a)}`;
    const metrics = await (await api.admin("/__ratelimit/metrics")).text();
    const lines = metrics.split("\n").filter((line) => line.includes(domain));
    // Metrics and the dashboard keep the key shortened further: a prefix and a hash, never the value (docs/metrics.md).
    expect(lines.some((line) => line.includes(`token_${shownValue("token", keyed, workerLabelKey())}`))).toBe(true);
    expect(metrics).not.toContain(keyed);
    expect(lines.every((line) => line.length < 1_000)).toBe(true);
    const traffic = await (await api.admin("/__ratelimit/traffic")).json<any>();
    const policy = traffic.policies.find((p: any) => p.domain === domain && p.descriptor === "token");
    expect(policy.top_now.keys.map((k: { key: string }) => k.key)).toEqual([
      descriptorText([{ key: "token", value: shownValue("token", keyed, workerLabelKey()) }]),
    ]);
  });

  it("is counted the same way through the decision API", async () => {
    const api = envoyApi(rules("long-json"));
    const domain = `long-json-${suffix}`;
    const a = big("C");
    const codes: string[] = [];
    for (const value of [a, a, big("D"), a]) codes.push((await api.json({ domain, descriptors: [d(["token", value])] })).body.overallCode);
    expect(codes).toEqual(["OK", "OK", "OK", "OVER_LIMIT"]);
    // The counters API finds the counter by the long value and by its keyed form alike.
    const keyed = `${a.slice(0, 32)}…sha256:${await sha256Hex(a)}`;
    for (const value of [a, keyed]) {
      const res = await api.admin(`/__ratelimit/counters?domain=${domain}&descriptor=token=${encodeURIComponent(value)}`);
      expect(res.status).toBe(200);
      expect((await res.json<any>()).limits[0].remaining).toBe(0);
    }
  });

  it("is counted the same way through the RPC binding, under the bundled rules", async () => {
    const vars = drivenEnv();
    const a = big(`rpc-${suffix}`);
    const rpcEnv = { ...testEnv, ...vars };
    const ask = async (value: string, hits_addend?: number) => {
      const ctx = createExecutionContext();
      const rpc = new DrivenRpc(ctx, rpcEnv);
      const answer = await rpc.shouldRateLimit({
        domain: "api",
        descriptors: [{ entries: [{ key: "api_key", value }] }],
        ...(hits_addend ? { hits_addend } : {}),
      });
      await waitOnExecutionContext(ctx);
      return answer;
    };
    expect((await ask(a, 1000)).overallCode).toBe("OK");
    // 2.5 s into the minute on the test's clock, which the RPC's isolate reads too.
    expect(await ask(a)).toEqual({
      overallCode: "OVER_LIMIT",
      statuses: [{ code: "OVER_LIMIT", currentLimit: { name: "per-key", requestsPerUnit: 1000, unit: "MINUTE" }, durationUntilReset: "58s" }],
    });
    // The counter the RPC spent is the one the counters API names by the keyed form.
    const admin = envoyApi(bundledRules, vars);
    const keyed = `${a.slice(0, 32)}…sha256:${await sha256Hex(a)}`;
    const res = await admin.admin(`/__ratelimit/counters?domain=api&descriptor=api_key=${encodeURIComponent(keyed)}`);
    expect(res.status).toBe(200);
    expect((await res.json<any>()).limits[0].remaining).toBe(0);
  });

  it("keys a value by its digest from 257 bytes of UTF-8, and keeps one of 256 as it is", async () => {
    const api = envoyApi(rules("long-edge"));
    const domain = `long-edge-${suffix}`;
    const remaining = async (value: string) => {
      const res = await api.admin(`/__ratelimit/counters?domain=${domain}&descriptor=token=${encodeURIComponent(value)}`);
      return (await res.json<any>()).limits[0].remaining;
    };
    const kept = "é".repeat(128); // 256 bytes
    const keyed = `${kept}x`; // 257 bytes
    for (const value of [kept, keyed]) await api.json({ domain, descriptors: [d(["token", value])] });
    // Each counter is found by its own value; only the longer one also by its digest form.
    expect([await remaining(kept), await remaining(keyed)]).toEqual([1, 1]);
    expect(await remaining(`${kept.slice(0, 32)}…sha256:${await sha256Hex(kept)}`)).toBe(2);
    expect(await remaining(`${keyed.slice(0, 32)}…sha256:${await sha256Hex(keyed)}`)).toBe(1);
  });
});
