/**
 * The options of an `on_limit: "queue"` limit (docs/on-limit.md): how long a
 * queued request may wait (`max_queue_age_s`), how many may wait per key
 * (`max_queue_backlog`), and whether its credential headers are kept
 * (`queue_credentials`). Each is an error on a limit that does not queue.
 */
import type { DomainContext } from "./context.ts";
import { readBool, readInt } from "./fields.ts";
import type { JsonObject } from "./reader.ts";
import { keyPath } from "./reader.ts";
import type { OnLimitAction } from "./types.ts";

/** Defaults and bounds of the queue options (docs/rules.md). */
export const QUEUE_OPTION_BOUNDS = {
  /** A queued request older than this is dead-lettered instead of delivered. */
  maxAgeSeconds: { default: 3_600, min: 1, max: 86_400 },
  /** Requests of one counter key waiting at once; more get a 429. */
  maxBacklog: { default: 100, min: 1, max: 10_000 },
} as const;

/** The queue options as compiled onto a limit. */
export interface QueueOptions {
  readonly maxQueueAgeMs: number;
  readonly maxQueueBacklog: number;
  /** Keep `Authorization`, `Cookie` and the like (encrypted with QUEUE_SECRET); absent means they are dropped. */
  readonly queueCredentials?: true;
}

const KEYS = ["max_queue_age_s", "max_queue_backlog", "queue_credentials"] as const;

/**
 * The queue options of a limit whose `on_limit` is `onLimit`; undefined (with
 * an error per option given) when it does not queue.
 *
 * @example
 * readQueueOptions(ctx, { on_limit: "queue", max_queue_age_s: 60 }, "$.rate_limit", "queue"); // { maxQueueAgeMs: 60000, maxQueueBacklog: 100 }
 */
export function readQueueOptions(ctx: DomainContext, obj: JsonObject, path: string, onLimit: OnLimitAction): QueueOptions | undefined {
  const { d } = ctx;
  if (onLimit !== "queue") {
    for (const key of KEYS) if (Object.hasOwn(obj, key)) d.add(keyPath(path, key), `"${key}" is only used when "on_limit" is "queue"`);
    return undefined;
  }
  const { maxAgeSeconds, maxBacklog } = QUEUE_OPTION_BOUNDS;
  const age = readInt(d, obj, "max_queue_age_s", path, maxAgeSeconds.min, maxAgeSeconds.max) ?? maxAgeSeconds.default;
  const backlog = readInt(d, obj, "max_queue_backlog", path, maxBacklog.min, maxBacklog.max) ?? maxBacklog.default;
  const credentials = readBool(d, obj, "queue_credentials", path) === true;
  return { maxQueueAgeMs: age * 1000, maxQueueBacklog: backlog, ...(credentials ? { queueCredentials: true } : {}) };
}
