/**
 * `persist_ms` and `durability` of a rate limit: how soon a change of a
 * counter that outlives a restart reaches storage (docs/reliability.md, "Durability").
 */
import { readEnum, readInt } from "./fields.ts";
import { DURABILITIES, DURABLE_WINDOW_MS, PERSIST_MS } from "./keys.ts";
import { type Diagnostics, type JsonObject, keyPath } from "./reader.ts";

/**
 * The limit's durability fields, validated: `{}` for the defaults,
 * `{ persistMs }` for another checkpoint delay, `{ strict: true }` for
 * write-through. Both apply only to windows of 5 s or longer (DURABLE_WINDOW_MS);
 * shorter windows are never stored, so setting either there is an error rather than
 * a promise the limiter would not keep.
 *
 * @example
 * readDurability(d, { unit: "day", durability: "strict" }, "$.rate_limit", 86_400_000); // { strict: true }
 */
export function readDurability(d: Diagnostics, obj: JsonObject, path: string, windowMs: number): { persistMs?: number; strict?: true } {
  const persistMs = readInt(d, obj, "persist_ms", path, 1, PERSIST_MS.max);
  const durability = Object.hasOwn(obj, "durability") ? readEnum(d, obj, "durability", path, DURABILITIES, "durability") : undefined;
  if (windowMs < DURABLE_WINDOW_MS) {
    for (const key of ["persist_ms", "durability"]) {
      if (Object.hasOwn(obj, key)) {
        d.add(keyPath(path, key), `"${key}" applies only to windows of 5 s or longer; shorter windows are kept in memory only and never stored`);
      }
    }
    return {};
  }
  if (durability === "strict") {
    if (Object.hasOwn(obj, "persist_ms"))
      d.add(keyPath(path, "persist_ms"), '"persist_ms" does not apply with durability "strict": every change is written before its answer');
    return { strict: true };
  }
  return persistMs !== undefined && persistMs !== PERSIST_MS.default ? { persistMs } : {};
}
