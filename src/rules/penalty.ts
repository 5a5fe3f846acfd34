/**
 * `"penalty": { "block_s", "escalate", "max_block_s" }` on a rate limit
 * (docs/rules.md, "Penalty box"): after a refusal by the limit, its key is
 * refused for `block_s` whatever its window says.
 */
import type { PenaltySpec } from "../algorithms/penalty.ts";
import type { DomainContext } from "./context.ts";
import { readInt, requireKey } from "./fields.ts";
import { BOUNDS } from "./keys.ts";
import { asObject, checkKeys, type JsonObject, keyPath } from "./reader.ts";

/**
 * Read `penalty` at `path` (undefined when absent or invalid, errors
 * recorded). A penalty needs every hit of its key decided at the counter
 * object, which keeps the block: so no `precount` (an isolate would allow
 * from its lease, never seeing the block), and only `on_limit: "reject"`
 * (a blocked key has no slot to wait for before the block ends).
 *
 * @example
 * readPenalty(ctx, { penalty: { block_s: 900, escalate: 2 } }, "$.rate_limit", "reject");
 * // { blockMs: 900_000, escalate: 2, maxBlockMs: 86_400_000 }
 */
export function readPenalty(ctx: DomainContext, obj: JsonObject, path: string, onLimit: string): PenaltySpec | undefined {
  if (!Object.hasOwn(obj, "penalty")) return undefined;
  const at = keyPath(path, "penalty");
  if (Object.hasOwn(obj, "precount"))
    ctx.d.add(at, '"penalty" cannot be combined with "precount": a pre-counting isolate allows from its lease and never sees the block');
  if (onLimit !== "reject")
    ctx.d.add(at, `"penalty" cannot be combined with on_limit "${onLimit}"; only "reject" can (a blocked key has no slot before its block ends)`);
  const penalty = asObject(ctx.d, obj.penalty, at);
  if (penalty === undefined) return undefined;
  checkKeys(ctx.d, penalty, at, "penalty");
  requireKey(ctx.d, penalty, "block_s", at);
  const blockS = readInt(ctx.d, penalty, "block_s", at, 1, BOUNDS.maxBlockS);
  const escalate = readInt(ctx.d, penalty, "escalate", at, 1, BOUNDS.maxEscalate) ?? 1;
  const givenMax = readInt(ctx.d, penalty, "max_block_s", at, 1, BOUNDS.maxBlockS);
  if (blockS === undefined) return undefined;
  if (givenMax !== undefined && givenMax < blockS) {
    ctx.d.add(keyPath(at, "max_block_s"), `must be at least block_s (${blockS}), got ${givenMax}`);
    return undefined;
  }
  const maxBlockS = givenMax ?? Math.max(blockS, BOUNDS.defaultMaxBlockS);
  return Object.freeze({ blockMs: blockS * 1000, escalate, maxBlockMs: maxBlockS * 1000 });
}
