/**
 * The optional parts of a rate limit that do not affect counting: its name,
 * `replaces`, `precount` and `on_limit`.
 */
// @ts-nocheck

import type { DomainContext } from "./context.ts";
import { readEnum, readInt, readString, requireKey } from "./fields.ts";
import { BOUNDS, DELAY_ALGORITHMS, ON_LIMIT_ACTIONS } from "./keys.ts";
import { SAFE_NAME } from "./names.ts";
import { asArray, asObject, checkKeys, indexPath, type JsonObject, keyPath } from "./reader.ts";
import type { AlgorithmName } from "../algorithms/types.ts";
import type { OnLimitAction } from "./types.ts";

/**
 * `name`, checked to be safe inside a `RateLimit-Policy` structured-field
 * string, and recorded as defined in the domain (even when the rest of the
 * limit is invalid, so `replaces` pointing at it does not also fail).
 *
 * @example
 * readName(ctx, { name: "per-ip" }, "$.descriptors[0].rate_limit"); // "per-ip"
 */
export function readName(ctx: DomainContext, obj: JsonObject, path: string): string | undefined {
  const name = readString(ctx.d, obj, "name", path);
  if (name === undefined) return undefined;
  if (!SAFE_NAME.test(name)) {
    ctx.d.add(keyPath(path, "name"), 'must be printable ASCII without " or \\ (it is sent in the RateLimit-Policy header)');
    return undefined;
  }
  ctx.names.add(name);
  return name;
}

/**
 * `replaces`: a list of `{ "name": ... }` objects (Envoy's shape). A limit may
 * not replace itself; names that exist nowhere are checked per domain later.
 *
 * @example
 * readReplaces(ctx, { replaces: [{ name: "per-ip" }] }, "$.descriptors[1].rate_limit", "vip"); // ["per-ip"]
 */
export function readReplaces(ctx: DomainContext, obj: JsonObject, path: string, ownName: string | undefined): string[] {
  if (!Object.hasOwn(obj, "replaces")) return [];
  const list = asArray(ctx.d, obj.replaces, keyPath(path, "replaces"));
  if (list === undefined) return [];
  const names: string[] = [];
  list.forEach((item, i) => {
    const at = indexPath(keyPath(path, "replaces"), i);
    const entry = asObject(ctx.d, item, at);
    if (entry === undefined) return;
    checkKeys(ctx.d, entry, at, "replaces");
    if (!requireKey(ctx.d, entry, "name", at)) return;
    const name = readString(ctx.d, entry, "name", at);
    if (name === undefined) return;
    if (name === ownName) {
      ctx.d.add(keyPath(at, "name"), `a rate limit cannot replace itself ("${name}")`);
      return;
    }
    ctx.replacesRefs.push({ name, path: keyPath(at, "name") });
    names.push(name);
  });
  return names;
}

/**
 * `precount: { "sync_ms": N }` (docs/precount.md, "Pre-counting").
 *
 * @example
 * readPrecount(ctx, { precount: { sync_ms: 100 } }, "$.rate_limit"); // { syncMs: 100 }
 */
export function readPrecount(ctx: DomainContext, obj: JsonObject, path: string): { syncMs: number } | undefined {
  if (!Object.hasOwn(obj, "precount")) return undefined;
  const at = keyPath(path, "precount");
  const precount = asObject(ctx.d, obj.precount, at);
  if (precount === undefined) return undefined;
  checkKeys(ctx.d, precount, at, "precount");
  if (!requireKey(ctx.d, precount, "sync_ms", at)) return undefined;
  const syncMs = readInt(ctx.d, precount, "sync_ms", at, 1, BOUNDS.maxMs);
  return syncMs === undefined ? undefined : Object.freeze({ syncMs });
}

/**
 * `on_limit` and `max_delay_ms` (docs/on-limit.md): a delay needs its bound
 * and an algorithm with future slots, a bound without a delay is a mistake,
 * and neither delay nor queue mixes with `precount` (both must take their
 * slot from the counter itself, not from an edge estimate). `algorithm` is
 * the limit's algorithm when known (default included).
 *
 * @example
 * readOnLimit(ctx, { on_limit: "delay", max_delay_ms: 500, algorithm: "gcra" }, "$.rate_limit", "gcra"); // { onLimit: "delay", maxDelayMs: 500 }
 */
export function readOnLimit(
  ctx: DomainContext,
  obj: JsonObject,
  path: string,
  algorithm: AlgorithmName | undefined,
): { onLimit: OnLimitAction; maxDelayMs?: number } {
  const given = readEnum(ctx.d, obj, "on_limit", path, ON_LIMIT_ACTIONS, "on_limit action");
  const maxDelayMs = readInt(ctx.d, obj, "max_delay_ms", path, 0, BOUNDS.maxDelayMs);
  const hasDelay = Object.hasOwn(obj, "max_delay_ms");
  if ((given === "delay" || given === "queue") && Object.hasOwn(obj, "precount")) {
    ctx.d.add(
      keyPath(path, "precount"),
      `"precount" cannot be combined with on_limit "${given}": a ${given === "delay" ? "delayed" : "queued"} request takes its slot from the counter itself, never from the edge's estimate`,
    );
  }
  if (given === "delay") {
    if (!hasDelay) ctx.d.add(path, 'missing required key "max_delay_ms" (required when "on_limit" is "delay")');
    if (algorithm !== undefined && !DELAY_ALGORITHMS.includes(algorithm)) {
      const which = Object.hasOwn(obj, "algorithm") ? `"${algorithm}"` : `"${algorithm}" (the default)`;
      ctx.d.add(
        keyPath(path, "on_limit"),
        `on_limit "delay" needs an algorithm with future slots (${DELAY_ALGORITHMS.join(", ")}); algorithm ${which} has none — pick one of those, or use on_limit "queue"`,
      );
    }
    return { onLimit: given, maxDelayMs };
  }
  // An invalid `on_limit` was already reported; a second error about the delay would be noise.
  const invalidAction = Object.hasOwn(obj, "on_limit") && given === undefined;
  if (hasDelay && !invalidAction) {
    ctx.d.add(keyPath(path, "max_delay_ms"), '"max_delay_ms" is only used when "on_limit" is "delay"');
  }
  return { onLimit: given ?? "reject" };
}
