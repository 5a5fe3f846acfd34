/**
 * The rate limiter's verdict on one HTTP request, shared by the gateway's
 * own request path and the `rateLimit()` Hono middleware: either an answer
 * to send at once (429, 202 queued, 400 for a bad client IP, 503 when the
 * counters are unreachable and FAILURE_MODE is closed), or the decision
 * with which to let the request through.
 */
import { countersUnreachable } from "../context/failure-mode.ts";
import type { Isolate } from "../context/isolate.ts";
import { CounterUnavailableError, type DecideOptions, decide } from "../limiter/decide.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import type { SlotLease } from "../durable/protocol.ts";
import type { Region } from "../durable/regions.ts";
import { InvalidClientIpError } from "../request/client-ip.ts";
import { RequestCostError } from "../request/cost.ts";
import { DuplicateValueError, requestDescriptors } from "../request/descriptors.ts";
import { requestRegion } from "../request/location.ts";
import { settleAfterResponse } from "../limiter/settle.ts";
import { enqueueRequest } from "../queue/enqueue.ts";
import type { CompiledRules } from "../rules/types.ts";
import type { Defer } from "../http/defer.ts";
import { DECISION_HEADER } from "../http/headers.ts";
import { DEFAULT_HEADER_DIALECT, type HeaderDialect } from "../http/header-dialect.ts";
import { PROBLEM_TYPES, problem } from "../http/problem.ts";
import { rateLimitHeaders, tooManyRequests } from "../limiter/respond.ts";
import { newSlotLease, SlotHold } from "./slots.ts";

/** An answer to send now, or the decision under which the request goes on. */
export type Admission =
  | { readonly response: Response; readonly result?: undefined }
  | {
      readonly response?: undefined;
      readonly result: RateLimitResult;
      /** Concurrency slots the request holds (docs/concurrency.md): the caller frees them when its response ends. */
      readonly slots?: SlotHold;
    };

/**
 * Map `request` to descriptors under `rules`, decide them, and record the
 * outcome in metrics. The 429 and 202 speak `dialect` (docs/headers.md):
 * by default the `RATELIMIT_HEADERS` setting.
 *
 * @example
 * const admission = await admit(request, isolate, rules, (p) => ctx.waitUntil(p));
 * if (admission.response) return admission.response; // 429, 202, 400 or 503
 * const result = admission.result; // allowed (maybe delayed, maybe failure_open)
 * return admission.slots ? admission.slots.follow(response) : response; // concurrency slots freed when its body ends
 */
export async function admit(
  request: Request,
  isolate: Isolate<unknown>,
  rules: CompiledRules,
  defer: Defer,
  dialect: HeaderDialect = isolate.settings.headerDialect,
): Promise<Admission> {
  const settings = isolate.settings;
  let result: RateLimitResult;
  try {
    const descriptors = requestDescriptors(rules, request, settings);
    result = await decide(isolate.edge, descriptors, new GatewayDecision(settings.decisionTimeoutMs, settings.shadowMode, defer, request));
  } catch (error) {
    if (error instanceof InvalidClientIpError || error instanceof DuplicateValueError) return { response: problem(400, "Bad Request", error.message) };
    if (error instanceof RequestCostError) return { response: problem(error.status, error.status === 411 ? "Length Required" : "Bad Request", error.message) };
    if (!(error instanceof CounterUnavailableError)) throw error;
    const mode = countersUnreachable(isolate, error, { path: new URL(request.url).pathname });
    isolate.metrics.scheduleFlush(defer);
    if (mode === "closed") {
      return {
        response: problem(
          503,
          "Service Unavailable",
          "The rate limiter could not reach its counters; try again shortly.",
          { type: PROBLEM_TYPES.countersUnreachable, retry_after: 1 },
          { "Retry-After": "1", [DECISION_HEADER]: "failure-closed" },
        ),
      };
    }
    result = { allowed: true, reason: "failure_open", limit: 0, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, policies: [] };
  }
  if (result.descriptors !== undefined) {
    isolate.metrics.recordOutcomes(result.descriptors);
    if (result.reason === "shadow") isolate.metrics.recordGlobalShadow();
    isolate.metrics.scheduleFlush(defer);
  }
  const slots = SlotHold.of(isolate.edge, result, defer);
  if (result.reason === "queued" || !result.allowed) {
    // Refused by another limit: slots taken on the way are not needed, and hits of count_when limits that
    // allowed were taken for a response that will not come now.
    slots?.release();
    settleAfterResponse(isolate.edge, result, undefined, defer);
    if (result.reason === "queued") return { response: await enqueueRequest(isolate, request, result, dialect) };
    return { response: tooManyRequests(result, dialect) };
  }
  return slots === undefined ? { result } : { result, slots };
}

/**
 * The gateway's decision options: `on_limit` honoured, and the slot and
 * region made only when a limit reads them (a concurrency limit, a
 * regional one): a lease id, and `request.cf` turned into an object, would
 * otherwise cost every request. A class, so a request allocates one object
 * and no getter closures.
 */
class GatewayDecision implements DecideOptions {
  readonly onLimit = true;
  readonly timeoutMs: number;
  readonly shadowAll: boolean;
  readonly defer: Defer;
  private readonly request: Request;
  private lease: SlotLease | undefined;
  private arrivedIn: Region | undefined;

  constructor(timeoutMs: number, shadowAll: boolean, defer: Defer, request: Request) {
    this.timeoutMs = timeoutMs;
    this.shadowAll = shadowAll;
    this.defer = defer;
    this.request = request;
  }

  get slot(): SlotLease {
    return (this.lease ??= newSlotLease());
  }

  get region(): Region {
    return (this.arrivedIn ??= requestRegion(this.request));
  }
}

/**
 * Headers an admitted request's response carries: the rate-limit ones in
 * `dialect`, and `X-RateLimit-Decision: failure-open` when the counters
 * could not be asked.
 *
 * @example
 * withHeaders(response, admittedHeaders(result, isolate.settings.headerDialect));
 */
export function admittedHeaders(result: RateLimitResult, dialect: HeaderDialect = DEFAULT_HEADER_DIALECT): [string, string][] {
  const headers = rateLimitHeaders(result, dialect);
  if (result.reason === "failure_open") headers.push([DECISION_HEADER, "failure-open"]);
  return headers;
}
