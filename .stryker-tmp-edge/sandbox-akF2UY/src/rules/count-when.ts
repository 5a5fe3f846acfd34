/**
 * `count_when` inside a rate limit (docs/response-limits.md): which origin
 * responses are charged. `{"status": [401, 403, "5xx", "500-504"]}`.
 */
// @ts-nocheck

import type { DomainContext } from "./context.ts";
import { requireKey } from "./fields.ts";
import { asArray, asObject, checkKeys, indexPath, type JsonObject, jsonType, keyPath } from "./reader.ts";
import type { CountWhen } from "./types.ts";

const CLASS = /^([1-5])xx$/i;
const RANGE = /^(\d{3})-(\d{3})$/;
const STATUS = { min: 100, max: 599 } as const;

const isStatus = (n: number) => Number.isInteger(n) && n >= STATUS.min && n <= STATUS.max;

/**
 * Whether a response with `status` is charged under `countWhen`.
 *
 * @example
 * countsStatus({ status: [[401, 401], [500, 599]] }, 503); // true
 * countsStatus({ status: [[401, 401]] }, 200);             // false
 */
export function countsStatus(countWhen: CountWhen, status: number): boolean {
  return countWhen.status.some(([lo, hi]) => status >= lo && status <= hi);
}

/**
 * Read `count_when` of the rate limit `obj` at `path`; undefined when absent
 * or invalid (errors recorded with their JSON paths).
 *
 * @example
 * readCountWhen(ctx, { count_when: { status: [401, "5xx"] } }, "$.descriptors[0].rate_limit");
 * // { status: [[401, 401], [500, 599]] }
 */
export function readCountWhen(ctx: DomainContext, obj: JsonObject, path: string): CountWhen | undefined {
  if (!Object.hasOwn(obj, "count_when")) return undefined;
  const at = keyPath(path, "count_when");
  const spec = asObject(ctx.d, obj.count_when, at);
  if (spec === undefined) return undefined;
  checkKeys(ctx.d, spec, at, "countWhen");
  if (!requireKey(ctx.d, spec, "status", at)) return undefined;
  const list = asArray(ctx.d, spec.status, keyPath(at, "status"));
  if (list === undefined) return undefined;
  if (list.length === 0) ctx.d.add(keyPath(at, "status"), 'must list at least one status, class ("4xx") or range ("500-599")');
  const ranges: [number, number][] = [];
  const before = ctx.d.errors.length;
  list.forEach((item, i) => {
    const range = readStatus(item);
    if (typeof range === "string") ctx.d.add(indexPath(keyPath(at, "status"), i), range);
    else ranges.push(range);
  });
  if (ctx.d.errors.length > before || ranges.length === 0) return undefined;
  return Object.freeze({ status: Object.freeze(ranges.map((r) => Object.freeze(r))) });
}

// A range, or the message saying why `item` is none.
function readStatus(item: unknown): [number, number] | string {
  if (typeof item === "number") return isStatus(item) ? [item, item] : `status ${item} is not an HTTP status (${STATUS.min}–${STATUS.max})`;
  if (typeof item !== "string") return `expected a status (401), class ("4xx") or range ("500-599"), got ${jsonType(item)}`;
  const cls = CLASS.exec(item);
  if (cls) return [Number(cls[1]) * 100, Number(cls[1]) * 100 + 99];
  const range = RANGE.exec(item);
  if (range) {
    const lo = Number(range[1]);
    const hi = Number(range[2]);
    if (isStatus(lo) && isStatus(hi) && lo <= hi) return [lo, hi];
    return `range ${JSON.stringify(item)} must run from a lower to a higher status within ${STATUS.min}–${STATUS.max}`;
  }
  return `${JSON.stringify(item)} is not a status (401), class ("4xx") or range ("500-599")`;
}
