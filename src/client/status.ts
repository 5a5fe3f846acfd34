/**
 * Asking a floodgate gateway how much quota the caller has left on a route
 * without spending any (`GET /__ratelimit/status`, docs/client.md,
 * "Asking for the quota left"). The gateway answers from the request it is
 * sent, so the headers that identify the caller (an API key, a token,
 * cookies) go along in `init`, as on the real request.
 */

/** One policy the route's request would be counted by. */
export interface QuotaPolicy {
  readonly name: string;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window frees quota again (rounded up). */
  readonly reset_after_s: number;
  readonly window_s: number;
}

/** The route asked about: the method and path (its query included) a real request would have. */
export interface StatusRoute {
  readonly method: string;
  readonly path: string;
}

/** Options of `rateLimitStatus`. */
export interface RateLimitStatusOptions {
  /** The fetch to call (default: the global one). */
  readonly fetch?: (request: Request) => Promise<Response>;
}

/** Thrown when the gateway does not answer a status: its `response` says why (400 bad route, 429 too many status reads). */
export class RateLimitStatusError extends Error {
  override readonly name = "RateLimitStatusError";
  readonly response: Response;

  constructor(message: string, response: Response) {
    super(message);
    this.response = response;
  }
}

/**
 * The caller's quotas for `route` at the gateway `gateway` (its origin,
 * e.g. `https://api.example.com`), spending none. Resolves with the
 * policies that would count a real request (empty when none would);
 * rejects with RateLimitStatusError on any other answer than 200, its
 * message giving the gateway's `detail`.
 *
 * @example
 * import { rateLimitStatus } from "floodgate/client";
 * const policies = await rateLimitStatus("https://api.example.com", { method: "POST", path: "/v1/reports" }, { headers: { "x-api-key": key } });
 * const left = Math.min(...policies.map((p) => p.remaining)); // requests that will still pass now
 */
export async function rateLimitStatus(
  gateway: string | URL,
  route: StatusRoute,
  init: RequestInit = {},
  options: RateLimitStatusOptions = {},
): Promise<QuotaPolicy[]> {
  const url = new URL("/__ratelimit/status", gateway);
  url.searchParams.set("method", route.method);
  url.searchParams.set("path", route.path);
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const response = await send(new Request(url, { ...init, method: "GET", body: undefined }));
  if (response.status !== 200) {
    const detail = await response
      .clone()
      .json()
      .then((body: unknown) => {
        const text = (body as { detail?: unknown } | null)?.detail;
        return typeof text === "string" ? `: ${text}` : "";
      })
      .catch(() => "");
    throw new RateLimitStatusError(`status of ${route.method} ${route.path}: ${response.status}${detail}`, response);
  }
  const body = (await response.json()) as { policies?: unknown };
  if (!Array.isArray(body.policies)) throw new RateLimitStatusError(`status of ${route.method} ${route.path}: no policies in the answer`, response);
  return body.policies as QuotaPolicy[];
}
