/**
 * hasQueueLimits at every kind of descriptor level (exact value, key only,
 * glob, address range, nested, a later domain, a later limit),
 * queueCredentialPaths by JSON path, and missingQueueMessage's sentence:
 * the admin API and `rules:check` reach these only through workerd, so the
 * mutation run had no plain test of them.
 * Breaks tried, each failing a test here: hasQueueLimits looking at the first
 * domain only, levelQueues skipping ranges, queueCredentialPaths taking
 * `"true"` as true.
 */
import { describe, expect, it } from "vitest";
import { compileRules } from "../../src/rules/index.ts";
import { hasQueueLimits, missingQueueMessage, QUEUE_BINDING, queueCredentialPaths } from "../../src/rules/queue-limits.ts";

const limit = (onLimit?: string) => ({ unit: "second", requests_per_unit: 5, ...(onLimit === undefined ? {} : { on_limit: onLimit }) });

function compiled(doc: unknown) {
  const result = compileRules(doc);
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result.rules;
}

/** One domain whose descriptors are a plain limit beside `queued` (which holds the queue limit). */
const withQueued = (queued: Record<string, unknown>) => compiled({ domain: "d", descriptors: [{ key: "plain", value: "x", rate_limit: limit() }, queued] });

describe("hasQueueLimits", () => {
  it("is false with no queue limit anywhere, rejecting and delaying ones included", () => {
    const rules = compiled({
      domain: "d",
      descriptors: [
        { key: "a", value: "x", rate_limits: [limit("reject"), { ...limit("delay"), algorithm: "gcra", max_delay_ms: 100 }] },
        { key: "b", rate_limit: limit(), descriptors: [{ key: "c", value: "y*", rate_limit: limit() }] },
      ],
    });
    expect(hasQueueLimits(rules)).toBe(false);
    expect(hasQueueLimits(rules)).toBe(false);
  });

  it.each([
    ["an exact value", { key: "a", value: "q", rate_limit: limit("queue") }],
    ["a key only", { key: "a", rate_limit: limit("queue") }],
    ["a glob", { key: "a", value: "q*", rate_limit: limit("queue") }],
    ["an address range", { key: "remote_address", value: "10.0.0.0/8", rate_limit: limit("queue") }],
    ["a later limit of a list", { key: "a", value: "q", rate_limits: [limit(), { ...limit("queue"), unit: "minute" }] }],
    ["a nested descriptor", { key: "a", value: "q", descriptors: [{ key: "b", rate_limit: limit("queue") }] }],
  ])("finds a queue limit on %s", (_what, queued) => {
    expect(hasQueueLimits(withQueued(queued))).toBe(true);
  });

  it("finds a queue limit in a later domain", () => {
    const rules = compiled([
      { domain: "first", descriptors: [{ key: "a", rate_limit: limit() }] },
      { domain: "second", descriptors: [{ key: "a", rate_limit: limit("queue") }] },
    ]);
    expect(hasQueueLimits(rules)).toBe(true);
  });
});

describe("queueCredentialPaths", () => {
  it("lists every queue_credentials that is true, by JSON path in file order, and nothing else", () => {
    const doc = [
      { domain: "d", descriptors: [{ key: "a", rate_limit: { queue_credentials: true }, descriptors: [{ rate_limit: { queue_credentials: "true" } }] }] },
      { domain: "e", descriptors: [{ key: "b", rate_limits: [{ queue_credentials: false }, { queue_credentials: true, other: true }] }] },
    ];
    expect(queueCredentialPaths(doc)).toEqual(["$[0].descriptors[0].rate_limit.queue_credentials", "$[1].descriptors[0].rate_limits[1].queue_credentials"]);
    expect(queueCredentialPaths({ queue_credentials: true })).toEqual(["$.queue_credentials"]);
    expect(queueCredentialPaths(null)).toEqual([]);
  });
});

describe("missingQueueMessage", () => {
  it("names the binding, the config file and both queues to create", () => {
    expect(QUEUE_BINDING).toBe("QUEUE");
    expect(missingQueueMessage("wrangler.jsonc")).toBe(
      'on_limit "queue" needs the QUEUE queue binding, which wrangler.jsonc does not have: ' +
        'uncomment the on_limit "queue" block in wrangler.toml and create the two queues ' +
        "(npx wrangler queues create floodgate-queued && npx wrangler queues create floodgate-dead-letters), " +
        "or use another on_limit",
    );
  });
});
