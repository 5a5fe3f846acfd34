/**
 * RFC 9457 problem+json responses: every error the gateway gives is one.
 */
// @ts-nocheck


/**
 * A problem+json response of type `about:blank`, unless `extra` names a
 * problem type URI as `type`; `extra`'s other members are its extensions.
 *
 * @example
 * return problem(400, "Bad Request", "CF-Connecting-IP is not an IP address");
 */
export function problem(status: number, title: string, detail: string, extra: Record<string, unknown> = {}, headers: HeadersInit = {}): Response {
  const body = JSON.stringify({ type: "about:blank", title, status, detail, ...extra });
  const response = new Response(body, { status, headers });
  response.headers.set("content-type", "application/problem+json");
  return response;
}
