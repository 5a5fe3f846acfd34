/**
 * Gradual and soft enforcement of a rate limit (docs/rules.md, "Gradual and
 * soft enforcement"): `enforce_percent`, `soft_percent` and `candidate`,
 * read and compiled into the limit they stand in.
 */
import { exactArithmeticOk } from "../algorithms/index.ts";
import { CANDIDATE_SUFFIX, COUNT_WHEN_SUFFIX } from "../stored/counter-ids.ts";
import { freezeWithKept } from "./facts.ts";
import type { DomainContext } from "./context.ts";
import { readInt } from "./fields.ts";
import { BOUNDS } from "./keys.ts";
import { limitId } from "./names.ts";
import { asObject, type JsonObject, keyPath } from "./reader.ts";
import type { CompiledLimit } from "./types.ts";

/** The keys of this file, in the order the docs present them. */
export const ENFORCEMENT_KEYS = ["enforce_percent", "soft_percent", "candidate"] as const;

/** Largest `soft_percent`: a soft limit lets through at most 11 × the limit. */
export const MAX_SOFT_PERCENT = 1000;

/** The only keys a `candidate` takes: what counts. The rest (precount, scope, durability) it takes from its live limit. */
export const CANDIDATE_KEYS: readonly string[] = ["name", "unit", "requests_per_unit", "unit_multiplier", "algorithm", "burst"];

/** Reads one rate limit object (src/rules/limit.ts's readRateLimit, passed in so the two files do not import each other). */
export type LimitReader = (
  ctx: DomainContext,
  value: unknown,
  path: string,
  label: string,
  inArray: boolean,
) => { readonly kind: "limit"; readonly limit: CompiledLimit } | { readonly kind: "unlimited" } | undefined;

/**
 * `limit` with the enforcement keys of `obj` (the limit as written, at
 * `path`) compiled in; undefined when `limit` is (its errors are recorded)
 * or when one of them is invalid. `soft_percent` raises the limit's own
 * `limit` and `burst` to the ceiling the counter enforces and keeps the
 * written ones in `soft`.
 *
 * @example
 * withEnforcement(ctx, { unit: "minute", requests_per_unit: 10, soft_percent: 20 }, "$.rate_limit", "user", limit, readRateLimit);
 * // { ...limit, limit: 12, burst: 12, id: "swc:12:60000:12", soft: { percent: 20, limit: 10, burst: 10 } }
 */
export function withEnforcement(
  ctx: DomainContext,
  obj: JsonObject,
  path: string,
  label: string,
  limit: CompiledLimit | undefined,
  readLimit: LimitReader,
): CompiledLimit | undefined {
  const present = ENFORCEMENT_KEYS.filter((key) => Object.hasOwn(obj, key));
  if (present.length === 0) return limit;
  const before = ctx.d.errors.length;
  const enforcePercent = readInt(ctx.d, obj, "enforce_percent", path, 0, 100);
  const softPercent = readInt(ctx.d, obj, "soft_percent", path, 0, MAX_SOFT_PERCENT);
  for (const key of present) conflicts(ctx, obj, path, key);
  const candidate = Object.hasOwn(obj, "candidate") ? readCandidate(ctx, obj.candidate, keyPath(path, "candidate"), label, readLimit) : undefined;
  if (limit === undefined || ctx.d.errors.length > before) return undefined;
  const fields: { -readonly [K in keyof CompiledLimit]?: CompiledLimit[K] } = {};
  if (enforcePercent !== undefined && enforcePercent < 100) fields.enforcePercent = enforcePercent;
  if (softPercent !== undefined && softPercent > 0) {
    const ceiling = softCeiling(limit, softPercent);
    if (ceiling.limit > limit.limit || ceiling.burst > limit.burst) {
      if (!exactArithmeticOk({ limit: ceiling.limit, windowMs: limit.windowMs, burst: ceiling.burst }, limit.algorithm) || tooLongLog(limit, ceiling.limit)) {
        ctx.d.add(keyPath(path, "soft_percent"), `the soft ceiling (${ceiling.limit}) is too large for this limit's algorithm; lower soft_percent`);
        return undefined;
      }
      Object.assign(fields, ceiling, {
        // Counted against the ceiling: its counter is that of the ceiling's parameters.
        id: limitId(limit.algorithm, ceiling.limit, limit.windowMs, ceiling.burst) + (limit.countWhen !== undefined ? COUNT_WHEN_SUFFIX : ""),
        soft: Object.freeze({ percent: softPercent, limit: limit.limit, burst: limit.burst }),
      });
    }
  }
  if (candidate !== undefined) fields.candidate = besideLive(candidate, limit);
  // The kept holder (src/rules/facts.ts) is per limit: the copy gets its own.
  return freezeWithKept({ ...limit, ...fields });
}

