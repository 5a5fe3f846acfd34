/**
 * The replay's honesty inside workerd (docs/advisor.md, "Replay"): real
 * decisions of real counter objects on a driven clock, recorded as sample
 * rows (client-chosen values digested), replayed through the rules in force
 * by `POST /__ratelimit/replay`: every live decision is reproduced. And the
 * endpoint's answers to bad input, through the real gateway.
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { digestValue } from "../../src/advisor/digest.ts";
import { SAMPLE_ROW_VERSION, type SampleDescriptor, type SampleRow } from "../../src/advisor/sample-row.ts";
import { fixedSample } from "../../src/advisor/sample-source.ts";
import { postReplay } from "../../src/admin/replay.ts";
import type { Env } from "../../src/config.ts";
import { shardKeyFrom } from "../../src/durable/counters/placement.ts";
import { isolateContexts } from "../../src/admission/isolate-context.ts";
import { LiveRules } from "../../src/isolate/live-rules.ts";
import { compiled, testEnv } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { d, envoyApi } from "../support/envoy.ts";

const suffix = `${Date.now()}`;
/** The isolate's shard key (no SHARD_KEY in the tests: derived from the namespace), which a deployment's digests are keyed with. */
const SHARD = shardKeyFrom(undefined, testEnv.COUNTERS);
const clock = { at: OBJECT_EPOCH + 7_200_000 };
const now = () => clock.at;

function rulesFor(domain: string, perSecond = 3) {
  return {
    domain,
    descriptors: [
      {
        key: "user",
        rate_limits: [
          { name: "user-second", unit: "second", requests_per_unit: perSecond, algorithm: "fixed_window" },
          { name: "user-10s", unit: "second", unit_multiplier: 10, requests_per_unit: 12, algorithm: "sliding_window_counter" },
        ],
      },
      { key: "tenant", rate_limit: { name: "tenant", unit: "second", requests_per_unit: 4, algorithm: "token_bucket", burst: 6 } },
      { key: "tenant", value: "big-tenant", rate_limit: { name: "big", unit: "second", requests_per_unit: 20, algorithm: "gcra", burst: 5 } },
    ],
  };
}

// A fixed pseudo-random sequence (no wall clock, no Math.random): the same traffic every run.
function lcg(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    // The high bits: an LCG's low bits repeat with a short period.
    return (s >>> 12) % n;
  };
}

/** Drive `count` requests through the decision API and record each as a sample row, its live decisions included. */
async function liveRows(domain: string, count: number): Promise<SampleRow[]> {
  const api = envoyApi(rulesFor(domain), { COUNTERS: drivenCounters(testEnv.COUNTERS, now) }, { now });
  const next = lcg(41);
  const rows: SampleRow[] = [];
  for (let i = 0; i < count; i++) {
    clock.at += next(4) === 0 ? 700 : next(120);
    const user = ["ann", "bo", "cy"][next(3)];
    const tenant = ["big-tenant", "small-tenant"][next(2)];
    const cost = 1 + next(2);
    const answer = await api.json({ domain, descriptors: [d(["user", user]), d(["tenant", tenant])], hits_addend: cost });
    expect(answer.status === 200 || answer.status === 429).toBe(true);
    const descriptors: SampleDescriptor[] = [];
    for (const [j, [key, value]] of [
      ["user", user],
      ["tenant", tenant],
    ].entries()) {
      const allowed = answer.body.statuses[j].code === "OK";
      descriptors.push({ entries: [{ key, value: await digestValue(value, SHARD) }], sampled: true, limit: null, allowed });
    }
    rows.push({
      v: SAMPLE_ROW_VERSION,
      t: clock.at,
      domain,
      route: "POST /__ratelimit/json",
      cost,
      decision: answer.status === 200 ? "allowed" : "refused",
      descriptors,
    });
  }
  return rows;
}

/** A gateway-less app whose /replay reads `rows`, over the isolate of `rules`. */
function replayApp(rules: unknown, rows: readonly SampleRow[]) {
  const compiledRules = compiled(rules);
  const isolateOf = isolateContexts(new LiveRules(() => compiledRules, { bundledJson: rules, objectName: `replay-${suffix}-${Math.random()}` }), { now });
  const app = new Hono<{ Bindings: Env }>();
  app.post("/replay", (c) => postReplay(c, isolateOf(c.env), fixedSample(rows)));
  return async (body: unknown) => {
    const res = await app.request("http://self/replay", { method: "POST", body: JSON.stringify(body) }, { ...testEnv, ADMIN_TOKEN: undefined });
    return { status: res.status, body: (await res.json()) as any };
  };
}

