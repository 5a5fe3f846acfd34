/**
 * Ids for the calls an object must apply once (docs/reliability.md,
 * "Exactly once"; `op` in src/stored/wire-calls.ts): refunds, settlements,
 * debt payments, pre-counting syncs. Unique per isolate (a random prefix,
 * drawn at the first id: Workers give no random values at startup) and per
 * call (a counter), short: an object keeps thousands of them.
 */

let prefix: string | undefined;
let next = 0;

/**
 * A fresh call id: the same call sent again (a retry on a fresh stub, a
 * failed debt payment sent with the next call) carries the same one.
 *
 * @example
 * const call = { kind: "refund", op: newOp(), key, limits, cost: 1, chargedAt };
 */
export function newOp(): string {
  prefix ??= crypto.randomUUID().replaceAll("-", "").slice(0, 12);
  next += 1;
  return `${prefix}.${next.toString(36)}`;
}
