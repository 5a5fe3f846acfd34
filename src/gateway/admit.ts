/**
 * The gateway's face of the admission pipeline, shared by its own request
 * path and the `rateLimit()` Hono middleware: the request becomes
 * descriptors, the pipeline decides, and the result becomes either an
 * answer to send at once (429, 202 queued, 400 or 411 for a request the
 * descriptors cannot be made of, 503 when FAILURE_MODE=closed refused it),
 * or an `Admitted` request to let through.
 */
import { type AdmissionOptions, admitThen, refusal, settleWithResponse } from "../admission/index.ts";
import type { SampleSource } from "../advisor/sampler.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import type { SlotLease } from "../stored/wire-calls.ts";
import type { Region } from "../durable/counters/regions.ts";
import type { Defer } from "../http/defer.ts";
import type { HeaderDialect } from "../http/header-dialect.ts";
import { canonicalPath, foldPathCase } from "../http/canonical-path.ts";
import { problem } from "../http/problem.ts";
import { urlParts } from "../http/url-parts.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import { enqueueRequest } from "../queue/enqueue.ts";
import { AmbiguousTokenError, type DomainClaims, mayCarryToken, readsClaims, requestClaims } from "../identity/claims.ts";
import { InvalidClientIpError } from "../request/client-ip.ts";
import { RequestCostError } from "../request/cost.ts";
import { claimDomains, DuplicateValueError, jsonBodyPaths, requestDescriptors } from "../request/descriptors.ts";
import { type JsonBody, JsonBodyError, readJsonBody } from "../request/json-body.ts";
import { requestRegion } from "../request/location.ts";
import { originMethod, originPath } from "../request/origin-view.ts";
import type { CompiledDomain, CompiledRules, DomainDescriptors } from "../rules/types.ts";
import { Admitted } from "./admitted.ts";
import { newSlotLease, SlotHold } from "./slots.ts";

/** An answer to send now, or the admitted request that goes on. */
export type Admission = { readonly response: Response; readonly result?: undefined } | Admitted;

/**
 * Map `request` to descriptors under `rules` and admit it. The 429 and 202
 * speak `dialect` (docs/headers.md): by default the `RATELIMIT_HEADERS` setting.
 *
 * @example
 * const admission = await admit(request, isolate, rules, (p) => ctx.waitUntil(p));
 * if (admission.response) return admission.response; // 429, 202, 400, 411 or 503
 * const headers = admission.headers(); // allowed (maybe delayed, maybe failure_open)
 * return admission.finish(await fetch(request), headers); // reconciled, labelled, slots followed
 */
export function admit(
  request: Request,
  isolate: Isolate<unknown>,
  rules: CompiledRules,
  defer: Defer,
  dialect: HeaderDialect = isolate.settings.headerDialect,
): Promise<Admission> {
  if (readsJsonBody(rules)) return withJsonBody(request, isolate, rules, defer, dialect);
  return withClaims(request, isolate, rules, defer, dialect, undefined);
}

function readsJsonBody(rules: CompiledRules): boolean {
  for (const domain of rules.domains.values()) if (domain.readsJsonBody === true) return true;
  return false;
}

// A route reading the JSON body (docs/llm.md): the body is read once, bounded, before the descriptors are made;
// the request that goes on carries the same bytes. Only a request a reading route matches is read.
async function withJsonBody(request: Request, isolate: Isolate<unknown>, rules: CompiledRules, defer: Defer, dialect: HeaderDialect): Promise<Admission> {
  let body: JsonBody | undefined;
  try {
    const paths = jsonBodyPaths(rules, request, isolate.settings);
    body = paths.length === 0 ? undefined : await readJsonBody(request, isolate.settings.maxJsonBodyBytes, paths);
  } catch (error) {
    if (error instanceof JsonBodyError) return { response: problem(error.status, error.status === 413 ? "Content Too Large" : "Bad Request", error.message) };
    return badRequest(error);
  }
  return withClaims(body?.request ?? request, isolate, rules, defer, dialect, body);
}

// A route keyed on a verified token's claim (docs/rules.md, "Verified identity (jwt)"): the token is verified first,
// only for the domains whose matched route reads one.
function withClaims(
  request: Request,
  isolate: Isolate<unknown>,
  rules: CompiledRules,
  defer: Defer,
  dialect: HeaderDialect,
  body: JsonBody | undefined,
): Promise<Admission> {
  if (readsClaims(rules) && mayCarryToken(rules, request.headers)) {
    let domains: CompiledDomain[];
    try {
      domains = claimDomains(rules, request, isolate.settings);
    } catch (error) {
      return Promise.resolve(badRequest(error));
    }
    if (domains.length > 0)
      return requestClaims(rules, request, isolate.secrets, isolate.now(), domains).then(
        (claims) => admitAs(request, isolate, rules, defer, dialect, claims, body),
        (error: unknown) => badRequest(error),
      );
  }
  return admitAs(request, isolate, rules, defer, dialect, undefined, body);
}

