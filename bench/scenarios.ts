/**
 * The benchmark scenarios: one table read by the load driver (which keys to
 * send where), by the peer worker (which limit to enforce on each path) and
 * by the report (what each row means). floodgate enforces the same limits
 * through `bench/rules/bench.json`; the driver checks the two agree before a
 * run, so they cannot drift apart silently.
 *
 * Adding a scenario is one entry here and, for floodgate, one descriptor in
 * `rules.json` under the path's domain (e.g. a `precount` limit on
 * `/sharded/precount`). Comparing floodgate builds (say with and without
 * coalescing) is one entry in `FLOODGATE_VARIANTS` plus its name in a
 * scenario's `variants`; comparing floodgate on one path with a reference
 * on another (strong mode beside pre-counting, a bare 429 beside the block
 * cache) is one entry in a scenario's `baselines`.
 */

/** How the load generator picks the `x-api-key` of each request. */
export type KeyPattern =
  /** Uniformly among `keys` recurring keys (`r-1` … `r-N`). */
  | { readonly kind: "recurring"; readonly keys: number }
  /** A key never sent before on every request, as an attacker inventing API keys would. */
  | { readonly kind: "scan" }
  /** One key for the whole measurement, fresh in every round so each round starts at a full quota. */
  | { readonly kind: "hot" }
  /** The same literal key on every request. */
  | { readonly kind: "fixed"; readonly key: string }
  /**
   * Zipf-distributed ranks 1 … `keys` with exponent `exponent`; the heaviest
   * ranks, together `overShare` of the traffic, are named `over-<rank>` and
   * have a tight limit, the rest `user-<rank>`.
   */
  | { readonly kind: "zipf"; readonly keys: number; readonly exponent: number; readonly overShare: number };

