/**
 * How an isolate follows uploaded rules (src/isolate/live-rules.ts) against a plain
 * rules store that answers `since` as the RulesObject does (null when the
 * version is known, the head otherwise, with the text when stored), on a
 * driven clock (vitest's fake Date and timers), in plain Node so mutation
 * testing sees it (docs/testing.md). Exact ages: a request checks in the
 * background from REFRESH_AFTER_MS and never waits once the isolate knows a
 * version. test/admin/rules.test.ts and test/rules/distant-stores.test.ts
 * run the same class against a real object.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import { CHECK_LOST_AFTER_MS, FIRST_CHECK_LOOK_MS, LiveRules, REFRESH_AFTER_MS } from "../../src/isolate/live-rules.ts";
import { RULES_PACE } from "../../src/isolate/rules-pace.ts";
import type { RulesRecord } from "../../src/durable/rules/rules-document.ts";
import type { CompiledRules } from "../../src/rules/types.ts";
import { compileOk } from "./helpers.ts";

const BUNDLED = compileOk({ domain: "bundled", descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1 } }] });
const stored = (domain: string) => JSON.stringify({ domain, descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 2 } }] });
const domainsOf = (rules: CompiledRules) => [...rules.domains.keys()];

/** A rules store answering as the RulesObject's `since`, with a switch that makes it hang or fail. */
function store() {
  let head: RulesRecord = { version: 0, source: "bundled" };
  const asked: { name: string; since: number }[] = [];
  let mode: "answer" | "hang" | "fail" = "answer";
  const env = {
    RULES: {
      getByName: (name: string) => ({
        since: async (known: number) => {
          asked.push({ name, since: known });
          if (mode === "hang") return new Promise<never>(() => {});
          if (mode === "fail") throw new Error("object unreachable");
          return head.version === known ? null : head;
        },
      }),
    },
  } as unknown as Env;
  return {
    env,
    asked,
    set: (record: RulesRecord) => {
      head = record;
    },
    mode: (next: typeof mode) => {
      mode = next;
    },
  };
}

