/**
 * The producer side of `on_limit: "queue"`: a request over only queue
 * limits is serialized onto the queue and answered `202 Accepted` with the
 * `Location` of its status. Its status object is created before the send,
 * so a consumer that is quick never finds it missing. A Worker without the
 * queue bindings (the default wrangler.toml leaves them out), or on a zone
 * route without ORIGIN_URL (a delivery would come back through the route),
 * answers such a request as any other over its limit: 429. So does a key
 * whose backlog is full (`max_queue_backlog`). Credential headers are
 * dropped, or sealed when the limits opt in (docs/on-limit.md).
 */
import { RESERVABLE } from "../algorithms/index.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { counterKey } from "../durable/counters/placement.ts";
import { BodyTooLargeError, readBodyBytes } from "../http/body.ts";
import { forwardHeaders, upstreamUrl } from "../http/forward.ts";
import type { HeaderDialect } from "../http/header-dialect.ts";
import { hasRouteOrigin } from "../http/origin-host.ts";
import { queueUnavailable, rateLimitHeaders, refusal } from "../admission/index.ts";
import { problem } from "../http/problem.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import { messageBytes, QUEUE_MAX_BODY_BYTES, QUEUE_MAX_MESSAGE_BYTES, toBase64, type PaceTarget, type QueuedMessage } from "./message.ts";
import { ownerHash } from "./owner.ts";
import { backlogName, claimBacklog, releaseBacklog } from "./backlog.ts";
import { sealCredentials, splitCredentials } from "./credentials.ts";
import { counterOf, queuePolicy } from "./policy.ts";

/** Path prefix of the status endpoint (`Location` of a queued request). */
export const QUEUED_PATH = "/__ratelimit/queued/";

/**
 * Queue `request`, which `result` (reason `queued`) put over its queue
 * limits; answers 202 with the rate-limit headers in `dialect`, or 413
 * for a body over `QUEUE_MAX_BODY_BYTES` or a message over
 * `QUEUE_MAX_MESSAGE_BYTES`, or a plain 429 when it cannot be
 * queued (a binding or ORIGIN_URL missing).
 *
 * @example
 * if (result.reason === "queued") return enqueueRequest(isolate, request, result, "draft-11");
 */
