/**
 * The queue options of a rate limit (docs/rules.md): their defaults, their
 * bounds, and that they belong to `on_limit: "queue"` only; the schema agrees.
 */
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { QUEUE_OPTION_BOUNDS } from "../../src/rules/queue-options.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const limited = (rateLimit: Record<string, unknown>) => ({
  domain: "t",
  descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1, ...rateLimit } }],
});
const RL = "$.descriptors[0].rate_limit";
const limitOf = (rateLimit: Record<string, unknown>) => domainOf(limited(rateLimit)).root.keyOnly.get("k")?.limits[0];

describe("max_queue_age_s, max_queue_backlog, queue_credentials", () => {
  it("default to an hour, 100 and off on a queue limit", () => {
    expect(limitOf({ on_limit: "queue" })).toMatchObject({ maxQueueAgeMs: 3_600_000, maxQueueBacklog: 100 });
    expect(limitOf({ on_limit: "queue" })?.queueCredentials).toBeUndefined();
    expect(QUEUE_OPTION_BOUNDS.maxAgeSeconds.default).toBe(3600);
    expect(QUEUE_OPTION_BOUNDS.maxBacklog.default).toBe(100);
  });

  it("compile when given", () => {
    const limit = limitOf({ on_limit: "queue", max_queue_age_s: 60, max_queue_backlog: 5, queue_credentials: true });
    expect(limit).toMatchObject({ maxQueueAgeMs: 60_000, maxQueueBacklog: 5, queueCredentials: true });
    expect(validates(schema, limited({ on_limit: "queue", max_queue_age_s: 60, max_queue_backlog: 5, queue_credentials: true }))).toBe(true);
  });

  it("are refused, each with its path, on a limit that does not queue", () => {
    for (const onLimit of [{}, { on_limit: "reject" }]) {
      const errors = errorsOf(limited({ ...onLimit, max_queue_age_s: 60, max_queue_backlog: 5, queue_credentials: true }));
      expect(errors.map((e) => e.path)).toEqual([`${RL}.max_queue_age_s`, `${RL}.max_queue_backlog`, `${RL}.queue_credentials`]);
      expect(errors[0].message).toBe('"max_queue_age_s" is only used when "on_limit" is "queue"');
      expect(validates(schema, limited({ ...onLimit, max_queue_age_s: 60 }))).toBe(false);
    }
  });

  it("are refused out of bounds or of the wrong type", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ max_queue_age_s: 0 }, "max_queue_age_s"],
      [{ max_queue_age_s: 86_401 }, "max_queue_age_s"],
      [{ max_queue_backlog: 0 }, "max_queue_backlog"],
      [{ max_queue_backlog: 10_001 }, "max_queue_backlog"],
      [{ queue_credentials: "yes" }, "queue_credentials"],
    ];
    for (const [given, key] of cases) {
      expect(errorsOf(limited({ on_limit: "queue", ...given })).map((e) => e.path)).toEqual([`${RL}.${key}`]);
      expect(validates(schema, limited({ on_limit: "queue", ...given })), JSON.stringify(given)).toBe(false);
    }
  });
});