function deferred() {
  const work: Promise<unknown>[] = [];
  return { defer: (p: Promise<unknown>) => void work.push(p), work, settle: () => Promise.all(work) };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
  vi.setSystemTime(1_000_000);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("LiveRules", () => {
  it("makes a fresh isolate wait for the first check, of the object named global, and takes the stored rules", async () => {
    const s = store();
    s.set({ version: 3, source: "stored", text: stored("uploaded"), updatedAt: "2026-11-26T10:00:00.000Z" });
    const live = new LiveRules(() => BUNDLED);
    expect(live.objectName).toBe("global");
    const { defer, work } = deferred();
    const pending = live.current(s.env, 1_000, defer);
    expect(pending).toBeInstanceOf(Promise);
    expect(domainsOf(await pending)).toEqual(["uploaded"]);
    expect(work).toHaveLength(1);
    expect(s.asked).toEqual([{ name: "global", since: -1 }]);
    const state = await live.fresh(s.env, 1_000, defer);
    expect(state).toMatchObject({ version: 3, source: "stored", updatedAt: "2026-11-26T10:00:00.000Z" });
    // Known version: the object answers null and the state stays.
    expect(s.asked.at(-1)).toEqual({ name: "global", since: 3 });
  });

  it("lets a burst into a fresh isolate share its first check: the object asked once, every request on its answer", async () => {
    const s = store();
    s.set({ version: 3, source: "stored", text: stored("uploaded") });
    const live = new LiveRules(() => BUNDLED, { objectName: "burst" });
    const { defer } = deferred();
    // 500 requests at once, as test/durable/concurrency.slow.test.ts sends: each asked the object before.
    const answers = Array.from({ length: 500 }, () => live.current(s.env, 1_000, defer));
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_LOOK_MS);
    const rules = await Promise.all(answers);
    expect(s.asked).toEqual([{ name: "burst", since: -1 }]);
    expect(new Set(rules.map((r) => domainsOf(r).join()))).toEqual(new Set(["uploaded"]));
  });

  it("stops every request of a burst into a fresh isolate after timeoutMs when the object hangs, on the bundled rules, asking once", async () => {
    const s = store();
    s.mode("hang");
    const live = new LiveRules(() => BUNDLED, { objectName: "burst-hung" });
    const { defer } = deferred();
    let settled = 0;
    const answers = Array.from({ length: 3 }, () => Promise.resolve(live.current(s.env, 1_000, defer)).finally(() => (settled += 1)));
    await vi.advanceTimersByTimeAsync(1_000 - FIRST_CHECK_LOOK_MS);
    expect(settled).toBe(0);
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_LOOK_MS);
    expect(await Promise.all(answers)).toEqual([BUNDLED, BUNDLED, BUNDLED]);
    expect(s.asked).toHaveLength(1);
  });

  it("answers from the cache until REFRESH_AFTER_MS, then checks in the background once, and never waits however idle", async () => {
    expect([REFRESH_AFTER_MS, CHECK_LOST_AFTER_MS, RULES_PACE.ownPollMs]).toEqual([2_000, 30_000, 4_000]);
    const s = store();
    const live = new LiveRules(() => BUNDLED, { objectName: "mine" });
    const { defer, work, settle } = deferred();
    expect(domainsOf(await live.current(s.env, 1_000, defer))).toEqual(["bundled"]);
    expect(s.asked).toEqual([{ name: "mine", since: -1 }]);
    vi.advanceTimersByTime(REFRESH_AFTER_MS - 1);
    expect(live.current(s.env, 1_000, defer)).toBe(BUNDLED);
    expect(s.asked).toHaveLength(1);
    vi.advanceTimersByTime(1);
    // From REFRESH_AFTER_MS: answered at once, one background check, not one per request.
    expect(live.current(s.env, 1_000, defer)).toBe(BUNDLED);
    expect(live.current(s.env, 1_000, defer)).toBe(BUNDLED);
    expect(work).toHaveLength(2);
    await settle();
    // No location copy here (plain Node has no Cache API): the check asks the object only RULES_PACE.ownPollMs after its last call.
    expect(s.asked).toEqual([{ name: "mine", since: -1 }]);
    vi.advanceTimersByTime(RULES_PACE.ownPollMs - REFRESH_AFTER_MS - 1);
    live.current(s.env, 1_000, defer);
    await settle();
    expect(s.asked).toHaveLength(1);
    // An isolate stretches its gap by a random 0 to 50 % (rules-pace.ts), so isolates started together spread out.
    vi.advanceTimersByTime(RULES_PACE.ownPollMs / 2 + REFRESH_AFTER_MS);
    live.current(s.env, 1_000, defer);
    await settle();
    expect(s.asked).toEqual([
      { name: "mine", since: -1 },
      { name: "mine", since: 0 },
    ]);
    // The check restarted the age; once it is over, a later request checks again.
    vi.advanceTimersByTime(REFRESH_AFTER_MS);
    const started = work.length;
    expect(live.current(s.env, 1_000, defer)).toBe(BUNDLED);
    expect(work).toHaveLength(started + 1);
    await settle();
    // Idle for an hour, with an upload meanwhile: the request is answered at once with what the isolate knew...
    vi.advanceTimersByTime(3_600_000);
    s.set({ version: 1, source: "stored", text: stored("next") });
    expect(live.current(s.env, 1_000, defer)).toBe(BUNDLED);
    expect(work).toHaveLength(started + 2);
    // ...and the next one after the check's answer decides with the upload.
    await settle();
    expect(domainsOf(live.current(s.env, 1_000, defer) as CompiledRules)).toEqual(["next"]);
  });

  it("takes a custom age and clock", async () => {
    const s = store();
    let clock = 50;
    const live = new LiveRules(() => BUNDLED, { refreshAfterMs: 10, now: () => clock });
    const { defer, work, settle } = deferred();
    await live.current(s.env, 1_000, defer);
    clock += 9;
    live.current(s.env, 1_000, defer);
    expect(work).toHaveLength(1);
    clock += 1;
    expect(live.current(s.env, 1_000, defer)).toBe(BUNDLED);
    expect(work).toHaveLength(2);
    await settle();
    // The fake Date moving changes nothing: ages are on the clock given.
    vi.advanceTimersByTime(60_000);
    expect(live.current(s.env, 1_000, defer)).toBe(BUNDLED);
    expect(work).toHaveLength(2);
  });

  it("takes a background check unanswered for CHECK_LOST_AFTER_MS as lost and starts another", () => {
    const s = store();
    const live = new LiveRules(() => BUNDLED);
    const { defer, work } = deferred();
    live.accept(live.bundledState(0));
    s.mode("hang");
    vi.advanceTimersByTime(REFRESH_AFTER_MS);
    live.current(s.env, 1_000, defer);
    expect(work).toHaveLength(1);
    vi.advanceTimersByTime(CHECK_LOST_AFTER_MS - 1);
    live.current(s.env, 1_000, defer);
    expect(work).toHaveLength(1);
    vi.advanceTimersByTime(1);
    live.current(s.env, 1_000, defer);
    expect(work).toHaveLength(2);
  });

  it("stops waiting for a hung object after timeoutMs, on the bundled rules, and does not wait again", async () => {
    const s = store();
    s.mode("hang");
    const live = new LiveRules(() => BUNDLED);
    const { defer } = deferred();
    let done: CompiledRules | undefined;
    void (live.current(s.env, 500, defer) as Promise<CompiledRules>).then((rules) => {
      done = rules;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(done).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(BUNDLED);
    const fresh = live.fresh(s.env, 0, defer);
    await vi.advanceTimersByTimeAsync(0);
    expect((await fresh).version).toBe(-1);
    // The wait counted as a check: the next request does not wait.
    expect(live.current(s.env, 500, defer)).toBe(BUNDLED);
  });

  it("keeps the last good rules when the object fails or stores rules this version rejects, logging why", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const s = store();
    s.set({ version: 2, source: "stored", text: stored("good") });
    const live = new LiveRules(() => BUNDLED);
    const { defer } = deferred();
    await live.current(s.env, 1_000, defer);
    s.mode("fail");
    expect(await live.fresh(s.env, 1_000, defer)).toMatchObject({ version: 2, source: "stored" });
    expect(JSON.parse(String(errors.mock.calls[0][0]))).toEqual({ event: "floodgate.rules_poll_failed", error: "Error: object unreachable" });
    // The failed poll counts as a check: the next request answers at once.
    expect(domainsOf(live.current(s.env, 1_000, defer) as CompiledRules)).toEqual(["good"]);
    s.mode("answer");
    s.set({ version: 3, source: "stored", text: "{ not json" });
    expect(await live.fresh(s.env, 1_000, defer)).toMatchObject({ version: 2, source: "stored" });
    const logged = JSON.parse(String(errors.mock.calls[1][0]));
    expect([logged.event, logged.version, logged.errors.length > 0]).toEqual(["floodgate.stored_rules_invalid", 3, true]);
  });

  it("ignores an older version, and follows a revert to the bundled rules with its time", async () => {
    const s = store();
    const live = new LiveRules(() => BUNDLED);
    const { defer } = deferred();
    live.accept({ rules: compileOk(JSON.parse(stored("five"))), version: 5, source: "stored" });
    s.set({ version: 4, source: "stored", text: stored("four") });
    expect(await live.fresh(s.env, 1_000, defer)).toMatchObject({ version: 5, source: "stored" });
    s.set({ version: 5, source: "bundled", updatedAt: "t5" });
    expect((await live.fresh(s.env, 1_000, defer)).version).toBe(5);
    expect(domainsOf((await live.fresh(s.env, 1_000, defer)).rules)).toEqual(["five"]);
    s.set({ version: 6, source: "bundled", updatedAt: "t6" });
    expect(await live.fresh(s.env, 1_000, defer)).toEqual({ rules: BUNDLED, version: 6, source: "bundled", updatedAt: "t6" });
    // A stored record without text reads as the bundled rules.
    s.set({ version: 7, source: "stored" });
    expect(await live.fresh(s.env, 1_000, defer)).toEqual({ rules: BUNDLED, version: 7, source: "bundled" });
  });

  it("accepts only a newer version, and an accept counts as a check", () => {
    const s = store();
    const live = new LiveRules(() => BUNDLED);
    const { defer, work } = deferred();
    const four = compileOk(JSON.parse(stored("four")));
    live.accept({ rules: four, version: 4, source: "stored" });
    live.accept({ rules: BUNDLED, version: 4, source: "bundled" });
    live.accept({ rules: BUNDLED, version: 3, source: "bundled" });
    expect(live.current(s.env, 1_000, defer)).toBe(four);
    expect(work).toHaveLength(0);
    expect(live.bundledState(9)).toEqual({ rules: BUNDLED, version: 9, source: "bundled" });
    expect(live.bundledState(9, "t")).toEqual({ rules: BUNDLED, version: 9, source: "bundled", updatedAt: "t" });
    expect(new LiveRules(() => BUNDLED, { bundledJson: { a: 1 } }).bundledJson).toEqual({ a: 1 });
  });
});