// A request the descriptors (or the token) cannot be read of unambiguously: 400, 411; anything else is a bug, thrown on.
function badRequest(error: unknown): Admission {
  if (error instanceof InvalidClientIpError || error instanceof DuplicateValueError || error instanceof AmbiguousTokenError)
    return { response: problem(400, "Bad Request", error.message) };
  if (error instanceof RequestCostError) return { response: problem(error.status, error.status === 411 ? "Length Required" : "Bad Request", error.message) };
  throw error;
}

function admitAs(
  request: Request,
  isolate: Isolate<unknown>,
  rules: CompiledRules,
  defer: Defer,
  dialect: HeaderDialect,
  claims: DomainClaims | undefined,
  body?: JsonBody,
): Promise<Admission> {
  let descriptors: DomainDescriptors[];
  try {
    const settings = claims === undefined ? isolate.settings : { ...isolate.settings, claims };
    descriptors = requestDescriptors(rules, request, body === undefined ? settings : { ...settings, jsonBody: body.document });
  } catch (error) {
    return Promise.resolve(badRequest(error));
  }
  const admission = new GatewayAdmission(isolate, request, defer, dialect, descriptors);
  if (body !== undefined) admission.forwarded = body.request;
  return admitThen(isolate, descriptors, admission, defer, answer);
}

/** The gateway's output of the pipeline's one result. */
function answer(result: RateLimitResult, admission: GatewayAdmission): Admission | Promise<Admission> {
  if (result.reason === "failure_closed") return { response: refusal(result) };
  const { isolate, defer } = admission;
  const slots = SlotHold.of(isolate.edge, result, defer);
  if (result.allowed && result.reason !== "queued") return new Admitted(result, slots, isolate, defer, admission.dialect, admission.forwarded);
  // Refused by another limit: slots taken on the way are not needed, and hits of count_when limits that
  // allowed were taken for a response that will not come now.
  slots?.release();
  settleWithResponse(isolate, result, undefined, defer);
  if (result.reason === "queued") return queued(admission, result);
  return { response: refusal(result, admission.dialect) };
}

async function queued(admission: GatewayAdmission, result: RateLimitResult): Promise<Admission> {
  return { response: await enqueueRequest(admission.isolate, admission.request, result, admission.dialect) };
}

/**
 * The gateway's admission options: `on_limit` honoured, and the slot and
 * region made only when a limit reads them (a concurrency limit, a
 * regional one): a lease id, and `request.cf` turned into an object, would
 * otherwise cost every request. A class, so a request allocates one object
 * and no getter closures.
 */
class GatewayAdmission implements AdmissionOptions, SampleSource {
  readonly onLimit = true;
  readonly timeoutMs: number;
  readonly shadowAll: boolean;
  readonly defer: Defer;
  readonly isolate: Isolate<unknown>;
  readonly request: Request;
  readonly dialect: HeaderDialect;
  readonly domains: readonly DomainDescriptors[];
  /** The request to send on in place of the one given, when its JSON body was read (the same bytes). */
  forwarded: Request | undefined;
  private lease: SlotLease | undefined;
  private arrivedIn: Region | undefined;

  constructor(isolate: Isolate<unknown>, request: Request, defer: Defer, dialect: HeaderDialect, domains: readonly DomainDescriptors[]) {
    this.timeoutMs = isolate.settings.decisionTimeoutMs;
    this.shadowAll = isolate.settings.shadowMode;
    this.defer = defer;
    this.isolate = isolate;
    this.request = request;
    this.dialect = dialect;
    this.domains = domains;
  }

  /** The decision offered to the traffic sample: its own outcomes, nothing decided again (docs/advisor.md, "Sample"). */
  recordSample(result: RateLimitResult): void {
    this.isolate.metrics.sampler?.record(result, this);
  }

  /** `METHOD path` as `domain`'s routes read the request; made only for a sampled request. */
  route(domain: CompiledDomain): string {
    const { methodOverride, encodedSlashes } = this.isolate.settings;
    const canonical = originPath(canonicalPath(urlParts(this.request.url).path), encodedSlashes);
    const method = originMethod(this.request.method, methodOverride === "count" ? this.request.headers : new Headers(), methodOverride);
    return `${method} ${domain.paths.caseSensitive ? canonical : foldPathCase(canonical)}`;
  }

  get slot(): SlotLease {
    return (this.lease ??= newSlotLease());
  }

  get region(): Region {
    return (this.arrivedIn ??= requestRegion(this.request));
  }

  where(): Record<string, string> {
    return { path: new URL(this.request.url).pathname };
  }
}
