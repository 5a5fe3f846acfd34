/**
 * One rate limit object (`rate_limit`, or an element of `rate_limits`) into a
 * CompiledLimit, or the `unlimited` marker.
 */
import { freezeWithKept } from "./facts.ts";
import { exactArithmeticOk } from "../algorithms/index.ts";
import type { AlgorithmName } from "../algorithms/types.ts";
import type { DomainContext } from "./context.ts";
import { readBool, readEnum, readInt, requireKey } from "./fields.ts";
import { ALGORITHMS, BOUNDS, BURST_ALGORITHMS, DEFAULT_ALGORITHM, UNIT_MS, UNITS } from "./keys.ts";
import { readCountWhen } from "./count-when.ts";
import { readDurability } from "./durability.ts";
import { readConcurrency } from "./concurrency.ts";
import { readName, readOnLimit, readPrecount, readReplaces } from "./limit-options.ts";
import { readPenalty } from "./penalty.ts";
import { readScope, withScope } from "./scope.ts";
import { withEnforcement } from "./enforcement.ts";
import { COUNT_WHEN_SUFFIX } from "../stored/counter-ids.ts";
import { derivedName, limitId } from "./names.ts";
import { readQueueOptions } from "./queue-options.ts";
import { asObject, checkKeys, type JsonObject, keyPath } from "./reader.ts";
import type { CompiledLimit } from "./types.ts";

export type LimitResult = { readonly kind: "limit"; readonly limit: CompiledLimit } | { readonly kind: "unlimited"; readonly replaces: readonly string[] };

/** Keys that describe counting, and so contradict `unlimited: true`. */
const COUNTING_KEYS = [
  "unit",
  "requests_per_unit",
  "unit_multiplier",
  "algorithm",
  "burst",
  "precount",
  "on_limit",
  "max_delay_ms",
  "persist_ms",
  "durability",
  "concurrency",
  "count_when",
  "max_queue_age_s",
  "max_queue_backlog",
  "queue_credentials",
  "scope",
  "penalty",
  "enforce_percent",
  "soft_percent",
  "candidate",
] as const;

/**
 * Read one rate limit at `path`; `label` names its tree node for derived
 * limit names. Returns undefined (with errors recorded) when invalid.
 *
 * @example
 * readRateLimit(ctx, { unit: "minute", requests_per_unit: 60 }, "$.descriptors[0].rate_limit", "remote_address", false);
 * // { kind: "limit", limit: { id: "swc:60:60000:60", name: "remote_address:60/1m", ... } }
 */
export function readRateLimit(ctx: DomainContext, value: unknown, path: string, label: string, inArray: boolean): LimitResult | undefined {
  const obj = asObject(ctx.d, value, path);
  if (obj === undefined) return undefined;
  const before = ctx.d.errors.length;
  checkKeys(ctx.d, obj, path, "rateLimit");
  const name = readName(ctx, obj, path);
  const replaces = Object.freeze(readReplaces(ctx, obj, path, name));
  if (readBool(ctx.d, obj, "unlimited", path) === true) {
    if (inArray) {
      ctx.d.add(keyPath(path, "unlimited"), '"unlimited" is not allowed in "rate_limits" (use "rate_limit": { "unlimited": true })');
    }
    for (const key of COUNTING_KEYS) {
      if (Object.hasOwn(obj, key)) ctx.d.add(keyPath(path, key), `"${key}" must not be set when "unlimited" is true`);
    }
    return ctx.d.errors.length > before ? undefined : { kind: "unlimited", replaces };
  }
  const scope = readScope(ctx.d, obj, path);
  const counted = Object.hasOwn(obj, "concurrency")
    ? readConcurrency(ctx, obj, path, label, name, replaces)
    : readCounting(ctx, obj, path, label, name, replaces);
  const limit = withEnforcement(ctx, obj, path, label, counted === undefined ? undefined : withScope(counted, scope), readRateLimit);
  return limit === undefined || ctx.d.errors.length > before ? undefined : { kind: "limit", limit };
}

