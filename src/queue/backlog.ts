/**
 * The per-key backlog of `on_limit: "queue"` (docs/on-limit.md, "Bounds"):
 * at most `max_queue_backlog` requests of one counter key wait in the queue
 * at once. The places are held in a QueueStatusObject named after the
 * counter (`backlog:<hash>`, never a UUID, so the status endpoint cannot
 * read it), one row per queued id with its expiry, so a place whose message
 * was lost frees itself at the request's maximum age.
 */
import type { Env } from "../config.ts";
import type { PaceTarget } from "./message.ts";
import { ownerHash } from "./owner.ts";

/**
 * The backlog object's name for a counter.
 *
 * @example
 * await backlogName({ object: "api:3", call }); // "backlog:9f2c…"
 */
export async function backlogName(target: PaceTarget): Promise<string> {
  return `backlog:${await ownerHash(`${target.object}\n${target.call.key}`)}`;
}

/**
 * Take a place for `id` in every named backlog (each with its cap), or none:
 * false when one is full, and the places taken on the way are freed.
 *
 * @example
 * if (!(await claimBacklog(env, [["backlog:…", 100]], id, expiresAt))) return refusal(result);
 */
export async function claimBacklog(env: Env, places: readonly (readonly [string, number])[], id: string, expiresAt: number): Promise<boolean> {
  const statuses = env.QUEUED;
  if (statuses === undefined) return true;
  const taken: string[] = [];
  for (const [name, cap] of places) {
    if (!(await statuses.getByName(name).claimPlace(id, cap, expiresAt))) {
      await releaseBacklog(env, taken, id);
      return false;
    }
    taken.push(name);
  }
  return true;
}

/**
 * Free `id`'s place in every named backlog (a no-op for a place already free).
 *
 * @example
 * await releaseBacklog(env, message.backlog ?? [], message.id);
 */
export async function releaseBacklog(env: Env, names: readonly string[], id: string): Promise<void> {
  const statuses = env.QUEUED;
  if (statuses === undefined) return;
  await Promise.all(names.map((name) => statuses.getByName(name).releasePlace(id)));
}
