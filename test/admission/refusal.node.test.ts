/// <reference types="vite/client" />
/**
 * Every 429 and 503 floodgate sends comes from src/admission/refusal.ts, in
 * one shape (docs/headers.md, "Refusals"): problem+json with type, title,
 * status and detail; a refusal the client may retry has Retry-After and
 * `retry_after` (the same seconds), and one the isolate decided alone
 * `X-RateLimit-Decision: local`. The source guard holds src/ to it: no
 * other module writes a 429 or 503 status.
 */
import { describe, expect, it, vi } from "vitest";
import {
  adminApiOff,
  countersUnreachable,
  decisionAnswer,
  misconfigured,
  queueUnavailable,
  refusal,
  tooManyAuthFailures,
} from "../../src/admission/refusal.ts";
import { FAILURE_CLOSED } from "../../src/admission/failure-policy.ts";
import type { Decision } from "../../src/algorithms/types.ts";
import { summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome, RateLimitResult } from "../../src/limiter/types.ts";

function limited(extra: Partial<RateLimitResult> = {}): RateLimitResult {
  const decision: Decision = { allowed: false, limit: 10, remaining: 0, resetAfterMs: 2_500, retryAfterMs: 4_200, effectiveWindowMs: 1 };
  const outcome: PolicyOutcome = { domain: "d", descriptor: [{ key: "user", value: "u" }], name: "per-user", windowMs: 10_000, shadow: false, decision };
  return { ...summarize([outcome]), ...extra };
}

async function shape(response: Response) {
  const body = await response.json<Record<string, unknown>>();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    retryAfter: response.headers.get("Retry-After"),
    decision: response.headers.get("X-RateLimit-Decision"),
    body: { type: typeof body.type, title: typeof body.title, status: body.status, detail: typeof body.detail, retry_after: body.retry_after },
  };
}

const retried = (status: number, seconds: number, decision: string | null, type = "string") => ({
  status,
  contentType: "application/problem+json",
  retryAfter: String(seconds),
  decision,
  body: { type, title: "string", status, detail: "string", retry_after: seconds },
});

describe("one shape for every refusal", () => {
  it("the 429 of a result, and of one the isolate decided alone", async () => {
    expect(await shape(refusal(limited(), "draft-11"))).toEqual(retried(429, 5, null));
    expect(await shape(refusal(limited({ decidedLocally: true }), "none"))).toEqual(retried(429, 5, "local"));
  });

  it("the 503s the client may retry: counters unreachable (FAILURE_MODE=closed), a queue that refused the request", async () => {
    expect(await shape(refusal(FAILURE_CLOSED))).toEqual(retried(503, 1, "failure-closed"));
    expect(await shape(countersUnreachable())).toEqual(retried(503, 1, "failure-closed"));
    expect(await shape(queueUnavailable(limited({ reason: "queued" })))).toEqual(retried(503, 1, null));
    // The queue's 503 used to skip the local-decision header every other refusal carries.
    expect(await shape(queueUnavailable(limited({ reason: "queued", decidedLocally: true })))).toEqual(retried(503, 1, "local"));
  });

  it("the admin authentication throttle's 429", async () => {
    expect(await shape(tooManyAuthFailures(17, 10))).toEqual(retried(429, 17, null));
  });

  it("the configuration 503s: no retry helps until the operator acts, so no Retry-After", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const off = { status: 503, contentType: "application/problem+json", retryAfter: null, decision: null };
    expect(await shape(misconfigured(new Error("X must be Y")))).toEqual({
      ...off,
      body: { type: "string", title: "string", status: 503, detail: "string", retry_after: undefined },
    });
    expect(await shape(adminApiOff("The admin endpoints are off"))).toEqual({
      ...off,
      body: { type: "string", title: "string", status: 503, detail: "string", retry_after: undefined },
    });
    vi.restoreAllMocks();
  });

  it("/json: Envoy's body, 429 when OVER_LIMIT, marked when FAILURE_MODE=open answered", async () => {
    const over = decisionAnswer({ overallCode: "OVER_LIMIT" }, true, false);
    expect([over.status, over.headers.get("X-RateLimit-Decision"), await over.json()]).toEqual([429, null, { overallCode: "OVER_LIMIT" }]);
    const open = decisionAnswer({ overallCode: "OK" }, false, true);
    expect([open.status, open.headers.get("X-RateLimit-Decision")]).toEqual([200, "failure-open"]);
  });
});

// src/ as text (Vite's glob), comments left out: where a 429 or 503 status is written.
const sources = import.meta.glob<string>("../../src/**/*.ts", { query: "?raw", import: "default", eager: true });
const RENDERERS = new Set(["../../src/admission/refusal.ts", "../../src/admission/quota-exceeded.ts"]);

describe("no other module renders a 429 or 503", () => {
  it("src/ writes a 429 or 503 status only in refusal.ts and the 429 body it builds on", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    const writers: string[] = [];
    for (const [path, text] of Object.entries(sources)) {
      if (RENDERERS.has(path)) continue;
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      if (/status:\s*(429|503)\b|problem\(\s*(429|503)\b|\?\s*(429|503)\s*:|new Response\([^)]*\b(429|503)\b/.test(code)) writers.push(path);
    }
    expect(writers).toEqual([]);
  });
});
