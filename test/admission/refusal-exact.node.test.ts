/**
 * The refusals a client reads, exactly (docs/headers.md, "Refusals"): the
 * type, title, detail and retry of each 429 and 503 from
 * src/admission/refusal.ts, and the headers each carries. refusal.node.test.ts
 * holds their common shape and the source guard (it reads src/ as text, so
 * it stays out of the mutation run, which rewrites the sources).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FAILURE_CLOSED } from "../../src/admission/failure-policy.ts";
import {
  COUNTERS_UNREACHABLE_DETAIL,
  adminApiOff,
  countersUnreachable,
  decisionAnswer,
  misconfigured,
  queueUnavailable,
  refusal,
  tooManyAuthFailures,
} from "../../src/admission/refusal.ts";
import type { Decision } from "../../src/algorithms/types.ts";
import { summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome, RateLimitResult } from "../../src/limiter/types.ts";

function limited(extra: Partial<RateLimitResult> = {}): RateLimitResult {
  const decision: Decision = { allowed: false, limit: 10, remaining: 0, resetAfterMs: 2_500, retryAfterMs: 4_200, effectiveWindowMs: 1 };
  const outcome: PolicyOutcome = { domain: "d", descriptor: [{ key: "user", value: "u" }], name: "per-user", windowMs: 10_000, shadow: false, decision };
  return { ...summarize([outcome]), ...extra };
}

async function read(response: Response) {
  return {
    status: response.status,
    headers: Object.fromEntries(
      [...response.headers].filter(([name]) => !name.startsWith("ratelimit") && (!name.startsWith("x-ratelimit-") || name === "x-ratelimit-decision")),
    ),
    decision: response.headers.get("x-ratelimit-decision"),
    body: (await response.json()) as Record<string, unknown>,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("each refusal, exactly", () => {
  it("counters unreachable (FAILURE_MODE=closed): 503, retry in 1 s, marked failure-closed", async () => {
    const expected = {
      status: 503,
      headers: { "content-type": "application/problem+json", "retry-after": "1", "x-ratelimit-decision": "failure-closed" },
      decision: "failure-closed",
      body: {
        type: "urn:floodgate:counters-unreachable",
        title: "Service Unavailable",
        status: 503,
        detail: "The rate limiter could not reach its counters; try again shortly.",
        retry_after: 1,
      },
    };
    expect(COUNTERS_UNREACHABLE_DETAIL).toBe(expected.body.detail);
    expect(await read(countersUnreachable())).toEqual(expected);
    // A result refused by FAILURE_MODE=closed is that 503, not a 429, even when the isolate decided it.
    expect(await read(refusal(FAILURE_CLOSED, "draft-11"))).toEqual(expected);
    expect(await read(refusal({ ...FAILURE_CLOSED, decidedLocally: true }))).toEqual(expected);
  });

  it("the queue that could not take a request: 503, retry in 1 s, the local-decision header only when the isolate decided", async () => {
    const body = {
      type: "urn:floodgate:queue-unavailable",
      title: "Service Unavailable",
      status: 503,
      detail: "The request could not be queued; try again shortly.",
      retry_after: 1,
    };
    expect(await read(queueUnavailable(limited({ reason: "queued" })))).toEqual({
      status: 503,
      headers: { "content-type": "application/problem+json", "retry-after": "1" },
      decision: null,
      body,
    });
    expect(await read(queueUnavailable(limited({ reason: "queued", decidedLocally: true })))).toEqual({
      status: 503,
      headers: { "content-type": "application/problem+json", "retry-after": "1", "x-ratelimit-decision": "local" },
      decision: "local",
      body,
    });
  });

  it("a result's 429: marked local only when the isolate decided alone", async () => {
    expect((await read(refusal(limited(), "draft-11"))).decision).toBeNull();
    const local = await read(refusal(limited({ decidedLocally: true }), "draft-11"));
    expect([local.status, local.decision, local.headers["retry-after"], local.body.retry_after]).toEqual([429, "local", "5", 5]);
  });

  it("the admin authentication throttle: 429 about:blank naming the limit and the wait, no rate-limit headers", async () => {
    expect(await read(tooManyAuthFailures(17, 10))).toEqual({
      status: 429,
      headers: { "content-type": "application/problem+json", "retry-after": "17" },
      decision: null,
      body: {
        type: "about:blank",
        title: "Too Many Requests",
        status: 429,
        detail: "Too many failed authentications from this address (at most 10 a minute); retry in 17 s.",
        retry_after: 17,
      },
    });
  });

  it("the admin API off: 503 with the reason given, no retry", async () => {
    expect(await read(adminApiOff("ADMIN_TOKEN is shorter than 32 characters."))).toEqual({
      status: 503,
      headers: { "content-type": "application/problem+json" },
      decision: null,
      body: { type: "about:blank", title: "Service Unavailable", status: 503, detail: "ADMIN_TOKEN is shorter than 32 characters." },
    });
  });

  it("a misconfiguration: 503 that names no setting; the reason goes to the log", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(await read(misconfigured(new Error("RATE_LIMIT_RULES: not JSON")))).toEqual({
      status: 503,
      headers: { "content-type": "application/problem+json" },
      decision: null,
      body: {
        type: "urn:floodgate:misconfigured",
        title: "Service Unavailable",
        status: 503,
        detail: "floodgate is misconfigured; the operator can find the reason in the Worker's log.",
      },
    });
    misconfigured("a thrown string");
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      { event: "floodgate.misconfigured", error: "RATE_LIMIT_RULES: not JSON" },
      { event: "floodgate.misconfigured", error: "a thrown string" },
    ]);
  });

  it("/json: Envoy's body as JSON, 429 over the limit, 200 else, failure-open marked", async () => {
    expect(await read(decisionAnswer({ overallCode: "OK", statuses: [] }, false, false))).toEqual({
      status: 200,
      headers: { "content-type": "application/json" },
      decision: null,
      body: { overallCode: "OK", statuses: [] },
    });
    expect(await read(decisionAnswer({ overallCode: "OVER_LIMIT" }, true, true))).toEqual({
      status: 429,
      headers: { "content-type": "application/json", "x-ratelimit-decision": "failure-open" },
      decision: "failure-open",
      body: { overallCode: "OVER_LIMIT" },
    });
  });
});