export async function enqueueRequest(isolate: Isolate<unknown>, request: Request, result: RateLimitResult, dialect?: HeaderDialect): Promise<Response> {
  const { QUEUE: queue, QUEUED: statuses } = isolate.env;
  const url = new URL(request.url);
  const origin = isolate.settings.originUrl;
  if (queue === undefined || statuses === undefined) {
    const missing = queue === undefined ? "QUEUE" : "QUEUED";
    return notQueued(result, `on_limit "queue" needs the ${missing} binding (see the on_limit "queue" block in wrangler.toml)`, dialect);
  }
  // The consumer would have to fetch the request's own URL, which leads back through this Worker's route.
  if (origin === undefined && hasRouteOrigin(url.hostname)) return notQueued(result, 'on_limit "queue" on a zone route needs ORIGIN_URL', dialect);
  let body: Uint8Array;
  try {
    body = await readBodyBytes(request, QUEUE_MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    return tooLarge(`A request queued for later delivery may have a body of at most ${QUEUE_MAX_BODY_BYTES} bytes.`);
  }
  const id = crypto.randomUUID();
  const policy = queuePolicy(result);
  const queuing = policy.outcomes.map(counterOf);
  const secret = isolate.settings.queueSecret;
  const { kept, credentials } = splitCredentials(forwardHeaders(request.headers));
  if (policy.keepCredentials && credentials.length > 0 && secret === undefined) {
    return notQueued(result, "queue_credentials needs the QUEUE_SECRET secret to encrypt them (docs/deploy.md)", dialect);
  }
  const queuedAt = Date.now();
  const places = await Promise.all(queuing.map(async (target, i) => [await backlogName(target), policy.caps[i]] as const));
  const message: QueuedMessage = {
    v: 1,
    id,
    queuedAt,
    request: {
      method: request.method,
      path: url.pathname + url.search,
      target: origin ? upstreamUrl(origin, url).href : null,
      headers: kept,
      body: body.byteLength > 0 ? toBase64(body) : null,
    },
    pace: queuing.map(paceTarget),
    expiresAt: queuedAt + policy.maxAgeMs,
    backlog: places.map(([name]) => name),
    ...(policy.keepCredentials && credentials.length > 0 && secret !== undefined ? { credentials: await sealCredentials(secret, credentials, id) } : {}),
  };
  const size = messageBytes(message);
  if (size > QUEUE_MAX_MESSAGE_BYTES) return tooLargeMessage(size);
  // A place in the key's backlog (docs/on-limit.md, "Bounds"): a full one is refused like any request over its limit.
  let placed: boolean;
  try {
    placed = await claimBacklog(isolate.env, places, id, queuedAt + policy.maxAgeMs);
  } catch (error) {
    console.error(JSON.stringify({ event: "floodgate.queue.backlog_failed", id, error: String(error) }));
    return queueUnavailable(result);
  }
  if (!placed) return refusal({ ...result, reason: "limited" }, dialect);
  // The client's own descriptor values, not the counter's (a share_threshold counter is shared by a whole range).
  const owner = await Promise.all(policy.outcomes.map((outcome) => ownerHash(counterKey(outcome.domain, outcome.descriptor))));
  const status = statuses.getByName(id);
  try {
    await status.create({ id, state: "queued", method: request.method, path: url.pathname, owner, queuedAt, attempts: 0 });
    await queue.send(message, { contentType: "json" });
  } catch (error) {
    // Nothing was consumed for it, so the client may simply try again, unless the queue refused its size.
    console.error(JSON.stringify({ event: "floodgate.queue.send_failed", id, error: String(error) }));
    await status.discard().catch(() => undefined);
    await releaseBacklog(isolate.env, message.backlog ?? [], id).catch(() => undefined);
    return SIZE_REFUSED.test(String(error)) ? tooLargeMessage(size) : queueUnavailable(result);
  }
  const location = QUEUED_PATH + id;
  const response = Response.json({ id, state: "queued", location }, { status: 202, headers: { Location: location, "Cache-Control": "no-store" } });
  for (const [name, value] of rateLimitHeaders(result, dialect)) response.headers.set(name, value);
  return response;
}

/** Every window of the counter, the bucket ones reservable (so deliveries get exact slots). */
function paceTarget({ object, call }: PaceTarget): PaceTarget {
  const limits = call.limits.map((limit) => ({ ...limit, reserve: RESERVABLE.has(limit.algorithm) }));
  return { object, call: { key: call.key, limits, cost: call.cost } };
}

/**
 * Nowhere to queue: refused like any request over its limit, and said in
 * the Worker's log (rules:check and PUT /__ratelimit/rules refuse such rules,
 * so only a config changed under running rules gets here).
 */
function notQueued(result: RateLimitResult, why: string, dialect: HeaderDialect | undefined): Response {
  console.warn(JSON.stringify({ event: "floodgate.queue.unavailable", message: `${why}: requests over queue limits get 429` }));
  return refusal({ ...result, reason: "limited" }, dialect);
}

function tooLarge(detail: string): Response {
  return problem(413, "Content Too Large", detail, { max_body_bytes: QUEUE_MAX_BODY_BYTES });
}

/** How a queue's refusal of a message's size reads ("message length of N bytes exceeds limit of M", "too large"). */
const SIZE_REFUSED = /exceeds (the )?(single message size )?limit|too large/i;

function tooLargeMessage(size: number): Response {
  const detail = `The request (headers and body) makes a queue message of ${size} bytes; at most ${QUEUE_MAX_MESSAGE_BYTES} are queued.`;
  return problem(413, "Content Too Large", detail, { max_body_bytes: QUEUE_MAX_BODY_BYTES, max_message_bytes: QUEUE_MAX_MESSAGE_BYTES, message_bytes: size });
}
