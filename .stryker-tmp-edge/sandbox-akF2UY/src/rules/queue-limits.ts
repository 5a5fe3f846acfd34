/**
 * Where a rules file asks for `on_limit: "queue"`. Such limits need the
 * Worker's Cloudflare Queue bindings, which the default wrangler.toml leaves
 * commented out; `rules:check` and `PUT /__ratelimit/rules` name each of
 * these paths when the bindings are missing (docs/on-limit.md, "Turning queues on").
 */
// @ts-nocheck

import { indexPath, keyPath } from "./reader.ts";

/**
 * JSON paths of every `on_limit` whose value is `"queue"`, in file order.
 * Meant for rules that already compile: in those, `on_limit` only appears
 * inside a rate limit, so a plain walk over the parsed JSON finds them all.
 *
 * @example
 * queueLimitPaths({ domain: "api", descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1, on_limit: "queue" } }] });
 * // ["$.descriptors[0].rate_limit.on_limit"]
 */
export function queueLimitPaths(rules: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, indexPath(path, i));
      return;
    }
    if (typeof value !== "object" || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      const at = keyPath(path, key);
      if (key === "on_limit" && child === "queue") found.push(at);
      else walk(child, at);
    }
  };
  walk(rules, "$");
  return found;
}

/** The binding the queue producer must have (wrangler.toml `[[queues.producers]] binding`). */
export const QUEUE_BINDING = "QUEUE";

/**
 * What to do about a queue limit without the `QUEUE` binding: one sentence,
 * the same from `rules:check` and from the admin API.
 *
 * @example
 * `${path}: ${missingQueueMessage("wrangler.toml")}`;
 */
export function missingQueueMessage(configName: string): string {
  return (
    `on_limit "queue" needs the ${QUEUE_BINDING} queue binding, which ${configName} does not have: ` +
    'uncomment the on_limit "queue" block in wrangler.toml and create the two queues ' +
    "(npx wrangler queues create floodgate-queued && npx wrangler queues create floodgate-dead-letters), " +
    "or use another on_limit"
  );
}
