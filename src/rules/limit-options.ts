/**
 * The optional parts of a rate limit that do not affect counting: its name,
 * `replaces`, `precount` and `on_limit`.
 */
import type { DomainContext } from "./context.ts";
import { readEnum, readInt, readString, requireKey } from "./fields.ts";
import { AVAILABLE_ON_LIMIT_ACTIONS, BOUNDS, ON_LIMIT_ACTIONS } from "./keys.ts";
import { SAFE_NAME } from "./names.ts";
import { asArray, asObject, checkKeys, indexPath, type JsonObject, keyPath } from "./reader.ts";
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
 * `precount: { "sync_ms": N }` (SPEC section 6).
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
 * `on_limit` and `max_delay_ms` (SPEC section 9): a delay needs its bound,
 * and a bound without a delay is a mistake.
 *
 * @example
 * readOnLimit(ctx, { on_limit: "delay", max_delay_ms: 500 }, "$.rate_limit"); // { onLimit: "delay", maxDelayMs: 500 }
 */
export function readOnLimit(
  ctx: DomainContext, obj: JsonObject, path: string,
): { onLimit: OnLimitAction; maxDelayMs?: number } {
  const given = readEnum(ctx.d, obj, "on_limit", path, ON_LIMIT_ACTIONS, "on_limit action");
  const maxDelayMs = readInt(ctx.d, obj, "max_delay_ms", path, 0, BOUNDS.maxMs);
  const hasDelay = Object.hasOwn(obj, "max_delay_ms");
  if (given !== undefined && !(AVAILABLE_ON_LIMIT_ACTIONS as readonly string[]).includes(given)) {
    // Accepting them before they work would silently turn a delay or a queue into a 429.
    ctx.d.add(keyPath(path, "on_limit"), `on_limit "${given}" is not available in this version of floodgate yet (only "reject")`);
  }
  if (given === "delay") {
    if (!hasDelay) ctx.d.add(path, 'missing required key "max_delay_ms" (required when "on_limit" is "delay")');
    return { onLimit: given, maxDelayMs };
  }
  // An invalid `on_limit` was already reported; a second error about the delay would be noise.
  const invalidAction = Object.hasOwn(obj, "on_limit") && given === undefined;
  if (hasDelay && !invalidAction) {
    ctx.d.add(keyPath(path, "max_delay_ms"), '"max_delay_ms" is only used when "on_limit" is "delay"');
  }
  return { onLimit: given ?? "reject" };
}
