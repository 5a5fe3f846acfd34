/**
 * Accuracy: replays the seeded trace (bench/lib/trace.mjs) through every
 * algorithm of src/algorithms and through an exact sliding-log oracle with
 * the same limit and window, and counts how often each disagrees.
 *
 * Three measures per algorithm, all over every request of the trace:
 * - false allows / false denies: the algorithm and the oracle each replay
 *   the whole trace on their own state; a request the algorithm allows and
 *   the oracle denies is a false allow, and the reverse a false deny. Once
 *   the two have admitted different requests their states differ, so one
 *   early difference can cause later ones (this is the literal replay).
 * - wrong given its own history: each decision is judged against the exact
 *   rule applied to the requests this algorithm itself admitted so far
 *   (allow iff fewer than `limit` admitted in the last `window`), so no
 *   error is counted twice.
 * - worst overshoot: the most requests the algorithm admitted in any
 *   window of the configured length, minus the limit.
 *
 * The bucket algorithms (token, leaky, GCRA) enforce a rate with a burst
 * capacity, not a count per window: with `burst = limit` (the default) they
 * can admit a full burst and then the window's refill, up to 2 × limit in
 * one window, by design. Their rows measure how far that contract is from a
 * sliding window, not a defect.
 */
// @ts-nocheck

import { algorithms } from "../../src/algorithms/index.ts";
import { TRACE_DEFAULTS, keyArrivals } from "./trace.mjs";

/** Cloudflare's published figure for its sliding window counter: 0.003 % of 400 M requests decided wrongly. */
export const CLOUDFLARE_WRONG_PERCENT = 0.003;

/**
 * The admitted timestamps of one key in the last window, oldest first: an
 * exact sliding log (a growable ring of ms timestamps).
 */
class WindowLog {
  constructor(windowMs) {
    this.windowMs = windowMs;
    this.times = [];
    this.head = 0;
  }

  /** Admitted hits in (now − window, now]. */
  count(now) {
    while (this.head < this.times.length && this.times[this.head] <= now - this.windowMs) this.head++;
    // Drop the expired prefix now and then so the array stays bounded.
    if (this.head > 4096) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  admit(now) {
    this.times.push(now);
  }
}

/**
 * Replay the trace; returns one row per algorithm plus the trace's totals.
 *
 * @example
 * const { rows, requests } = replayAccuracy({ limit: 100, windowMs: 60_000 }, { keys: 100 });
 * rows.find((r) => r.algorithm === "sliding_window_log").falseAllows; // 0
 */
export function replayAccuracy(spec, traceOptions = {}) {
  const options = { ...TRACE_DEFAULTS, ...traceOptions };
  const limit = { limit: spec.limit, windowMs: spec.windowMs, burst: spec.limit };
  const names = Object.keys(algorithms);
  const totals = Object.fromEntries(names.map((n) => [n, { falseAllows: 0, falseDenies: 0, wrongOwn: 0, allowed: 0, worstOvershoot: 0 }]));
  let requests = 0;
  let oracleAllowed = 0;
  let overLimitKeys = 0;
  for (let key = 0; key < options.keys; key++) {
    const times = keyArrivals(options, key, spec.limit / spec.windowMs);
    requests += times.length;
    const oracle = new WindowLog(spec.windowMs);
    const oracleDecisions = new Uint8Array(times.length);
    for (let i = 0; i < times.length; i++) {
      if (oracle.count(times[i]) < spec.limit) {
        oracle.admit(times[i]);
        oracleDecisions[i] = 1;
        oracleAllowed++;
      }
    }
    if (oracleDecisions.includes(0)) overLimitKeys++;
    for (const name of names) {
      const algorithm = algorithms[name];
      const t = totals[name];
      const own = new WindowLog(spec.windowMs);
      let state;
      for (let i = 0; i < times.length; i++) {
        const now = times[i];
        const step = algorithm.decide(state, limit, now, 1);
        state = step.state;
        const allowed = step.decision.allowed;
        const exactWouldAllow = own.count(now) < spec.limit;
        if (allowed !== exactWouldAllow) t.wrongOwn++;
        if (allowed && !oracleDecisions[i]) t.falseAllows++;
        if (!allowed && oracleDecisions[i]) t.falseDenies++;
        if (allowed) {
          own.admit(now);
          t.allowed++;
          const inWindow = own.count(now);
          if (inWindow - spec.limit > t.worstOvershoot) t.worstOvershoot = inWindow - spec.limit;
        }
      }
    }
  }
  const pct = (n) => (100 * n) / requests;
  const rows = names.map((name) => {
    const t = totals[name];
    return {
      algorithm: name,
      falseAllows: t.falseAllows,
      falseDenies: t.falseDenies,
      falseAllowsPercent: pct(t.falseAllows),
      falseDeniesPercent: pct(t.falseDenies),
      wrongPercent: pct(t.falseAllows + t.falseDenies),
      wrongOwnHistory: t.wrongOwn,
      wrongOwnHistoryPercent: pct(t.wrongOwn),
      allowedPercent: pct(t.allowed),
      worstOvershoot: t.worstOvershoot,
      worstOvershootPercentOfLimit: (100 * t.worstOvershoot) / spec.limit,
    };
  });
  return {
    limit: spec.limit,
    windowMs: spec.windowMs,
    burst: spec.limit,
    trace: { ...options, requests, overLimitKeys, oracleAllowedPercent: pct(oracleAllowed) },
    cloudflareWrongPercent: CLOUDFLARE_WRONG_PERCENT,
    rows,
  };
}
