import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { CounterCall, CounterVerdict } from "../../src/stored/wire-calls.ts";
import { fromWire, toWire } from "../../src/stored/wire.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";

const counters = (env as unknown as Env).COUNTERS;

// Break tried: toWire without its tagged second pass (plain JSON.stringify): Infinity came back null and
// every test here but the first failed.
describe("one JSON text per batch (src/stored/wire.ts)", () => {
  it("round-trips plain data unchanged", () => {
    const calls = [{ key: '["d",["user","null"]]', limits: [{ id: "a", algorithm: "gcra", limit: 5, windowMs: 1000, burst: 5 }], cost: 1 }];
    expect(toWire(calls)).toBe(JSON.stringify(calls));
    expect(fromWire(toWire(calls))).toEqual(calls);
  });

  it("keeps Infinity, -Infinity and NaN, beside strings that look like the tag", () => {
    const value = { a: Infinity, b: [-Infinity, 1, Number.NaN], c: "\u0000num:Infinity!", d: "x\u0000num:5", e: "null" };
    const back = fromWire<typeof value>(toWire(value));
    expect(back.a).toBe(Infinity);
    expect(back.b[0]).toBe(-Infinity);
    expect(back.b[1]).toBe(1);
    expect(back.b[2]).toBeNaN();
    expect(back.d).toBe("x\u0000num:5");
    expect(back.e).toBe("null");
  });

  it("carries a verdict whose retry never comes (cost above the limit) from a real object", async () => {
    const stub = counters.getByName("wire-infinite");
    // The object's clock stands still, so both answers are taken at the same instant.
    await driveObject(stub, () => OBJECT_EPOCH);
    const call: CounterCall = { key: '["wire",["user","u"]]', limits: [{ id: "w", algorithm: "fixed_window", limit: 2, windowMs: 60_000, burst: 2 }], cost: 3 };
    const [verdict] = fromWire<CounterVerdict[]>(await stub.decideText(toWire([call])));
    const [cloned] = (await stub.decide([call])) as CounterVerdict[];
    expect(verdict.decisions[0].retryAfterMs).toBe(Infinity);
    expect(verdict).toEqual(cloned);
  });
});