/**
 * The counter's ceiling of a limit with `soft_percent`: ⌊limit × (1 + N/100)⌋ and the same of its burst.
 *
 * @example
 * softCeiling({ limit: 10, burst: 10 }, 25); // { limit: 12, burst: 12 }
 */
export function softCeiling(limit: { readonly limit: number; readonly burst: number }, percent: number): { limit: number; burst: number } {
  return { limit: Math.floor((limit.limit * (100 + percent)) / 100), burst: Math.floor((limit.burst * (100 + percent)) / 100) };
}

function tooLongLog(limit: CompiledLimit, ceiling: number): boolean {
  return limit.algorithm === "sliding_window_log" && ceiling > BOUNDS.maxLogLimit;
}

// A refused request of these limits is not a plain refusal to forward or soften; a candidate must count every request.
function conflicts(ctx: DomainContext, obj: JsonObject, path: string, key: string): void {
  if (Object.hasOwn(obj, "concurrency")) ctx.d.add(keyPath(path, key), `"${key}" does not apply to a concurrency limit`);
  const action = obj.on_limit;
  if (action === "delay" || action === "queue") ctx.d.add(keyPath(path, key), `"${key}" cannot be combined with on_limit "${action}"; only "reject" can`);
  if (key === "candidate" && Object.hasOwn(obj, "count_when"))
    ctx.d.add(keyPath(path, key), '"candidate" cannot be combined with "count_when": a candidate counts every request its live limit sees');
}

function readCandidate(ctx: DomainContext, value: unknown, path: string, label: string, readLimit: LimitReader): CompiledLimit | undefined {
  const obj = asObject(ctx.d, value, path);
  if (obj === undefined) return undefined;
  let allowed = true;
  for (const key of Object.keys(obj)) {
    if (CANDIDATE_KEYS.includes(key)) continue;
    allowed = false;
    ctx.d.add(
      keyPath(path, key),
      `"${key}" is not allowed in a candidate (it takes only ${CANDIDATE_KEYS.join(", ")}; it counts where its live limit does and never acts)`,
    );
  }
  if (!allowed) return undefined;
  const read = readLimit(ctx, obj, path, label, false);
  return read?.kind === "limit" ? read.limit : undefined;
}

// Counted on the live limit's key, in its object, the way it is counted (pre-counted, regional, durable), in a counter of its own.
function besideLive(candidate: CompiledLimit, live: CompiledLimit): CompiledLimit {
  const copy: { -readonly [K in keyof CompiledLimit]?: CompiledLimit[K] } = {
    ...candidate,
    id: candidate.id + CANDIDATE_SUFFIX,
    name: candidate.named ? candidate.name : `${live.name}/candidate`,
    named: false,
    replaces: [],
    candidateOf: live.name,
  };
  for (const key of ["precount", "scope", "persistMs", "strict"] as const) {
    if (live[key] !== undefined) Object.assign(copy, { [key]: live[key] });
  }
  return freezeWithKept(copy as CompiledLimit);
}