/** A limit as both limiters are configured: `limit` requests per `windowMs`. */
export interface BenchLimit {
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * A reference loaded in a scenario's rounds beside floodgate, on a path of
 * its own, and read as floodgate ÷ it round by round (as a variant is).
 */
export interface Baseline {
  /** Target id in the results, e.g. "floodgate-strong". */
  readonly id: string;
  /** Which bench worker serves it. */
  readonly service: "floodgate" | "bare";
  /** Its path; a floodgate path must have the scenario's limit (bench/lib/rules-check.mjs checks). */
  readonly path: string;
  /** Row label in the table. */
  readonly title: string;
}

/** One benchmark scenario. */
export interface Scenario {
  /** Stable id, used in JSON and on the command line (`--only`). */
  readonly id: string;
  /** Row label in the table. */
  readonly title: string;
  /** Request path; its first segment picks floodgate's domain (and so its placement). */
  readonly path: string;
  readonly keys: KeyPattern;
  /** The limit for every key of this path (for `zipf`, the `user-*` keys). */
  readonly limit: BenchLimit;
  /** For `zipf`: the limit of the `over-*` keys. */
  readonly overLimit?: BenchLimit;
  /** Check allowed responses against `limit` (the hot key): "exact" or the overshoot. */
  readonly exactness?: boolean;
  /** Extra floodgate builds loaded on this scenario (names from FLOODGATE_VARIANTS). */
  readonly variants?: readonly string[];
  /** References loaded in the same rounds, each read as floodgate ÷ it. */
  readonly baselines?: readonly Baseline[];
  /** Its column group in the "Round trip" table (it loads the `floodgate-rtt-*` variants). */
  readonly roundTrip?: string;
  /** Also load the PROBES with this scenario's keys (the "where the time goes" table). */
  readonly probes?: boolean;
  /** Part of `--quick`. */
  readonly quick: boolean;
  /** One sentence for the scenario table of bench/README.md. */
  readonly meaning: string;
}

const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;

// Limits for the throughput scenarios are generous on purpose: every request
// is allowed, so the row measures the full allowed path (decision, storage
// write for long windows, response) rather than cheap rejections.
const OPEN_1S: BenchLimit = { limit: 1_000, windowMs: SECOND };
const OPEN_1M: BenchLimit = { limit: 100_000, windowMs: MINUTE };
// One key taking every request of a run (~10,000/s at most here) must not run out either.
const OPEN_1M_HOT: BenchLimit = { limit: 10_000_000, windowMs: MINUTE };

/**
 * The bare worker answering, at once, the 429 floodgate gives on `path`
 * (bench/workers/bare-worker.ts): the physical limit of a path whose every
 * request is rejected.
 */
const bare429 = (path: string): Baseline => ({
  id: "bare-429",
  service: "bare",
  path: `/429${path}`,
  title: "bare worker answering the same 429 at once: the physical limit of this path",
});

/**
 * Every scenario, in table order.
 *
 * @example
 * SCENARIOS.find((s) => s.id === "hot-key")?.limit; // { limit: 250, windowMs: 3600000 }
 */
export const SCENARIOS: readonly Scenario[] = [
  {
    id: "recurring-1s",
    title: "1,000 recurring keys, sharded, 1 s window",
    path: "/sharded/recurring-1s",
    keys: { kind: "recurring", keys: 1_000 },
    limit: OPEN_1S,
    probes: true,
    variants: ["floodgate-direct", "floodgate-no-coalescing"],
    quick: true,
    meaning: "strong mode on 1,000 keys that come back; counters of a 1-second window live in memory only",
  },
  {
    id: "recurring-1m",
    title: "1,000 recurring keys, sharded, 1 min window",
    path: "/sharded/recurring-1m",
    keys: { kind: "recurring", keys: 1_000 },
    limit: OPEN_1M,
    quick: true,
    meaning: "the same with a 1-minute window, which floodgate checkpoints to SQLite (one row per changed counter per second)",
  },
  {
    id: "recurring-1m-strict",
    title: "1,000 recurring keys, sharded, 1 min window, strict durability",
    path: "/sharded/recurring-1m-strict",
    keys: { kind: "recurring", keys: 1_000 },
    limit: OPEN_1M,
    quick: false,
    meaning: 'the same with `"durability": "strict"`: every allowed hit written to SQLite before its answer',
  },
  {
    id: "recurring-1m-per-key",
    title: "1,000 recurring keys, per-key, 1 min window",
    path: "/per-key/recurring-1m",
    keys: { kind: "recurring", keys: 1_000 },
    limit: OPEN_1M,
    quick: false,
    meaning: "the same with `placement: per_key`: one Durable Object per key instead of 64 shards",
  },
  {
    id: "scan-1s",
    title: "key scan, sharded, 1 s window",
    path: "/sharded/scan-1s",
    keys: { kind: "scan" },
    limit: OPEN_1S,
    quick: true,
    meaning: "every request a new key (an attacker inventing API keys); memory-only counters",
  },
  {
    id: "scan-1m",
    title: "key scan, sharded, 1 min window",
    path: "/sharded/scan-1m",
    keys: { kind: "scan" },
    limit: OPEN_1M,
    quick: false,
    meaning: "the key scan with a 1-minute window: a new counter per request, checkpointed (a new SQLite row each)",
  },
  {
    id: "scan-1m-strict",
    title: "key scan, sharded, 1 min window, strict durability",
    path: "/sharded/scan-1m-strict",
    keys: { kind: "scan" },
    limit: OPEN_1M,
    quick: false,
    meaning: "the key scan written through: a SQLite row per request before its answer",
  },
  {
    id: "scan-1h",
    title: "key scan, sharded, 1 hour window",
    path: "/sharded/scan-1h",
    keys: { kind: "scan" },
    limit: { limit: 100_000, windowMs: HOUR },
    quick: false,
    meaning: "the key scan on 1-hour windows: counters outlive the run, so objects page the cold ones out to SQLite (bounded memory)",
  },
  {
    id: "scan-1m-per-key",
    title: "key scan, per-key, 1 min window",
    path: "/per-key/scan-1m",
    keys: { kind: "scan" },
    limit: OPEN_1M,
    quick: false,
    meaning: "the key scan with one object per key: a new Durable Object (and SQLite file) per request",
  },
  {
    id: "hot-key",
    title: "one hot key, sharded, 250/hour",
    path: "/sharded/hot-key",
    keys: { kind: "hot" },
    limit: { limit: 250, windowMs: HOUR },
    exactness: true,
    quick: true,
    meaning: "every request on one key (fresh each round); after the first 250 all are rejected; allowed responses are counted against the limit",
  },
  {
    id: "hot-key-open",
    title: "one hot key, all allowed",
    path: "/sharded/hot-key-open",
    keys: { kind: "hot" },
    limit: OPEN_1M_HOT,
    variants: ["floodgate-direct", "floodgate-no-coalescing", "floodgate-rtt-25", "floodgate-rtt-100"],
    roundTrip: "strong mode",
    quick: true,
    meaning: "every request on one key, none over the limit: every decision needs that one object, which coalescing batches",
  },
  {
    id: "blocked",
    title: "already-blocked key (spent 10/hour)",
    path: "/sharded/blocked",
    keys: { kind: "fixed", key: "blocked" },
    limit: { limit: 10, windowMs: HOUR },
    baselines: [bare429("/sharded/blocked")],
    quick: true,
    meaning: "one key whose 10/hour were spent by its first requests, so every later request is a 429 (answerable from the certain-block cache)",
  },
  {
    id: "limit-zero",
    title: "key with requests_per_unit 0",
    path: "/sharded/limit-zero",
    keys: { kind: "fixed", key: "denied" },
    limit: { limit: 0, windowMs: MINUTE },
    baselines: [bare429("/sharded/limit-zero")],
    quick: false,
    meaning: "a key whose limit is 0, so every request is a 429 that no state can change",
  },
  {
    id: "precount",
    title: "1,000 recurring keys, precount (sync 100 ms), 1 min",
    path: "/sharded/precount",
    keys: { kind: "recurring", keys: 1_000 },
    limit: OPEN_1M,
    baselines: [
      {
        id: "floodgate-strong",
        service: "floodgate",
        path: "/sharded/precount-strong",
        title: "floodgate, strong mode on the same keys and limit",
      },
    ],
    quick: true,
    meaning:
      "edge pre-counting on 1,000 keys that each come back about once a second: rarely hot (two hits within 100 ms), so mostly decided by the objects, as strong mode (loaded beside it: /sharded/precount-strong)",
  },
  {
    id: "precount-hot",
    title: "one hot key, precount (sync 100 ms), all allowed",
    path: "/sharded/precount-hot",
    keys: { kind: "hot" },
    limit: OPEN_1M_HOT,
    variants: ["floodgate-rtt-25", "floodgate-rtt-100"],
    roundTrip: "pre-counting",
    quick: true,
    meaning: "pre-counting on one key: almost every decision is local, one sync per 100 ms",
  },
  {
    id: "zipf-mix",
    title: "Zipf mix of 10,000 keys, ~10 % over limit",
    path: "/sharded/zipf-mix",
    keys: { kind: "zipf", keys: 10_000, exponent: 0.8, overShare: 0.1 },
    limit: OPEN_1M,
    overLimit: { limit: 10, windowMs: MINUTE },
    quick: false,
    meaning: "keys drawn Zipf(0.8) from 10,000; the heaviest keys (10 % of traffic) have 10/min and are mostly rejected, the rest never are",
  },
];

/** A diagnostic target: one ingredient of floodgate's request path, measured alone. */
export interface Probe {
  readonly id: string;
  /** Which bench worker serves it. */
  readonly service: "probe" | "floodgate" | "origin";
  readonly path: string;
  readonly title: string;
}

/**
 * The probes, loaded with the keys of the scenario marked `probes` and read
 * as ratios to bare in the same rounds (see bench/workers/probe-worker.ts).
 *
 * @example
 * PROBES.map((p) => p.id); // ["floodgate-no-counter", "probe-rpc", …]
 */
export const PROBES: readonly Probe[] = [
  { id: "origin-direct", service: "origin", path: "/sharded/origin", title: "the origin loaded directly: no gateway, nothing forwarded (tiny 200)" },
  { id: "probe-hono", service: "probe", path: "/probe/hono", title: "a minimal Hono app (one middleware) that forwards; no object call" },
  {
    id: "floodgate-no-counter",
    service: "floodgate",
    path: "/sharded/no-counter",
    title: "floodgate on a rule with no limit: routes, rules, forward; no object call",
  },
  { id: "probe-rpc", service: "probe", path: "/probe/rpc", title: "bare pass-through + 1 RPC to 1 of 64 objects (count in a Map)" },
  { id: "probe-rpc-shaped", service: "probe", path: "/probe/rpc-shaped", title: "the same RPC carrying floodgate's call and verdict shapes (objects)" },
  { id: "probe-rpc-sql", service: "probe", path: "/probe/rpc-sql", title: "the same RPC + 1 SQLite upsert per hit (write-through)" },
  { id: "probe-rpc-sql-behind", service: "probe", path: "/probe/rpc-sql-behind", title: "the same RPC, upserts batched every 250 ms (write-behind)" },
];

/**
 * floodgate builds besides the default one, each a separate worker (and
 * separate objects) in the same workerd with `vars` added to wrangler.toml's.
 *
 * @example
 * FLOODGATE_VARIANTS.map((v) => v.id); // ["floodgate-no-coalescing", "floodgate-rtt-25", "floodgate-rtt-100"]
 */
export const FLOODGATE_VARIANTS: readonly {
  readonly id: string;
  readonly title: string;
  readonly vars: Readonly<Record<string, string>>;
  /** The direct path: requests decided at the home object, as with no request.cf (the control; the others take the regional path). */
  readonly direct?: true;
}[] = [
  { id: "floodgate-direct", title: "control: floodgate on the direct path (no request.cf)", vars: {}, direct: true },
  { id: "floodgate-no-coalescing", title: "floodgate with coalescing off", vars: { BENCH_COALESCING: "off" } },
  // The round-trip table's distances are its own (bench/README.md, "Round trip"): on the direct path.
  { id: "floodgate-rtt-25", title: "floodgate, objects 25 ms away (each way)", vars: { BENCH_RTT_MS: "25" }, direct: true },
  { id: "floodgate-rtt-100", title: "floodgate, objects 100 ms away (each way)", vars: { BENCH_RTT_MS: "100" }, direct: true },
];

/**
 * The scenario serving `path`, if any.
 *
 * @example
 * scenarioForPath("/sharded/blocked")?.id; // "blocked"
 */
export function scenarioForPath(path: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.path === path);
}

/**
 * How many of the heaviest Zipf ranks make up at least `share` of the
 * traffic: those are the `over-*` keys.
 *
 * @example
 * zipfOverRanks(10_000, 0.8, 0.1); // 6
 */
export function zipfOverRanks(keys: number, exponent: number, share: number): number {
  let total = 0;
  for (let r = 1; r <= keys; r++) total += r ** -exponent;
  let sum = 0;
  for (let r = 1; r <= keys; r++) {
    sum += r ** -exponent;
    if (sum / total >= share) return r;
  }
  return keys;
}
