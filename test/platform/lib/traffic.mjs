/**
 * Requests of the platform suite: GETs over kept-alive connections to one
 * service of the suite's workerd, a key in `x-api-key`, and optionally a
 * Cloudflare location in `request.cf` (lib/config.mjs, CF_HEADER).
 */
import { Agent, request } from "node:http";
import { CF_HEADER } from "./config.mjs";

/** Where the `cf` requests arrive: Frankfurt (region weur, so global limits go through the regional relay). */
export const FRANKFURT = { colo: "FRA", country: "DE", continent: "EU" };

/**
 * Production's shape (docs/reliability.md, "Bounds and the tests that hold
 * them"): every request Cloudflare delivers carries `request.cf`, so `send`
 * spreads its requests over three colos in three regions (as the bench's
 * load does) unless told otherwise: a global key warm in a region is decided
 * through that region's copy (the relay), as in production.
 */
export const THREE_REGIONS = [{ colo: "IAD", country: "US", continent: "NA" }, FRANKFURT, { colo: "SIN", country: "SG", continent: "AS" }];

/** `cf` for the direct path (no `request.cf`: no region, no relay), the rows labelled as the control. */
export const DIRECT = null;

/** How a row's requests arrive, for its name. */
export const arrival = (cf) => (cf === DIRECT ? "direct (no request.cf, control)" : Array.isArray(cf) ? "request.cf IAD/FRA/SIN" : `request.cf ${cf.colo}`);

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** Close the kept-alive connections (at the end of the run). */
export const closeConnections = () => agent.destroy();

/**
 * One GET; resolves with its status and headers once the body is read.
 *
 * @example
 * const { status, headers } = await get(port, "/limit-50", "key-1", { cf: FRANKFURT });
 */
export function get(port, path, key, { cf, method = "GET", headers: extra } = {}) {
  return new Promise((resolve, reject) => {
    const headers = { ...extra, "x-api-key": key, ...(cf ? { [CF_HEADER]: JSON.stringify(cf) } : {}) };
    const req = request({ host: "127.0.0.1", port, path, method, agent, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer from 127.0.0.1:${port}${path} within 60 s`)));
    req.on("error", reject);
    req.end();
  });
}

/** The JSON a `/__platform/*` path answers. */
export async function platformJson(port, path, method = "GET") {
  const { status, body } = await get(port, path, "", { method });
  if (status !== 200) throw new Error(`${path} answered ${status}: ${body}`);
  return JSON.parse(body);
}

/**
 * Send `requests` GETs of `key`, `inFlight` at a time (all at once when
 * `inFlight` ≥ `requests`), spread over `ports` in turn, each with the
 * next location of `cf` (default THREE_REGIONS; DIRECT: none); count the
 * answers by status and by `X-RateLimit-Decision`, 5xx apart. `onAnswer`
 * sees each answer as it comes (its status and when), and may return a
 * promise the next request of that sender waits for; `headers` are sent
 * with every request; each sender waits `gapMs` between its requests, and
 * all stop once `until()` is true (`counts.requests`: those sent).
 *
 * @example
 * const counts = await send({ ports: [port], path: "/limit-50", key, requests: 300, inFlight: 10 });
 * counts.allowed; // 50
 */
export async function send({ ports, path, key, requests, inFlight = requests, cf = THREE_REGIONS, headers: extra, onAnswer, gapMs = 0, until }) {
  const counts = { requests, allowed: 0, refused: 0, other: 0, errors: 0, decisions: {} };
  const places = cf === DIRECT ? [undefined] : Array.isArray(cf) ? cf : [cf];
  let next = 0;
  const worker = async () => {
    for (let first = true; next < requests && !until?.(); first = false) {
      if (!first && gapMs > 0) await sleep(gapMs);
      if (next >= requests || until?.()) break;
      const n = next++;
      const port = ports[n % ports.length];
      const { status, headers } = await get(port, path, key, { cf: places[n % places.length], headers: extra });
      if (status === 200) counts.allowed += 1;
      else if (status === 429) counts.refused += 1;
      else counts.other += 1;
      if (status >= 500) counts.errors += 1;
      const decision = headers["x-ratelimit-decision"] ?? `status ${status}`;
      counts.decisions[decision] = (counts.decisions[decision] ?? 0) + 1;
      await onAnswer?.({ status, at: Date.now() });
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, requests) }, worker));
  counts.requests = Math.min(next, requests);
  return counts;
}

let unique = 0;
/** A key no earlier run or check has used. */
export const freshKey = (name) => `${name}-${Date.now().toString(36)}-${(unique++).toString(36)}`;

/** Wait `ms` (none when ≤ 0). */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * A deploy, as far as the suite can make one (docs/reliability.md, "Bounds
 * and the tests that hold them"): every started counter object aborted
 * (on `homePort`, the service that declares them; `match` narrows it to the
 * names holding it; null: none) and every isolate of `isolatePorts` reset, all at once.
 *
 * @example
 * await resetAll(ports.home, Object.values(ports));
 */
export async function resetAll(homePort, isolatePorts, match = "") {
  await Promise.all([
    homePort === null ? undefined : platformJson(homePort, `/__platform/evict?match=${encodeURIComponent(match)}`, "POST"),
    ...isolatePorts.map((port) => platformJson(port, "/__platform/reset-isolate", "POST")),
  ]);
}