describe("POST /__ratelimit/replay", () => {
  // Break tried: postReplay replaying without the isolate's shard key: big-tenant's digests unmatched, 313 of 320 reproduced.
  it("replaying the rules in force reproduces every live decision of the sampled requests", async () => {
    const domain = `replay-honest-${suffix}`;
    const rows = await liveRows(domain, 160);
    const refused = rows.flatMap((r) => r.descriptors).filter((x) => !x.allowed).length;
    // The traffic must make the limits refuse, or the test proves nothing.
    expect(refused).toBeGreaterThan(20);
    const replay = replayApp(rulesFor(domain), rows);
    const { status, body } = await replay(rulesFor(domain));
    expect(status).toBe(200);
    expect(body.sample_rows).toBe(160);
    expect(body.reproduced).toEqual({ matching: 320, of: 320 });
    expect(body.newly_refused + body.newly_allowed).toBe(0);
    const byName = new Map(body.limits.map((l: any) => [l.name, l]));
    expect([...byName.keys()].sort()).toEqual(["big", "tenant", "user-10s", "user-second"]);
    // The replay's refusals, per limit, add up to the live refusals of their descriptors (a limit refuses alone or with its sibling).
    const userRefused = rows.filter((r) => !r.descriptors[0].allowed).length;
    const u1 = byName.get("user-second") as any;
    const u10 = byName.get("user-10s") as any;
    expect(u1.requests).toBe(160);
    expect(Math.max(u1.refusals, u10.refusals)).toBeLessThanOrEqual(userRefused);
    expect(u1.refusals + u10.refusals).toBeGreaterThanOrEqual(userRefused);
    // A tighter per-second limit refuses more; the in-force figures sit beside it.
    const tighter = await replay(rulesFor(domain, 1));
    const tight = tighter.body.limits.find((l: any) => l.name === "user-second");
    expect(tight.refusals).toBeGreaterThan(u1.refusals);
    expect(tight.in_force).toEqual({ requests: u1.requests, refusals: u1.refusals, refused_pct: u1.refused_pct, keys_refused: u1.keys_refused });
    expect(tighter.body.newly_refused).toBeGreaterThan(0);
  });

  it("invalid rules: 400 with every error at its path, as rules:check gives them", async () => {
    const replay = replayApp(rulesFor(`replay-bad-${suffix}`), []);
    const { status, body } = await replay({ domain: "x", descriptors: [{ key: "k", rate_limit: { unit: "eon", requests_per_unit: 1 } }] });
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      { path: "$.descriptors[0].rate_limit.unit", message: 'unknown unit "eon" (expected one of: second, minute, hour, day, week, month, year)' },
    ]);
  });

  it("through the gateway: the token is required, bad JSON is a 400, a Worker without a sample store replays an empty sample, an unknown domain is a 400 naming it", async () => {
    const domain = `replay-gw-${suffix}`;
    const api = envoyApi(rulesFor(domain));
    const anonymous = await api.call("/__ratelimit/replay", { method: "POST", body: JSON.stringify(rulesFor(domain)) });
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    const broken = await api.admin("/__ratelimit/replay", { method: "POST", body: '{"domain": ' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as any).errors[0].path).toBe("$");
    const empty = await api.admin("/__ratelimit/replay", { method: "POST", body: JSON.stringify(rulesFor(domain)) });
    expect(empty.status).toBe(200);
    const report = (await empty.json()) as any;
    expect(report.sample_rows).toBe(0);
    expect(report.limits.map((l: any) => [l.name, l.requests])).toContainEqual(["tenant", 0]);
    // A proposed domain not in force has no sample: a 400 naming it (it was a 502 from the export).
    const stranger = `replay-unknown-${suffix}`;
    const unknown = await api.admin("/__ratelimit/replay", { method: "POST", body: JSON.stringify([rulesFor(domain), rulesFor(stranger)]) });
    expect(unknown.status).toBe(400);
    const problemBody = (await unknown.json()) as any;
    expect(problemBody.domains).toEqual([stranger]);
    expect(problemBody.detail).toContain(`not in force, "${stranger}"`);
    expect(problemBody.detail).toContain(`Domains in force: "${domain}"`);
    const wrongMethod = await api.admin("/__ratelimit/replay");
    expect(wrongMethod.status).toBe(405);
    await wrongMethod.body?.cancel();
  });
});
