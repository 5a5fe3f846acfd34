import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import type { Env } from "../../src/config.ts";
import { decide } from "../../src/limiter/decide.ts";
import type { DomainDescriptors } from "../../src/rules/types.ts";
import { compiled } from "../support/app.ts";
import { drivenTime } from "../support/driven-time.ts";
import { driveObject, OBJECT_EPOCH, trackedCounters } from "../support/driven-object.ts";

const counters = (env as unknown as Env).COUNTERS;

function domainWith(name: string, rateLimit: Record<string, unknown>) {
  return compiled({ domain: name, placement: "per_key", descriptors: [{ key: "user", rate_limit: rateLimit }] }).domains.get(name)!;
}

const request = (domain: ReturnType<typeof domainWith>, user: string): DomainDescriptors[] => [{ domain, descriptors: [[{ key: "user", value: user }]] }];

/** The object that owns a per_key counter, to count the calls it serves. */
const ownerOf = (domain: string, user: string) => counters.getByName(`${domain}/key/${JSON.stringify([domain, ["user", user]])}`);

/** A simulated edge isolate: its own runtime, and its waitUntil work. */
function isolate(coalesce = true) {
  const background: Promise<unknown>[] = [];
  const edge = new EdgeRuntime(counters, { coalesce });
  return { edge, background, defer: (p: Promise<unknown>) => void background.push(p) };
}

describe("certain-block cache (through decide, real objects)", () => {
  it("answers a blocked key locally, without calling its object, until the block's T", async () => {
    const domain = domainWith("edge-block", { unit: "second", unit_multiplier: 2, requests_per_unit: 1, burst: 3, algorithm: "token_bucket" });
    // The isolate and the object on one clock the test moves: it stands still unless moved.
    let clock = OBJECT_EPOCH;
    await driveObject(ownerOf("edge-block", "u"), () => clock);
    const background: Promise<unknown>[] = [];
    const a = { edge: new EdgeRuntime(counters, { now: () => clock }), defer: (p: Promise<unknown>) => void background.push(p) };
    const go = () => decide(a.edge, request(domain, "u"), { timeoutMs: 1_000, defer: a.defer });
    let first429: Awaited<ReturnType<typeof go>> | undefined;
    for (let i = 0; i < 4; i++) first429 = await go();
    expect(first429?.allowed).toBe(false);
    const callsAtBlock = (await ownerOf("edge-block", "u").stats()).calls;
    // A token refills every 2 s, and the clock stands still: the block holds for these 20 requests.
    for (let i = 0; i < 20; i++) {
      const r = await go();
      expect(r.allowed).toBe(false);
      expect(r.retryAfterMs).toBeGreaterThan(0);
      expect(r.retryAfterMs).toBeLessThanOrEqual(first429!.retryAfterMs);
    }
    // The 20 rejections made no call to the object.
    expect((await ownerOf("edge-block", "u").stats()).calls).toBe(callsAtBlock);
    expect(a.edge.stats.cachedBlocks).toBeGreaterThan(0);
    // A millisecond before the block's end it still holds; at its end the object is asked, and allows.
    clock += first429!.retryAfterMs - 1;
    expect((await go()).allowed).toBe(false);
    expect((await ownerOf("edge-block", "u").stats()).calls).toBe(callsAtBlock);
    clock += 1;
    expect((await go()).allowed).toBe(true);
  });
});

describe("request coalescing (through decide, real objects)", () => {
  it("decides 300 concurrent same-key requests in fewer object calls, with the same decisions as one call each", async () => {
    const domain = domainWith("edge-coalesce", { unit: "year", requests_per_unit: 100, algorithm: "token_bucket" });
    const run = async (user: string, coalesce: boolean) => {
      const edge = isolate(coalesce);
      const results = await Promise.all(Array.from({ length: 300 }, () => decide(edge.edge, request(domain, user), { timeoutMs: 5_000 })));
      const calls = (await ownerOf("edge-coalesce", user).stats()).calls;
      return { results, calls };
    };
    const batched = await run("batched", true);
    const single = await run("single", false);
    const summary = (rs: typeof batched.results) => rs.map((r) => `${r.allowed}:${r.remaining}`).sort();
    expect(summary(batched.results)).toEqual(summary(single.results));
    expect(batched.results.filter((r) => r.allowed)).toHaveLength(100);
    expect(single.calls).toBe(300);
    // The first call leaves at once; the other 299 arrive while it is in flight and leave together after it.
    expect(batched.calls).toBe(2);
  });
});

