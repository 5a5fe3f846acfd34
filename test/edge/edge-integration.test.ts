import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EdgeRuntime } from "../../src/edge/runtime.ts";
import { PRECOUNT_SHARE } from "../../src/edge/precount.ts";
import type { Env } from "../../src/config.ts";
import { decide } from "../../src/limiter/decide.ts";
import type { DomainDescriptors } from "../../src/rules/types.ts";
import { compiled } from "../support/app.ts";

const counters = (env as unknown as Env).COUNTERS;

function domainWith(name: string, rateLimit: Record<string, unknown>) {
  return compiled({ domain: name, placement: "per_key", descriptors: [{ key: "user", rate_limit: rateLimit }] }).domains.get(name)!;
}

const request = (domain: ReturnType<typeof domainWith>, user: string): DomainDescriptors[] =>
  [{ domain, descriptors: [[{ key: "user", value: user }]] }];

/** The object that owns a per_key counter, to count the calls it serves. */
const ownerOf = (domain: string, user: string) =>
  counters.getByName(`${domain}/key/${JSON.stringify([domain, ["user", user]])}`);

/** A simulated edge isolate: its own runtime, and its waitUntil work. */
function isolate(coalesce = true) {
  const background: Promise<unknown>[] = [];
  const edge = new EdgeRuntime(counters, { coalesce });
  return { edge, background, defer: (p: Promise<unknown>) => void background.push(p) };
}

describe("certain-block cache (through decide, real objects)", () => {
  it("answers a blocked key locally, without calling its object, until the block's T", async () => {
    const domain = domainWith("edge-block", { unit: "second", unit_multiplier: 2, requests_per_unit: 1, burst: 3, algorithm: "token_bucket" });
    const a = isolate();
    const go = () => decide(a.edge, request(domain, "u"), { timeoutMs: 1_000, defer: a.defer });
    let first429;
    for (let i = 0; i < 4; i++) first429 = await go();
    expect(first429!.allowed).toBe(false);
    const callsAtBlock = (await ownerOf("edge-block", "u").stats()).calls;
    // A token refills every 2 s, so the block lasts far longer than these 20 quick requests.
    for (let i = 0; i < 20; i++) {
      const r = await go();
      expect(r.allowed).toBe(false);
      expect(r.retryAfterMs).toBeGreaterThan(0);
      expect(r.retryAfterMs).toBeLessThanOrEqual(first429!.retryAfterMs);
    }
    // The 20 rejections made no call to the object.
    expect((await ownerOf("edge-block", "u").stats()).calls).toBe(callsAtBlock);
    expect(a.edge.stats.cachedBlocks).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, first429!.retryAfterMs + 5));
    expect((await go()).allowed).toBe(true);
  });
});

describe("request coalescing (through decide, real objects)", () => {
  it("decides 300 concurrent same-key requests in fewer object calls, with the same decisions as one call each", async () => {
    const domain = domainWith("edge-coalesce", { unit: "year", requests_per_unit: 100, algorithm: "token_bucket" });
    const run = async (user: string, coalesce: boolean) => {
      const edge = isolate(coalesce);
      const results = await Promise.all(Array.from({ length: 300 }, () =>
        decide(edge.edge, request(domain, user), { timeoutMs: 5_000 })));
      const calls = (await ownerOf("edge-coalesce", user).stats()).calls;
      return { results, calls };
    };
    const batched = await run("batched", true);
    const single = await run("single", false);
    const summary = (rs: typeof batched.results) => rs.map((r) => `${r.allowed}:${r.remaining}`).sort();
    expect(summary(batched.results)).toEqual(summary(single.results));
    expect(batched.results.filter((r) => r.allowed)).toHaveLength(100);
    expect(single.calls).toBe(300);
    expect(batched.calls).toBeLessThan(300);
  });
});

