/**
 * Where a rules file asks for `on_limit: "queue"`. Such limits need the
 * Worker's Cloudflare Queue bindings, which the default wrangler.toml leaves
 * commented out; `rules:check` and `PUT /__ratelimit/rules` name each of
 * these paths when the bindings are missing (docs/on-limit.md, "Turning queues on").
 */
import { indexPath, keyPath } from "./reader.ts";
import type { CompiledRules, DescriptorLevel } from "./types.ts";

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
  return pathsWhere(rules, (key, value) => key === "on_limit" && value === "queue");
}

/**
 * JSON paths of every `queue_credentials: true`, in file order (rules that compile, as for queueLimitPaths).
 *
 * @example
 * queueCredentialPaths(rules); // ["$.descriptors[0].rate_limit.queue_credentials"]
 */
export function queueCredentialPaths(rules: unknown): string[] {
  return pathsWhere(rules, (key, value) => key === "queue_credentials" && value === true);
}

function pathsWhere(rules: unknown, wanted: (key: string, value: unknown) => boolean): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, indexPath(path, i));
      return;
    }
    if (typeof value !== "object" || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      const at = keyPath(path, key);
      if (wanted(key, child)) found.push(at);
      else walk(child, at);
    }
  };
  walk(rules, "$");
  return found;
}

/** Why a `queue_credentials` limit cannot run without QUEUE_SECRET (the admin API's error). */
export const MISSING_QUEUE_SECRET =
  "queue_credentials needs the QUEUE_SECRET secret to encrypt the credentials it keeps (npx wrangler secret put QUEUE_SECRET); without it such requests get 429";

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

const queuing = new WeakMap<CompiledRules, boolean>();

/**
 * Whether any limit of compiled `rules` has `on_limit: "queue"` (remembered per rules object).
 *
 * @example
 * if (!hasQueueLimits(rules)) return notFound(); // queueing is off
 */
export function hasQueueLimits(rules: CompiledRules): boolean {
  let found = queuing.get(rules);
  if (found === undefined) {
    found = [...rules.domains.values()].some((domain) => levelQueues(domain.root));
    queuing.set(rules, found);
  }
  return found;
}

function levelQueues(level: DescriptorLevel): boolean {
  const nodes = [...level.exact.values(), ...[...level.wildcards.values()].flat().map((w) => w.node), ...level.keyOnly.values()];
  if (level.ranges !== undefined) nodes.push(...level.ranges.values());
  return nodes.some((node) => node.limits.some((limit) => limit.onLimit === "queue") || levelQueues(node.children));
}
