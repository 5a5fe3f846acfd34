/**
 * The vocabulary of `rules.json`: every key, enum value and bound the
 * validator enforces. `rules.schema.json` and the tests are checked against
 * these lists, so the validator, the schema and the docs cannot drift apart.
 */
// @ts-nocheck
function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
import { BUCKET_ALGORITHMS, RESERVABLE } from "../algorithms/index.ts";
import type { AlgorithmName } from "../algorithms/types.ts";
import type { Placement, Unit } from "./types.ts";

/** Allowed keys per object kind, in the order the docs present them. */
export const RULE_KEYS = {
  document: ["$schema", "domain", "descriptors", "routes", "placement", "shards"],
  descriptor: ["key", "value", "rate_limit", "rate_limits", "descriptors", "shadow_mode", "detailed_metric", "quota_mode", "share_threshold"],
  rateLimit: ["name", "replaces", "unit", "requests_per_unit", "unlimited", "unit_multiplier", "algorithm", "burst", "persist_ms", "durability", "precount", "on_limit", "max_delay_ms", "concurrency", "count_when"],
  countWhen: ["status"],
  replaces: ["name"],
  precount: ["sync_ms"],
  route: ["match", "descriptors", "cost", "cost_from_response"],
  cost: ["header", "body_bytes"],
  costFromResponse: ["header"],
  match: ["methods", "path", "host"],
  routeEntry: ["key", "value", "header", "query", "cookie"]
} as const satisfies Record<string, readonly string[]>;

/** The object kinds of `RULE_KEYS`. */
export type RuleObjectKind = keyof typeof RULE_KEYS;

/**
 * Keys Envoy's rate limit service knows but floodgate does not implement.
 * Accepting them silently would change what a migrated config means, so they
 * get a dedicated error instead of a "did you mean".
 */
export const ENVOY_ONLY_KEYS: readonly string[] = stryMutAct_9fa48("1526") ? [] : (stryCov_9fa48("1526"), [stryMutAct_9fa48("1527") ? "" : (stryCov_9fa48("1527"), "value_to_metric"), stryMutAct_9fa48("1528") ? "" : (stryCov_9fa48("1528"), "metadata")]);

/** Window length of one unit, in milliseconds (month = 30 days, year = 365 days). */
export const UNIT_MS: Readonly<Record<Unit, number>> = stryMutAct_9fa48("1529") ? {} : (stryCov_9fa48("1529"), {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 2_592_000_000,
  year: 31_536_000_000
});
export const UNITS = Object.keys(UNIT_MS) as readonly Unit[];
export const ALGORITHMS: readonly AlgorithmName[] = stryMutAct_9fa48("1530") ? [] : (stryCov_9fa48("1530"), [stryMutAct_9fa48("1531") ? "" : (stryCov_9fa48("1531"), "token_bucket"), stryMutAct_9fa48("1532") ? "" : (stryCov_9fa48("1532"), "leaky_bucket"), stryMutAct_9fa48("1533") ? "" : (stryCov_9fa48("1533"), "fixed_window"), stryMutAct_9fa48("1534") ? "" : (stryCov_9fa48("1534"), "sliding_window_log"), stryMutAct_9fa48("1535") ? "" : (stryCov_9fa48("1535"), "sliding_window_counter"), stryMutAct_9fa48("1536") ? "" : (stryCov_9fa48("1536"), "gcra")]);

/** Algorithms with a capacity separate from the per-window rate. */
export const BURST_ALGORITHMS: readonly AlgorithmName[] = BUCKET_ALGORITHMS;
export const DEFAULT_ALGORITHM: AlgorithmName = stryMutAct_9fa48("1537") ? "" : (stryCov_9fa48("1537"), "sliding_window_counter");
export const PLACEMENTS: readonly Placement[] = stryMutAct_9fa48("1538") ? [] : (stryCov_9fa48("1538"), [stryMutAct_9fa48("1539") ? "" : (stryCov_9fa48("1539"), "sharded"), stryMutAct_9fa48("1540") ? "" : (stryCov_9fa48("1540"), "per_key")]);

/** `on_limit` actions (docs/on-limit.md): answer 429, wait for a reserved slot, or queue for later delivery. */
export const ON_LIMIT_ACTIONS = ["reject", "delay", "queue"] as const;

/**
 * Algorithms that define a future slot, so `on_limit: "delay"` can reserve
 * one (their state only moves forward; see `src/algorithms/reserve.ts`).
 */
export const DELAY_ALGORITHMS: readonly AlgorithmName[] = stryMutAct_9fa48("1541") ? [] : (stryCov_9fa48("1541"), [...RESERVABLE]);

/** Route entry keys that take their value from the request without a source. */
export const BUILTIN_KEYS = ["remote_address", "path", "method", "host"] as const;

/** Route entry value sources; an entry names exactly one (or is a built-in key). */
export const VALUE_SOURCES = ["value", "header", "query", "cookie"] as const;

/** Numeric bounds shared by the validator and the schema. */
export const BOUNDS = {
  /** Envoy's `requests_per_unit` is a uint32. */
  maxCount: 4_294_967_295,
  /** Largest `requests_per_unit` for sliding_window_log, whose state holds an entry per request. */
  maxLogLimit: 10_000,
  defaultShards: 64,
  maxShards: 1024,
  /** Largest delay a timer can express (setTimeout's signed 32-bit limit). */
  maxMs: 2_147_483_647,
  /**
   * Longest `max_delay_ms`: a request held at the edge longer than a minute
   * meets client and proxy timeouts; slower traffic belongs in a queue.
   */
  maxDelayMs: 60_000,
  /** Nesting of `descriptors`; deeper trees are almost certainly a generated mistake. */
  maxDepth: 32,
  /** Cap on reported errors so a pathological file cannot produce a huge report. */
  maxErrors: 1000
} as const;

/** `durability` of a rate limit: checkpointed every `persist_ms` (the default), or written before each answer. */
export const DURABILITIES = ["checkpoint", "strict"] as const;

/** Default and largest `persist_ms`: a checkpoint at most this long after a change. */
export const PERSIST_MS = {
  default: 1_000,
  max: 60_000
} as const;

/** Windows this long or longer are kept in storage; shorter ones live in memory only. */
export const DURABLE_WINDOW_MS = 60_000;