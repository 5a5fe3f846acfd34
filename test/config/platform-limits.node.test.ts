/**
 * Settings held to the platform's limits: QUEUE_MAX_ATTEMPTS to the queue
 * consumer's `max_retries` (wrangler.toml, which test/cli/deploy.test.mjs
 * holds to QUEUE_CONSUMERS), COUNTERS_JURISDICTION to the jurisdictions
 * Durable Objects know. Each refusal is a ConfigError that says why.
 */
import { describe, expect, it } from "vitest";
import { COUNTERS_JURISDICTIONS, ConfigError, countersIn, type Env, QUEUE_CONSUMER_MAX_RETRIES, readSettings, SETTINGS } from "../../src/config.ts";
import { QUEUE_CONSUMERS } from "../support/queue-bindings.ts";

const env = (vars: Partial<Env>) => ({ ...vars }) as Env;
const refusal = (vars: Partial<Env>) => {
  try {
    readSettings(env(vars));
  } catch (error) {
    return error instanceof ConfigError ? error.message : `not a ConfigError: ${String(error)}`;
  }
  return "accepted";
};

describe("QUEUE_MAX_ATTEMPTS", () => {
  it("is at most the consumer's max_retries in wrangler.toml, so floodgate, not Queues, dead-letters with the failure", () => {
    expect(QUEUE_CONSUMERS["floodgate-queued"].maxRetries).toBe(QUEUE_CONSUMER_MAX_RETRIES);
    expect(SETTINGS.queueMaxAttempts.range).toEqual([1, QUEUE_CONSUMER_MAX_RETRIES]);
    expect(readSettings(env({ QUEUE_MAX_ATTEMPTS: "10" })).queueMaxAttempts).toBe(10);
    expect(refusal({ QUEUE_MAX_ATTEMPTS: "11" })).toBe(
      `QUEUE_MAX_ATTEMPTS must be a whole number from 1 to 10, got "11" (at most the queue consumer's max_retries (10 in wrangler.toml), past which Cloudflare Queues dead-letters a message itself, without its failure)`,
    );
    expect(refusal({ QUEUE_MAX_ATTEMPTS: "100" })).toMatch(/^QUEUE_MAX_ATTEMPTS must be a whole number from 1 to 10, got "100"/);
  });
});

describe("COUNTERS_JURISDICTION", () => {
  it("takes a known jurisdiction in any case, none when unset or empty", () => {
    expect(COUNTERS_JURISDICTIONS).toEqual(["eu", "fedramp", "fedramp-high", "us"]);
    expect(readSettings(env({ COUNTERS_JURISDICTION: " EU " })).countersJurisdiction).toBe("eu");
    expect(readSettings(env({ COUNTERS_JURISDICTION: "fedramp-high" })).countersJurisdiction).toBe("fedramp-high");
    expect(readSettings(env({})).countersJurisdiction).toBeUndefined();
    expect(readSettings(env({ COUNTERS_JURISDICTION: "" })).countersJurisdiction).toBeUndefined();
  });

  it("refuses anything else, naming what it takes", () => {
    expect(refusal({ COUNTERS_JURISDICTION: "europe" })).toBe('COUNTERS_JURISDICTION must be one of "eu", "fedramp", "fedramp-high", "us", got "europe"');
  });

  it("places the counters with namespace.jurisdiction(), and leaves the namespace as it is without one", () => {
    const asked: string[] = [];
    const counters = {
      jurisdiction: (j: string) => {
        asked.push(j);
        return "restricted";
      },
    } as unknown as Env["COUNTERS"];
    expect(countersIn(counters, { countersJurisdiction: "eu" })).toBe("restricted");
    expect(countersIn(counters, {})).toBe(counters);
    expect(asked).toEqual(["eu"]);
    const none = {
      jurisdiction: () => {
        throw new Error("Jurisdiction restrictions are not implemented in workerd.");
      },
    } as unknown as Env["COUNTERS"];
    expect(() => countersIn(none, { countersJurisdiction: "us" })).toThrow(ConfigError);
  });
});