function readCounting(
  ctx: DomainContext,
  obj: JsonObject,
  path: string,
  label: string,
  name: string | undefined,
  replaces: readonly string[],
): CompiledLimit | undefined {
  const { d } = ctx;
  requireKey(d, obj, "unit", path);
  requireKey(d, obj, "requests_per_unit", path);
  const unit = readEnum(d, obj, "unit", path, UNITS, "unit");
  const requestsPerUnit = readInt(d, obj, "requests_per_unit", path, 0, BOUNDS.maxCount);
  const unitMultiplier = readInt(d, obj, "unit_multiplier", path, 1, BOUNDS.maxCount) ?? 1;
  const algorithm = Object.hasOwn(obj, "algorithm") ? readEnum(d, obj, "algorithm", path, ALGORITHMS, "algorithm") : DEFAULT_ALGORITHM;
  const givenBurst = readInt(d, obj, "burst", path, 1, BOUNDS.maxCount);
  const hasBurst = algorithm !== undefined && BURST_ALGORITHMS.includes(algorithm);
  if (Object.hasOwn(obj, "burst") && algorithm !== undefined && !hasBurst) {
    const which = Object.hasOwn(obj, "algorithm") ? `"${algorithm}"` : `"${algorithm}" (the default)`;
    d.add(keyPath(path, "burst"), `"burst" does not apply to algorithm ${which}; only ${BURST_ALGORITHMS.join(", ")} have a burst`);
  }
  const precount = readPrecount(ctx, obj, path);
  const { onLimit, maxDelayMs } = readOnLimit(ctx, obj, path, algorithm);
  const queue = readQueueOptions(ctx, obj, path, onLimit);
  const countWhen = readCountWhen(ctx, obj, path);
  if (countWhen !== undefined) conflictsWithCountWhen(ctx, obj, path, onLimit);
  const penalty = readPenalty(ctx, obj, path, onLimit);
  if (unit === undefined || requestsPerUnit === undefined || algorithm === undefined) return undefined;

  const windowMs = UNIT_MS[unit] * unitMultiplier;
  if (!windowOk(windowMs)) {
    d.add(keyPath(path, "unit_multiplier"), `window too long: with unit "${unit}", unit_multiplier must be at most ${maxMultiplier(UNIT_MS[unit])}`);
    return undefined;
  }
  const durability = readDurability(d, obj, path, windowMs);
  const burst = hasBurst ? (givenBurst ?? requestsPerUnit) : requestsPerUnit;
  if (algorithm === "sliding_window_log" && requestsPerUnit > BOUNDS.maxLogLimit) {
    // The log keeps an entry per allowed request; past this it outgrows a storage row and the hot path.
    d.add(
      keyPath(path, "requests_per_unit"),
      `sliding_window_log keeps one entry per request, so requests_per_unit must be at most ${BOUNDS.maxLogLimit} (got ${requestsPerUnit}); use sliding_window_counter for larger limits`,
    );
    return undefined;
  }
  if (!exactArithmeticOk({ limit: requestsPerUnit, windowMs, burst }, algorithm)) {
    d.add(keyPath(path, Object.hasOwn(obj, "burst") ? "burst" : "requests_per_unit"), inexactMessage(algorithm));
    return undefined;
  }
  ctx.counts.limits += 1;
  return freezeWithKept({
    limit: requestsPerUnit,
    windowMs,
    burst,
    // A limit that counts only some responses keeps its own counter beside an otherwise equal one.
    id: limitId(algorithm, requestsPerUnit, windowMs, burst) + (countWhen !== undefined ? COUNT_WHEN_SUFFIX : ""),
    name: name ?? derivedName(label, requestsPerUnit, unit, unitMultiplier),
    named: name !== undefined,
    replaces,
    unit,
    unitMultiplier,
    requestsPerUnit,
    algorithm,
    ...(precount !== undefined ? { precount } : {}),
    onLimit,
    ...(maxDelayMs !== undefined ? { maxDelayMs } : {}),
    ...queue,
    ...durability,
    ...(countWhen !== undefined ? { countWhen } : {}),
    ...(penalty !== undefined ? { penalty } : {}),
  });
}

// The hit is reserved at the counter and maybe given back: the edge's
// estimate (precount) and future slots (delay, queue) cannot take it back.
function conflictsWithCountWhen(ctx: DomainContext, obj: JsonObject, path: string, onLimit: string): void {
  if (Object.hasOwn(obj, "precount"))
    ctx.d.add(keyPath(path, "precount"), '"precount" cannot be combined with "count_when": a hit that may be refunded is taken at the counter itself');
  if (onLimit !== "reject") ctx.d.add(keyPath(path, "on_limit"), `on_limit "${onLimit}" cannot be combined with "count_when"; only "reject" can`);
}

// Zero counts isolate the window bound of the algorithms' arithmetic.
const windowOk = (windowMs: number) => exactArithmeticOk({ limit: 0, windowMs, burst: 0 });

// Largest multiplier of `unitMs` the algorithms accept; the bound is monotone, so bisect.
function maxMultiplier(unitMs: number): number {
  let lo = 1;
  let hi = BOUNDS.maxCount;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (windowOk(unitMs * mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function inexactMessage(algorithm: AlgorithmName): string {
  return (
    `too large for exact integer arithmetic in ${algorithm}: burst × window ÷ gcd(requests_per_unit, window) ` +
    "must stay below 2^52; lower burst or requests_per_unit, or pick a rounder requests_per_unit"
  );
}
