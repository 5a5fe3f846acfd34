/**
 * Quiet errors (docs/reliability.md, "Security"): floodgate's own 502 and 503
 * bodies carry a fixed problem type and message, never the error behind
 * them or a configuration value; those go to the Worker's log. Through the
 * real gateway: an origin that refuses connections, a route origin that
 * does not resolve, unreadable settings, and counters that throw.
 *
 * Each fails on the code before this change, whose bodies carried
 * `String(error)` and the ConfigError's text (tried).
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { PROBLEM_TYPES } from "../../src/http/problem.ts";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { throwingCounters } from "../support/failing.ts";

const rules = {
  domain: "security-errors",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1000 } }],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
};

interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
}

/** The body, checked to be exactly the fixed problem and to carry none of `secrets`. */
async function quietProblem(res: Response, status: number, type: string, secrets: readonly string[]): Promise<Problem> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const text = await res.text();
  for (const secret of secrets) expect(text, secret).not.toContain(secret);
  const body = JSON.parse(text) as Problem;
  expect(body.type).toBe(type);
  return body;
}

describe("502 and 503 bodies say what happened, not why", () => {
  it("an unreachable ORIGIN_URL: a fixed 502, without the address or the fetch error", async () => {
    const call = gateway(rules, { ORIGIN_URL: "http://127.0.0.1:9/internal-prefix" });
    const body = await quietProblem(await call("/x", { ip: uniqueIp() }), 502, PROBLEM_TYPES.originUnreachable, ["127.0.0.1", "internal-prefix", "rror"]);
    expect(body).toEqual({ type: PROBLEM_TYPES.originUnreachable, title: "Bad Gateway", status: 502, detail: "The origin could not be reached." });
  });

  it("an unreachable route origin (no ORIGIN_URL on a zone route): the same 502, without the host", async () => {
    const call = gateway(rules);
    const res = await call("/x", { ip: uniqueIp(), base: "https://no-such-host.floodgate-tests.example.com" });
    await quietProblem(res, 502, PROBLEM_TYPES.originUnreachable, ["no-such-host", "ORIGIN_URL", "rror"]);
  });

  it("settings that cannot be read: a fixed 503, without the setting's value", async () => {
    const cases: [Partial<Env>, string][] = [
      [{ ORIGIN_URL: "ftp://billing.internal.example" }, "billing.internal"],
      [{ FAILURE_MODE: "open-sesame" }, "open-sesame"],
      [{ DECISION_TIMEOUT_MS: "12ab" }, "12ab"],
      [{ QUEUE_SECRET: "short-secret" }, "short-secret"],
    ];
    const details = new Set<string>();
    for (const [vars, secret] of cases) {
      const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL, ...vars });
      details.add((await quietProblem(await call("/x", { ip: uniqueIp() }), 503, PROBLEM_TYPES.misconfigured, [secret])).detail);
    }
    // One fixed message, whatever is wrong.
    expect(details.size).toBe(1);
  });

  it("counters that throw, FAILURE_MODE=closed: a typed 503, without the object's error", async () => {
    const call = gateway(rules, { COUNTERS: throwingCounters, FAILURE_MODE: "closed" });
    const body = await quietProblem(await call("/x", { ip: uniqueIp() }), 503, PROBLEM_TYPES.countersUnreachable, ["exploded", "rror"]);
    expect(body.detail).toBe("The rate limiter could not reach its counters; try again shortly.");
  });
});
