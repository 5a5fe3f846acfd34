/**
 * From raw load runs to the figures in the table: medians over rounds, and
 * ratios taken round by round (each target against bare and the peer as
 * measured in the same round, minutes apart at most) before the median, so
 * slow drift of the machine cancels out.
 */
import { summarizeCpu } from "./cpu.mjs";

/**
 * The median of a list of numbers (the mean of the middle two for an even count).
 *
 * @example
 * median([3, 1, 2]); // 2
 */
export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Per target: median req/s, p50, p99, shares of 429s and failures, the
 * median per-round ratio to bare and to the peer, and its CPU per request
 * with its ratios (`summarizeCpu` of cpu.mjs).
 *
 * @example
 * summarizeLoads(new Map([["bare", runs], ["floodgate", runs], ["peer", runs]])).floodgate.toBare; // 0.21
 */
export function summarizeLoads(byTarget) {
  const inRound = (id, round) => byTarget.get(id)?.find((r) => r.round === round);
  const out = {};
  const cpu = summarizeCpu(byTarget);
  for (const [id, runs] of byTarget) {
    const total = runs.reduce((n, r) => n + r.requests, 0);
    const ratio = (other) => median(runs.map((r) => r.rps / (inRound(other, r.round)?.rps ?? NaN)));
    out[id] = {
      rounds: runs.length,
      rps: median(runs.map((r) => r.rps)),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      toBare: id === "bare" ? 1 : ratio("bare"),
      toPeer: id === "peer" ? 1 : ratio("peer"),
      limitedPercent: total ? (100 * runs.reduce((n, r) => n + r.limited, 0)) / total : 0,
      failOpen: runs.reduce((n, r) => n + r.failOpen, 0),
      errors: runs.reduce((n, r) => n + r.other + r.socketErrors + r.timeouts, 0),
      ...cpu[id],
      runs,
    };
  }
  return out;
}

/**
 * Exactness under load, for a key that starts each round with a full quota:
 * in every round, the allowed responses must equal what one-at-a-time
 * execution would allow, min(requests, limit), unless the round crossed an
 * aligned window boundary (then only an upper bound is known: the limit plus
 * the weighted share of the next window the sliding counter may grant).
 * Responses still in flight when a round ends are not seen by the client;
 * after the quota is spent they are all 429s, so the count is unaffected.
 *
 * @example
 * exactness(runs, { limit: 250, windowMs: 3_600_000 });
 * // { verdict: "exact", allowed: [250, 250, 250], limit: 250 }
 */
export function exactness(runs, limit) {
  let over = 0;
  let under = 0;
  let unreached = 0;
  const allowed = [];
  for (const r of runs) {
    const got = r.ok + r.failOpen;
    allowed.push(got);
    const boundary = Math.floor(r.endedAt / limit.windowMs) * limit.windowMs;
    const crossed = boundary > r.startedAt;
    const bound = crossed ? limit.limit + Math.ceil((limit.limit * (r.endedAt - boundary)) / limit.windowMs) : limit.limit;
    if (got > bound) over = Math.max(over, got - bound);
    else if (r.requests < limit.limit) unreached++;
    else if (!crossed && got < limit.limit) under = Math.max(under, limit.limit - got);
  }
  const verdict =
    over > 0
      ? `+${over} over (${((100 * over) / limit.limit).toFixed(1)} %)`
      : under > 0
        ? `${under} under`
        : unreached === runs.length
          ? "limit not reached"
          : "exact";
  return { verdict, allowed, limit: limit.limit };
}
