/**
 * Relay only what pays (docs/placement.md, "Relay only what pays"), counted
 * at the callee: every request through the real gateway carries
 * `request.cf` from one of three regions, real home objects and regional
 * copies on one driven clock, each object's alarm run when it falls due.
 * What every object did (`usage()`: calls, alarms, rows written) is summed
 * and divided by the requests sent.
 *
 * - Thin keys (each a request every 5 to 10 s, from its own region) stay at
 *   their home: about one object call a request, no regional copy involved,
 *   no relay alarm.
 * - A warm key (a request a second from one region) goes to its region's
 *   copy from its WARM_HITS + 1-th request on, and the copy sets no alarm
 *   a second while it holds the key: one when the key goes idle.
 *
 * Breaks tried, each seen to fail here: every key warm at its first hit
 * (WARM_HITS = 1): the thin keys went through 12 copies (2.340 calls, 1.061
 * alarms a request); the copy's alarm for the next second on every hit
 * (`wake(now)` in relay.ts's `decide`): 14 copy alarms for 30 requests.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import { counterStub, homeOf } from "../../src/durable/counters/regions.ts";
import { WARM_HITS } from "../../src/durable/counters/warm-keys.ts";
import { gateway, testEnv } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

type Cf = RequestInit["cf"];
const REGIONS = [
  { colo: "IAD", continent: "NA", country: "US" },
  { colo: "FRA", continent: "EU", country: "DE" },
  { colo: "SIN", continent: "AS", country: "SG" },
] as unknown as Cf[];

const rulesFor = (domain: string) => ({
  domain,
  placement: "sharded",
  shards: 4,
  descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 600 } }],
  routes: [{ match: {}, descriptors: [[{ key: "user", header: "x-user" }]] }],
});

/** The gateway on a driven clock; every object it or a copy addresses (and each copy's home) on that clock and listed. */
function setup() {
  const clock = { at: OBJECT_EPOCH };
  const now = () => clock.at;
  const counters = testEnv.COUNTERS as Env["COUNTERS"];
  const names = new Set<string>();
  const namespace = drivenCounters(testEnv.COUNTERS, now, { withHomes: true, seen: (name) => names.add(name).add(homeOf(name)) });
  // A domain of its own: its objects count this test's calls only.
  const call = gateway(rulesFor(`gw-relay-cost-${Math.random().toString(36).slice(2)}`), { COUNTERS: namespace }, { now });
  const send = async (user: string, region: number) => {
    const response = await call("/", { headers: { "x-user": user }, cf: REGIONS[region] });
    await response.arrayBuffer();
    return response.status;
  };
  /** Run every listed object's alarm that is due on the driven clock. */
  const alarms = async () => {
    for (const name of names) {
      const stub = counterStub(counters, name);
      const due = await runInDurableObject(stub as never, async (o: CounterObject) => {
        const at = await (o as unknown as { ctx: DurableObjectState }).ctx.storage.getAlarm();
        return at !== null && at <= now();
      });
      if (due) await runDurableObjectAlarm(stub as never);
    }
  };
  /** Every listed object's usage, summed. */
  const usage = async () => {
    const sum = { calls: 0, alarms: 0, rowsWritten: 0, copies: 0, copyAlarms: 0 };
    for (const name of names) {
      const u = await counterStub(counters, name).usage();
      sum.calls += u.calls;
      sum.alarms += u.alarms;
      sum.rowsWritten += u.rowsWritten;
      if (name.includes("@")) {
        sum.copies += 1;
        sum.copyAlarms += u.alarms;
      }
    }
    return sum;
  };
  return { clock, send, alarms, usage, names };
}

/** A seeded generator in [0, 1), so the traffic is the same every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1_664_525 + 1_013_904_223) >>> 0) / 2 ** 32;
}

/** Send `events` (`[atMs, user, region]`, sorted) on the driven clock, alarms run every second; the requests sent. */
async function play(p: ReturnType<typeof setup>, events: [number, string, number][], untilMs: number) {
  const start = p.clock.at;
  let next = 0;
  for (let t = 0; t <= untilMs; t += 100) {
    p.clock.at = start + t;
    while (next < events.length && events[next][0] <= t) {
      const [, user, region] = events[next++];
      expect(await p.send(user, region)).toBe(200);
    }
    if (t % 1_000 === 0) await p.alarms();
  }
  return events.length;
}

describe("relay only what pays, counted at the callee", () => {
  it("thin keys (a request every 5 to 10 s) stay at their home: about one object call a request, no copy", async () => {
    const p = setup();
    const random = seeded(47);
    const events: [number, string, number][] = [];
    const run = `${Math.random()}`;
    for (let k = 0; k < 40; k++) for (let at = random() * 5_000; at < 60_000; at += 5_000 + random() * 5_000) events.push([at, `thin-${run}-${k}`, k % 3]);
    events.sort((a, b) => a[0] - b[0]);
    const requests = await play(p, events, 75_000);
    const used = await p.usage();
    console.log(
      `thin keys: ${requests} requests, ${JSON.stringify(used)}, calls/req ${(used.calls / requests).toFixed(3)}, alarms/req ${(used.alarms / requests).toFixed(3)}, rows/req ${(used.rowsWritten / requests).toFixed(3)}`,
    );
    expect(used.copies).toBe(0);
    expect(used.copyAlarms).toBe(0);
    expect(used.calls / requests).toBeLessThanOrEqual(1.05);
  }, 300_000);

  it(`a warm key goes to its region's copy from its ${WARM_HITS + 1}th request, and the copy's alarm waits for it to go idle`, async () => {
    const p = setup();
    const user = `warm-${Math.random()}`;
    const events: [number, string, number][] = Array.from({ length: 30 }, (_, i) => [i * 1_000, user, 1]);
    const requests = await play(p, events, 45_000);
    const used = await p.usage();
    console.log(
      `warm key: ${requests} requests, ${JSON.stringify(used)}, calls/req ${(used.calls / requests).toFixed(3)}, alarms/req ${(used.alarms / requests).toFixed(3)}`,
    );
    expect(used.copies).toBe(1);
    // The copy: one call a request once warm; the home: the warming requests, the copy's first ask and a renewal now
    // and then. The copy's alarms: one every RELAY_IDLE_MS at most while the key is busy (nothing due: set again), and
    // the one that gives the lease back once it is idle; not one a second.
    expect(used.calls / requests).toBeLessThanOrEqual(1.3);
    expect(used.copyAlarms).toBeLessThanOrEqual(requests / 4);
  }, 300_000);
});
