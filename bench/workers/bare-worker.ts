/**
 * The physical limit (bench/README.md, "Baselines"): a bare pass-through worker. It sends
 * every request on to the bench origin and streams the answer back, doing
 * nothing else: what any gateway in front of that origin pays before it
 * decides anything. Every throughput in the bench table is read as a ratio
 * to this worker, on the same workerd, under the same load.
 *
 * Under `/429/` it answers instead, at once, the 429 floodgate gives on the
 * rest of the path (the `bare-429` baseline of the `blocked` and
 * `limit-zero` scenarios): the physical limit of a path whose every request
 * is rejected, which never reaches the origin.
 */
import { isPlanetRegion, PLANET } from "./planet.ts";

interface Env {
  /** The bench origin, e.g. "http://127.0.0.1:40123" (set by the bench's workerd config). */
  ORIGIN_URL: string;
  /** The simulated region (bench/workers/planet.ts): the request is rebuilt with its `cf`, as floodgate's of the same region is. */
  BENCH_REGION?: string;
}

/** A 429 as floodgate sends it: status 429, these headers, this problem+json body. */
interface Canned429 {
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

/**
 * floodgate's 429 on each rejected bench path, byte for byte as it answered
 * the bench's key there (src/limiter/respond.ts, src/http/problem.ts), with
 * the seconds it gave at one moment as literals: floodgate computes them
 * per request, the bare worker only answers.
 */
const CANNED_429: Readonly<Record<string, Canned429>> = {
  "/sharded/blocked": {
    headers: [
      ["X-RateLimit-Limit", "10"],
      ["X-RateLimit-Remaining", "0"],
      ["X-RateLimit-Reset", "4712"],
      ["RateLimit-Policy", '"blocked";q=10;w=3600'],
      ["RateLimit", '"blocked";r=0;t=4712'],
      ["Retry-After", "1472"],
      ["X-RateLimit-Retry-After", "1472"],
      ["content-type", "application/problem+json"],
    ],
    body: JSON.stringify({
      type: "https://iana.org/assignments/http-problem-types#quota-exceeded",
      title: "Too Many Requests",
      status: 429,
      detail: "Rate limit exceeded for blocked (path, api_key): 10 requests per 3600 s; retry in 1472 s.",
      "violated-policies": ["blocked"],
      retry_after: 1472,
      policy: "blocked",
      limit: 10,
      remaining: 0,
    }),
  },
  "/sharded/limit-zero": {
    headers: [
      ["X-RateLimit-Limit", "0"],
      ["X-RateLimit-Remaining", "0"],
      ["X-RateLimit-Reset", "60"],
      ["RateLimit-Policy", '"limit-zero";q=0;w=60'],
      ["RateLimit", '"limit-zero";r=0;t=60'],
      ["Retry-After", "60"],
      ["X-RateLimit-Retry-After", "60"],
      ["content-type", "application/problem+json"],
    ],
    body: JSON.stringify({
      type: "https://iana.org/assignments/http-problem-types#quota-exceeded",
      title: "Too Many Requests",
      status: 429,
      detail: "Rate limit exceeded for limit-zero (path, api_key): 0 requests per 60 s; retry in 60 s.",
      "violated-policies": ["limit-zero"],
      retry_after: 60,
      policy: "limit-zero",
      limit: 0,
      remaining: 0,
    }),
  },
};

/**
 * The canned 429 for `path` (without the `/429` prefix); a 404 naming the
 * paths it knows when there is none, so a misspelt baseline fails loudly.
 *
 * @example
 * canned429("/sharded/blocked").status; // 429
 */
function canned429(path: string): Response {
  const canned = CANNED_429[path];
  if (canned === undefined) return new Response(`no canned 429 for ${path} (have ${Object.keys(CANNED_429).join(", ")})\n`, { status: 404 });
  return new Response(canned.body, { status: 429, headers: canned.headers as [string, string][] });
}

export default {
  /**
   * Forward the request, path and query kept, to ORIGIN_URL; under `/429/`, answer floodgate's 429 for the rest of the path.
   *
   * @example
   * await bare.fetch(new Request("http://127.0.0.1/sharded/blocked"), { ORIGIN_URL: "http://127.0.0.1:40123" }); // the origin's 200 "ok"
   * await bare.fetch(new Request("http://127.0.0.1/429/sharded/blocked"), env); // floodgate's 429 for /sharded/blocked
   */
  fetch(request: Request, env: Env): Promise<Response> | Response {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/429/")) return canned429(url.pathname.slice("/429".length));
    const region = env.BENCH_REGION;
    const located = isPlanetRegion(region) ? new Request(request, { cf: { ...PLANET[region].cf } }) : request;
    return fetch(env.ORIGIN_URL + url.pathname + url.search, located);
  },
} satisfies ExportedHandler<Env>;
