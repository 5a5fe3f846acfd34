/**
 * A penalty block during an outage (docs/reliability.md, "Failure mode";
 * docs/rules.md, "Penalty box"): with FAILURE_MODE=local, a key this
 * isolate knows to be blocked stays refused for the rest of its block, not
 * only for the certain-block cache's 60 s hold; and once the objects answer
 * again, the breaches refused meanwhile reach the object with the key's
 * next call. Isolate and objects stand on one clock the test moves.
 */
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import { gateway, testEnv } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

const DOMAIN = "local-penalty";
const rules = (escalate: number) => ({
  domain: DOMAIN,
  descriptors: [
    {
      key: "user",
      rate_limit: {
        name: "per-user",
        unit: "second",
        requests_per_unit: 2,
        algorithm: "fixed_window",
        penalty: { block_s: 3_600, escalate, max_block_s: 14_400 },
      },
    },
  ],
  routes: [{ match: {}, descriptors: [[{ key: "user", header: "x-user" }]] }],
});

/** The driven counters namespace, every call failing while `outage.on` (an object out of reach). */
function switchable(now: () => number) {
  const outage = { on: false };
  const driven = drivenCounters(testEnv.COUNTERS, now);
  const counters = new Proxy(driven, {
    get(target, prop) {
      if (prop !== "getByName") return Reflect.get(target, prop);
      return (name: string) => {
        const stub = target.getByName(name);
        return {
          decideText: (text: string, version: number) => (outage.on ? Promise.reject(new Error("counter object unreachable")) : stub.decideText(text, version)),
        };
      };
    },
  });
  return { counters: counters as unknown as Env["COUNTERS"], outage };
}

let n = 0;
function scene(escalate: number) {
  const user = `lp${++n}-${Date.now()}`;
  const clock = { at: OBJECT_EPOCH + 50_000_000 + n * 10_000_000 };
  const now = () => clock.at;
  const { counters, outage } = switchable(now);
  const call = gateway(rules(escalate), { COUNTERS: counters, FAILURE_MODE: "local" }, { now });
  const hit = async () => {
    const response = await call("/x", { headers: { "x-user": user } });
    await response.body?.cancel();
    return `${response.status}:${response.headers.get("x-ratelimit-decision") ?? ""}:${response.headers.get("retry-after") ?? ""}`;
  };
  return { clock, outage, hit };
}

describe("a penalty block under FAILURE_MODE=local", () => {
  // Break tried: local-decision.ts reading only the hold (routeOf's lookup, not BlockCache.known): "200:local:" at +61 s.
  // Break tried: BlockCache.lookup dropping a block at the end of its hold: the same "200:local:" at +61 s.
  it("refuses a blocked key for the rest of its block while the objects are out of reach", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { clock, outage, hit } = scene(1);
    expect([await hit(), await hit(), await hit()]).toEqual(["200::", "200::", "429::3600"]);
    outage.on = true;
    clock.at += 61_000;
    expect(await hit()).toBe("429:local:3539");
    clock.at += 30 * 60_000;
    expect(await hit()).toBe("429:local:1739");
    // Past the block's end the isolate's own count decides: the window has long refilled.
    clock.at += 1_739_000;
    expect(await hit()).toBe("200:local:");
    errors.mockRestore();
  });

  // Break tried: local-decision.ts not counting breaches (edge.breaches.count removed): Retry-After 7079, not 14279, once the objects answer.
  it("carries the breaches it refused during the outage to the object once it answers", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { clock, outage, hit } = scene(2);
    expect([await hit(), await hit(), await hit()]).toEqual(["200::", "200::", "429::3600"]);
    outage.on = true;
    clock.at += 61_000;
    expect(await hit()).toBe("429:local:3539");
    outage.on = false;
    clock.at += 60_000;
    // One breach refused during the outage and this hit: 3,600 s → 7,200 → 14,400 s (max) from the start.
    expect(await hit()).toBe("429::14279");
    errors.mockRestore();
  });
});
