/**
 * RATELIMIT_HEADERS through the real gateway (docs/headers.md): each dialect's
 * fields on an allowed request and on a 429, a key with two windows listed
 * most restrictive first, the quota-exceeded body, and the client library
 * reading every dialect but `none`. Sliding-log windows, so the figures are
 * exact: a hit made now frees its slot exactly one window from now.
 */
import { describe, expect, it } from "vitest";
import { quotaHint, serverWaitMs } from "../../src/client/headers.ts";
import type { Env } from "../../src/config.ts";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { expectQuietMisconfigured } from "../support/quiet-errors.ts";

const rules = {
  domain: "gw-dialects",
  descriptors: [
    {
      key: "remote_address",
      rate_limits: [
        { unit: "hour", requests_per_unit: 100, algorithm: "sliding_window_log", name: "per-hour" },
        { unit: "minute", requests_per_unit: 5, algorithm: "sliding_window_log", name: "per-minute" },
      ],
    },
  ],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
};

const RATE_LIMIT_FIELDS = ["ratelimit", "ratelimit-policy", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"];
const X_FIELDS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];

/** The rate-limit fields a response carries, by lower-case name. */
function rateLimitFields(res: Response): Record<string, string> {
  return Object.fromEntries([...res.headers].filter(([name]) => name.includes("ratelimit") || name === "retry-after"));
}

/** A fresh client's first request, and the 429 after it spends the per-minute quota. */
/**
 * One driven clock per test (docs/testing.md) for the gateway and the counter
 * objects, standing still: every wait a header gives is exact. Each test
 * starts an hour after the last, so a shared object's clock never goes back.
 */
const clock = { at: OBJECT_EPOCH };
const now = () => clock.at;

async function firstAndRefused(vars: Partial<Env>): Promise<{ first: Response; refused: Response }> {
  clock.at += 3_600_000;
  const call = gateway(rules, { COUNTERS: drivenCounters(testEnv.COUNTERS, now), ...vars }, { now });
  const ip = uniqueIp();
  const first = await call("/x", { ip });
  for (let i = 1; i < 5; i++) expect((await call("/x", { ip })).status).toBe(200);
  const refused = await call("/x", { ip });
  expect(first.status).toBe(200);
  expect(refused.status).toBe(429);
  return { first, refused };
}

const xRateLimit = { "x-ratelimit-limit": "5", "x-ratelimit-remaining": "4", "x-ratelimit-reset": "60" };

describe("RATELIMIT_HEADERS through the gateway", () => {
  it("draft-11 (the default) lists both windows of the key, the tighter first, with r and t", async () => {
    for (const vars of [{}, { RATELIMIT_HEADERS: "draft-11" }]) {
      const { first, refused } = await firstAndRefused(vars);
      expect(rateLimitFields(first)).toEqual({
        ...xRateLimit,
        "ratelimit-policy": '"per-minute";q=5;w=60, "per-hour";q=100;w=3600',
        ratelimit: '"per-minute";r=4;t=60, "per-hour";r=99;t=3600',
      });
      const fields = rateLimitFields(refused);
      expect(fields["ratelimit-policy"]).toBe('"per-minute";q=5;w=60, "per-hour";q=100;w=3600');
      // The oldest of the five hits (at the same instant: the clock stands still) frees the next slot a
      // minute later; the hour's t is its oldest hit's expiry.
      const retry = Number(fields["retry-after"]);
      expect(retry).toBe(60);
      expect(fields.ratelimit).toBe('"per-minute";r=0;t=60, "per-hour";r=95;t=3600');
      expect(fields["x-ratelimit-retry-after"]).toBe(String(retry));
      expect(quotaHint(first.headers, now())).toEqual({ remaining: 4, resetMs: 60_000 });
    }
  });

  it("answers 429 with draft-11's quota-exceeded problem naming the refusing policy", async () => {
    const { refused } = await firstAndRefused({});
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    const body = await refused.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      type: "https://iana.org/assignments/http-problem-types#quota-exceeded",
      status: 429,
      "violated-policies": ["per-minute"],
      retry_after: Number(refused.headers.get("Retry-After")),
    });
  });

  it("draft-7: one combined RateLimit and RateLimit-Policy for the tighter window", async () => {
    const { first, refused } = await firstAndRefused({ RATELIMIT_HEADERS: "draft-7" });
    expect(rateLimitFields(first)).toEqual({ ...xRateLimit, ratelimit: "limit=5, remaining=4, reset=60", "ratelimit-policy": "5;w=60" });
    const retry = refused.headers.get("Retry-After");
    expect(refused.headers.get("RateLimit")).toBe(`limit=5, remaining=0, reset=${retry}`);
    expect(quotaHint(first.headers, now())).toEqual({ remaining: 4, resetMs: 60_000 });
  });

  it("draft-6: RateLimit-Limit, -Remaining, -Reset and RateLimit-Policy", async () => {
    const { first, refused } = await firstAndRefused({ RATELIMIT_HEADERS: "draft-6" });
    expect(rateLimitFields(first)).toEqual({
      ...xRateLimit,
      "ratelimit-limit": "5",
      "ratelimit-remaining": "4",
      "ratelimit-reset": "60",
      "ratelimit-policy": "5;w=60",
    });
    expect(refused.headers.get("RateLimit-Reset")).toBe(refused.headers.get("Retry-After"));
    expect(quotaHint(first.headers, now())).toEqual({ remaining: 4, resetMs: 60_000 });
  });

  it("none: no rate-limit fields at all, Retry-After alone on the 429, which the client still honours", async () => {
    const { first, refused } = await firstAndRefused({ RATELIMIT_HEADERS: "none" });
    expect(rateLimitFields(first)).toEqual({});
    const fields = rateLimitFields(refused);
    expect(Object.keys(fields)).toEqual(["retry-after"]);
    for (const name of [...RATE_LIMIT_FIELDS, ...X_FIELDS]) expect(refused.headers.has(name)).toBe(false);
    expect(serverWaitMs(refused.headers, now())).toBe(Number(fields["retry-after"]) * 1000);
    expect((await refused.json<Record<string, unknown>>())["violated-policies"]).toEqual(["per-minute"]);
  });

  it("an unknown RATELIMIT_HEADERS is a 503 of the misconfigured type, the value and the reason only in the log", async () => {
    const call = gateway(rules, { RATELIMIT_HEADERS: "draft-8" });
    await expectQuietMisconfigured(() => call("/x", { ip: uniqueIp() }), "RATELIMIT_HEADERS", "draft-8");
  });
});
