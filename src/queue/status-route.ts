/**
 * `GET /__ratelimit/queued/<id>`: where a queued request stands — `queued`,
 * `delivered` (with the origin's status) or `dead_lettered`. Readable by an
 * admin, or by the client that queued it: the reader's request, mapped as
 * if it were the queued one (same method and path, the reader's own
 * headers, cookies, query and address), must produce the same descriptor
 * values. Anyone else gets 403; an unknown id 404. With queueing off (no
 * queue binding, or no limit with `on_limit: "queue"`) every id is a 404
 * without an object request, and reads other than an admin's are limited
 * per client address (status-limit.ts).
 */
import type { Context } from "hono";
import type { QueuedStatus } from "../durable/queue/status-object.ts";
import type { Env } from "../config.ts";
import type { IsolateOf } from "../admission/isolate-context.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import { InvalidClientIpError } from "../request/client-ip.ts";
import { DuplicateValueError, requestDescriptors } from "../request/descriptors.ts";
import { hasQueueLimits } from "../rules/queue-limits.ts";
import { isAdmin, sameOwner } from "./owner.ts";
import { limitStatusReads } from "./status-limit.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Answer the status of queued request `c.req.param("id")`.
 *
 * @example
 * app.get("/__ratelimit/queued/:id", (c) => queuedStatus(c, isolateOf));
 */
export async function queuedStatus<E extends { Bindings: Env }>(c: Context<E>, isolateOf: IsolateOf): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const statuses = c.env.QUEUED;
  const unknown = () => problem(404, "Not Found", `No queued request ${JSON.stringify(id.slice(0, 64))}.`);
  const isolate = isolateOf(c.env);
  const settings = isolate.settings;
  const rules = await isolate.currentRules(deferOf(c));
  // Queueing off (no binding, or no limit queues): nothing to read, and no object is asked.
  if (statuses === undefined || !hasQueueLimits(rules)) return problem(404, "Not Found", "No rule queues requests, so there is no queued request to read.");
  const admin = await isAdmin(c.req.raw, settings.adminToken);
  if (!admin) {
    let refused: Response | undefined;
    try {
      refused = await limitStatusReads(isolate, c.req.raw, deferOf(c));
    } catch (error) {
      if (error instanceof InvalidClientIpError) return problem(400, "Bad Request", error.message);
      throw error;
    }
    if (refused) return refused;
  }
  // Only ids we could have made reach an object, so a scan creates nothing.
  if (!UUID.test(id)) return unknown();
  const status = await statuses.getByName(id).read();
  if (status === null) return unknown();
  if (!admin) {
    const reading = new URL(c.req.url);
    const asQueued = new Request(new URL(status.path + reading.search, reading.origin), { method: status.method, headers: c.req.raw.headers });
    let mine: boolean;
    try {
      mine = await sameOwner(
        requestDescriptors(rules, asQueued, { trustedProxyHops: settings.trustedProxyHops, trustedProxyHeader: settings.trustedProxyHeader }),
        status.owner,
      );
    } catch (error) {
      if (error instanceof InvalidClientIpError || error instanceof DuplicateValueError) return problem(400, "Bad Request", error.message);
      throw error;
    }
    if (!mine) {
      return problem(403, "Forbidden", "Only the client that queued this request (the same rate-limit descriptor values) or an admin may read its status.");
    }
  }
  return Response.json(describe(status), { headers: { "Cache-Control": "no-store" } });
}

function describe(status: QueuedStatus) {
  const at = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  return {
    id: status.id,
    state: status.state,
    method: status.method,
    path: status.path,
    queued_at: at(status.queuedAt),
    attempts: status.attempts,
    origin_status: status.originStatus,
    last_error: status.lastError,
    delivered_at: at(status.deliveredAt),
    dead_lettered_at: at(status.deadLetteredAt),
  };
}