describe("several edges against one object namespace (seeded trace)", () => {
  // A deterministic pseudo-random trace: which edge each request arrives at.
  function trace(seed: number, length: number, edges: number): number[] {
    let x = seed;
    return Array.from({ length }, () => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % edges));
  }

  it("strong mode never allows more than the limit in the window, however the requests spread", async () => {
    const domain = domainWith("edge-strong", { unit: "hour", requests_per_unit: 50, algorithm: "sliding_window_log" });
    const edges = [isolate(), isolate(), isolate()];
    let allowed = 0;
    const order = trace(1, 240, edges.length);
    for (let i = 0; i < order.length; i += 20) {
      const wave = order.slice(i, i + 20).map((e) => decide(edges[e].edge, request(domain, "hot"), { timeoutMs: 5_000, defer: edges[e].defer }));
      allowed += (await Promise.all(wave)).filter((r) => r.allowed).length;
    }
    expect(allowed).toBe(50);
  });

  // retry: a scheduler stall on a loaded machine can delay a sync past the slack once; a view left stale
  // (the bug this guards against) stays stale and fails every attempt.
  it("precount: an isolate that went quiet early still matches the object 2 × sync_ms after the last request anywhere", { retry: 2 }, async () => {
    const syncMs = 50;
    // Slack for an object round trip and timer lateness on a loaded machine; well under one more sync_ms,
    // so an isolate that missed the final refresh (or stopped refreshing) still fails.
    const slackMs = 20;
    // Far above the requests below, so no view is 0 and a stale one cannot agree by accident.
    const limit = 10_000;
    const domain = domainWith("edge-precount-quiet", { unit: "hour", requests_per_unit: limit, algorithm: "fixed_window", precount: { sync_ms: syncMs } });
    const [early, middle, late] = [isolate(), isolate(), isolate()];
    const user = `q-${Math.random()}`; // a fresh counter on each attempt
    const go = (i: ReturnType<typeof isolate>) => decide(i.edge, request(domain, user), { timeoutMs: 5_000, defer: i.defer });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    for (let i = 0; i < 5; i++) expect((await go(early)).allowed).toBe(true);
    // Timed from here: a cold object can take a while to answer the first request.
    const start = Date.now();
    let lastAt = 0;
    while (Date.now() - start < 8 * syncMs) {
      expect((await go(late)).allowed).toBe(true);
      if (Date.now() - start < 3 * syncMs) await go(middle);
      lastAt = Date.now();
      await sleep(3);
    }
    // Only the promised time, not the isolates' background work.
    await sleep(Math.max(0, lastAt + 2 * syncMs + slackMs - Date.now()));
    const probe = { key: JSON.stringify(["edge-precount-quiet", ["user", user]]), cost: 1, limits: [{ id: domain.root.keyOnly.get("user")!.limits[0].id, algorithm: "fixed_window" as const, limit, windowMs: 3_600_000, burst: limit }] };
    const truth = (await ownerOf("edge-precount-quiet", user).peek({ ...probe, cost: 0 })).decisions[0].remaining;
    expect(truth).toBeLessThan(limit - 5);
    expect([early, middle, late].map((i) => i.edge.precount.view(probe)?.[0].remaining)).toEqual([truth, truth, truth]);
    expect(early.edge.precount.stats.local).toBeGreaterThan(0);
    await Promise.all([early, middle, late].flatMap((i) => i.background));
  });

  it("precount stays within E × share × limit and every edge converges within 2 × sync_ms", async () => {
    const syncMs = 30;
    const limit = 120;
    const domain = domainWith("edge-precount", { unit: "hour", requests_per_unit: limit, algorithm: "fixed_window", precount: { sync_ms: syncMs } });
    const edges = [isolate(), isolate(), isolate(), isolate()];
    let allowed = 0;
    const order = trace(7, 600, edges.length);
    for (let i = 0; i < order.length; i += 12) {
      const wave = order.slice(i, i + 12).map((e) => decide(edges[e].edge, request(domain, "pc"), { timeoutMs: 5_000, defer: edges[e].defer }));
      allowed += (await Promise.all(wave)).filter((r) => r.allowed).length;
    }
    expect(edges.some((e) => e.edge.precount.stats.local > 0)).toBe(true);
    expect(allowed).toBeGreaterThanOrEqual(limit);
    expect(allowed).toBeLessThanOrEqual(limit + edges.length * PRECOUNT_SHARE * limit);
    await new Promise((r) => setTimeout(r, 2 * syncMs + 20));
    await Promise.all(edges.flatMap((e) => e.background));
    const truth = await ownerOf("edge-precount", "pc").peek({ key: JSON.stringify(["edge-precount", ["user", "pc"]]), cost: 0, limits: [{ id: domain.root.keyOnly.get("user")!.limits[0].id, algorithm: "fixed_window", limit, windowMs: 3_600_000, burst: limit }] });
    const probe = { key: JSON.stringify(["edge-precount", ["user", "pc"]]), cost: 1, limits: [{ id: domain.root.keyOnly.get("user")!.limits[0].id, algorithm: "fixed_window" as const, limit, windowMs: 3_600_000, burst: limit }] };
    for (const e of edges) {
      const view = e.edge.precount.view(probe);
      if (view) expect(view[0].remaining).toBe(truth.decisions[0].remaining);
    }
  });
});
