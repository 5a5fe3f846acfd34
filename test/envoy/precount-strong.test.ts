/**
 * The decision API never pre-counts (docs/precount.md: its callers ask for an
 * exact answer): every call on a `precount` limit is decided at the object,
 * and no lease is asked for or reported.
 */
import { describe, expect, it } from "vitest";
import type { DecideCall } from "../../src/stored/wire-calls.ts";
import { fromWire } from "../../src/stored/wire.ts";
import { testEnv } from "../support/app.ts";
import { d, envoyApi } from "../support/envoy.ts";

/** The counters namespace, counting the calls its objects are sent by kind. */
function countingCounters() {
  const kinds = new Map<string, number>();
  const counters = testEnv.COUNTERS;
  const binding = new Proxy(counters, {
    get(target, prop) {
      if (prop === "getByName") {
        return (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => {
          const stub = target.getByName(name, options);
          const count = (calls: DecideCall[]) => {
            for (const call of calls) kinds.set(call.kind ?? "decide", (kinds.get(call.kind ?? "decide") ?? 0) + 1);
          };
          const decide = (calls: DecideCall[]) => {
            count(calls);
            return stub.decide(calls);
          };
          // The edge sends its batches as one JSON text (src/stored/wire.ts).
          const decideText = (text: string) => {
            count(fromWire<DecideCall[]>(text));
            return stub.decideText(text);
          };
          const methods: Record<PropertyKey, unknown> = { decide, decideText };
          return new Proxy(stub, { get: (s, p) => methods[p] ?? Reflect.get(s, p) });
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? (...args: unknown[]) => Reflect.apply(value, target, args) : value;
    },
  });
  return { binding, kinds };
}

describe("the decision API on a pre-counted limit", () => {
  // Break tried: the Envoy service passing a defer to the decision (src/envoy/service.ts), which lets pre-counting
  // answer from a lease: absorb calls were sent and fewer hits reached the object.
  it("decides every call at the object, and never leases", async () => {
    const rules = {
      domain: "json-precount",
      descriptors: [{ key: "k", rate_limit: { unit: "hour", requests_per_unit: 1000, precount: { sync_ms: 50 } } }],
    };
    const { binding, kinds } = countingCounters();
    const { json } = envoyApi(rules, { COUNTERS: binding });
    const calls = 40;
    let last: { body: { statuses: { limitRemaining: number }[] } } | undefined;
    for (let i = 0; i < calls; i++) last = await json({ domain: "json-precount", descriptors: [d(["k", "hot"])] });
    expect(Object.fromEntries(kinds)).toEqual({ decide: calls });
    expect(last?.body.statuses[0].limitRemaining).toBe(1000 - calls);
  });
});
