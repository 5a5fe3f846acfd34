/**
 * `"rate_limit": { "concurrency": N }`: at most N requests of a key in
 * flight at once (docs/concurrency.md). No window and no algorithm: the
 * counter object holds N slots, each leased to one request until its
 * response ends.
 */
import { freezeWithKept } from "./facts.ts";
import type { DomainContext } from "./context.ts";
import { readInt } from "./fields.ts";
import { BOUNDS } from "./keys.ts";
import { keyPath, type JsonObject } from "./reader.ts";
import type { CompiledLimit } from "./types.ts";
import { CONCURRENCY_ID } from "../stored/counter-ids.ts";

/**
 * Keys of a counting limit that mean nothing beside `concurrency`: it has no
 * window, no algorithm, and a request over it is always refused at once
 * (nobody knows when a slot frees, so it cannot be delayed or queued).
 */
export const NOT_WITH_CONCURRENCY = [
  "unit",
  "requests_per_unit",
  "unit_multiplier",
  "algorithm",
  "burst",
  "persist_ms",
  "durability",
  "precount",
  "on_limit",
  "max_delay_ms",
  "count_when",
  "max_queue_age_s",
  "max_queue_backlog",
  "queue_credentials",
  "penalty",
] as const;

// The limit id of every concurrency limit is a stored format (docs/stored-formats.md).
export { CONCURRENCY_ID };

/**
 * Read a concurrency limit at `path` (the caller saw `concurrency` in `obj`).
 *
 * @example
 * readConcurrency(ctx, { concurrency: 5 }, "$.descriptors[0].rate_limit", "api_key", undefined, []);
 * // { concurrency: 5, limit: 5, name: "api_key:5/in-flight", id: "concurrency", ... }
 */
export function readConcurrency(
  ctx: DomainContext,
  obj: JsonObject,
  path: string,
  label: string,
  name: string | undefined,
  replaces: readonly string[],
): CompiledLimit | undefined {
  for (const key of NOT_WITH_CONCURRENCY) {
    if (Object.hasOwn(obj, key))
      ctx.d.add(keyPath(path, key), `"${key}" must not be set beside "concurrency" (a concurrency limit has no window or algorithm)`);
  }
  const n = readInt(ctx.d, obj, "concurrency", path, 1, BOUNDS.maxCount);
  if (n === undefined) return undefined;
  ctx.counts.limits += 1;
  return freezeWithKept({
    concurrency: n,
    // The window fields only feed headers and messages: Retry-After is 1 s, as a slot may free any moment.
    limit: n,
    windowMs: 1000,
    burst: n,
    id: CONCURRENCY_ID,
    name: name ?? `${label}:${n}/in-flight`,
    named: name !== undefined,
    replaces,
    unit: "second",
    unitMultiplier: 1,
    requestsPerUnit: n,
    algorithm: "fixed_window",
    onLimit: "reject",
  });
}

/**
 * A node holding a concurrency limit may not also delay or queue: both take
 * their slot at a later time, a concurrency slot is taken now. Nor hold a
 * penalty limit: a blocked request is refused before any slot is asked.
 *
 * @example
 * checkConcurrencyMix(ctx, limits, "$.descriptors[0].rate_limits");
 */
export function checkConcurrencyMix(ctx: DomainContext, limits: readonly CompiledLimit[], path: string): void {
  if (!limits.some((limit) => limit.concurrency !== undefined)) return;
  const waiting = limits.find((limit) => limit.onLimit === "delay" || limit.onLimit === "queue");
  if (waiting !== undefined) {
    ctx.d.add(path, `a concurrency limit cannot share a node with on_limit "${waiting.onLimit}" limits (a request takes its slot now, not later)`);
  }
  // A blocked request is refused before any window or slot is asked: it must neither take nor read a slot.
  if (limits.some((limit) => limit.penalty !== undefined)) ctx.d.add(path, 'a concurrency limit cannot share a node with a limit that has a "penalty"');
}