describe("several edges against one object namespace (seeded trace)", () => {
  // A deterministic pseudo-random trace: which edge each request arrives at.
  // 32-bit arithmetic (a float product loses the low bits, and x % edges came out 0 for nearly every request);
  // the high bits pick the edge, the low bits of this LCG having short periods.
  function trace(seed: number, length: number, edges: number): number[] {
    let x = seed >>> 0;
    return Array.from({ length }, () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return (x >>> 16) % edges;
    });
  }

  it("strong mode never allows more than the limit in the window, however the requests spread", async () => {
    const domain = domainWith("edge-strong", { unit: "hour", requests_per_unit: 50, algorithm: "sliding_window_log" });
    const edges = [isolate(), isolate(), isolate()];
    let allowed = 0;
    const order = trace(1, 240, edges.length);
    // Every edge gets a fair part of the requests, so the edges really race for the last slots.
    for (let e = 0; e < edges.length; e++) expect(order.filter((n) => n === e).length).toBeGreaterThan(240 / edges.length / 2);
    for (let i = 0; i < order.length; i += 20) {
      const wave = order.slice(i, i + 20).map((e) => decide(edges[e].edge, request(domain, "hot"), { timeoutMs: 5_000, defer: edges[e].defer }));
      allowed += (await Promise.all(wave)).filter((r) => r.allowed).length;
    }
    expect(allowed).toBe(50);
  });

  it("precount: an isolate that went quiet early still matches the object 2 × sync_ms after the last request anywhere", async () => {
    const syncMs = 50;
    // Far above the requests below, so no view is 0 and a stale one cannot agree by accident.
    const limit = 10_000;
    const domain = domainWith("edge-precount-quiet", { unit: "hour", requests_per_unit: limit, algorithm: "fixed_window", precount: { sync_ms: syncMs } });
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const [early, middle, late] = [drivenIsolate(time), drivenIsolate(time), drivenIsolate(time)];
      const user = `q-${Math.random()}`;
      const go = (i: ReturnType<typeof drivenIsolate>) => decide(i.edge, request(domain, user), { timeoutMs: 5_000, defer: i.defer });
      for (let i = 0; i < 5; i++) expect((await go(early)).allowed).toBe(true);
      // Then a request every 3 ms for 8 sync periods at `late`, for the first 3 at `middle`.
      for (let t = 0; t < 8 * syncMs; t += 3) {
        expect((await go(late)).allowed).toBe(true);
        if (t < 3 * syncMs) await go(middle);
        await time.advance(3);
      }
      // The last request was 3 ms ago: check at exactly 2 × sync_ms after it, not after the isolates' background work.
      await time.advance(2 * syncMs - 3);
      const probe = {
        key: JSON.stringify(["edge-precount-quiet", ["user", user]]),
        cost: 1,
        limits: [{ id: domain.root.keyOnly.get("user")!.limits[0].id, algorithm: "fixed_window" as const, limit, windowMs: 3_600_000, burst: limit }],
      };
      const truth = (await ownerOf("edge-precount-quiet", user).peek({ ...probe, cost: 0 })).decisions[0].remaining;
      expect(truth).toBeLessThan(limit - 5);
      expect([early, middle, late].map((i) => i.edge.precount.view(probe)?.[0].remaining)).toEqual([truth, truth, truth]);
      expect(early.edge.precount.stats.local).toBeGreaterThan(0);
      await untilQuiet(time, [early, middle, late], syncMs);
    } finally {
      time.stop();
    }
  });

  it("precount never allows more than the limit, and every edge converges within 2 × sync_ms", async () => {
    const syncMs = 30;
    const limit = 120;
    const domain = domainWith("edge-precount", { unit: "hour", requests_per_unit: limit, algorithm: "fixed_window", precount: { sync_ms: syncMs } });
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const edges = [drivenIsolate(time), drivenIsolate(time), drivenIsolate(time), drivenIsolate(time)];
      const served = edges.map(() => 0);
      let allowed = 0;
      const order = trace(7, 600, edges.length);
      for (let i = 0; i < order.length; i += 12) {
        if (i > 0) await time.advance(1 + (i % syncMs));
        const wave = order.slice(i, i + 12).map((e) => {
          served[e] += 1;
          return decide(edges[e].edge, request(domain, "pc"), { timeoutMs: 5_000, defer: edges[e].defer });
        });
        allowed += (await Promise.all(wave)).filter((r) => r.allowed).length;
      }
      expect(edges.some((e) => e.edge.precount.stats.local > 0)).toBe(true);
      expect(allowed).toBeGreaterThanOrEqual(limit);
      // Docs, "Edge pre-counting": local decisions spend leased quota only, so nothing past the limit, whatever E.
      expect(allowed).toBeLessThanOrEqual(limit);
      // The last request was now: 2 × sync_ms later, not after the edges' background work.
      await time.advance(2 * syncMs);
      const probe = {
        key: JSON.stringify(["edge-precount", ["user", "pc"]]),
        cost: 1,
        limits: [{ id: domain.root.keyOnly.get("user")!.limits[0].id, algorithm: "fixed_window" as const, limit, windowMs: 3_600_000, burst: limit }],
      };
      const truth = await ownerOf("edge-precount", "pc").peek({ ...probe, cost: 0 });
      // Every edge served requests on this counter, so every one has a view, and it is the object's.
      expect(served.every((n) => n > 0)).toBe(true);
      expect(edges.map((e) => e.edge.precount.view(probe)?.[0].remaining)).toEqual(edges.map(() => truth.decisions[0].remaining));
      await untilQuiet(time, edges, syncMs);
    } finally {
      time.stop();
    }
  });
});

/**
 * A simulated edge isolate on driven time (test/support/driven-time.ts): its
 * clock is the test's (and so is the objects'), and its calls to the real
 * objects are waited for at each step. Without coalescing: the coalescer spaces batches by the
 * machine's clock, which the test does not drive.
 */
function drivenIsolate(time: ReturnType<typeof drivenTime>) {
  const background: Promise<unknown>[] = [];
  // Every object it calls is put on the test's clock first: leases end on one clock on both sides.
  const edge = new EdgeRuntime(trackedCounters(time), { coalesce: false, now: time.now });
  return { edge, background, defer: (p: Promise<unknown>) => void background.push(p) };
}

/** Drive time until every isolate's background work has ended; fails if some still runs after 100 sync periods. */
async function untilQuiet(time: ReturnType<typeof drivenTime>, isolates: { background: Promise<unknown>[] }[], syncMs: number) {
  let done = false;
  void Promise.allSettled(isolates.flatMap((i) => i.background)).then(() => (done = true));
  for (let waited = 0; !done && waited < 100 * syncMs; waited += syncMs) await time.advance(syncMs);
  expect(done).toBe(true);
}
