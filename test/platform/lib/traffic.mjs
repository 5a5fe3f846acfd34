/**
 * Requests of the platform suite: GETs over kept-alive connections to one
 * service of the suite's workerd, a key in `x-api-key`, and optionally a
 * Cloudflare location in `request.cf` (lib/config.mjs, CF_HEADER).
 */
import { Agent, request } from "node:http";
import { CF_HEADER } from "./config.mjs";

/** Where the `cf` requests arrive: Frankfurt (region weur, so global limits go through the regional relay). */
export const FRANKFURT = { colo: "FRA", country: "DE", continent: "EU" };

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** Close the kept-alive connections (at the end of the run). */
export const closeConnections = () => agent.destroy();

/**
 * One GET; resolves with its status and headers once the body is read.
 *
 * @example
 * const { status, headers } = await get(port, "/limit-50", "key-1", { cf: FRANKFURT });
 */
export function get(port, path, key, { cf, method = "GET" } = {}) {
  return new Promise((resolve, reject) => {
    const headers = { "x-api-key": key, ...(cf ? { [CF_HEADER]: JSON.stringify(cf) } : {}) };
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
 * `inFlight` ≥ `requests`), spread over `ports` in turn; count the answers
 * by status and by `X-RateLimit-Decision`.
 *
 * @example
 * const counts = await send({ ports: [port], path: "/limit-50", key, requests: 300, inFlight: 10 });
 * counts.allowed; // 50
 */
export async function send({ ports, path, key, requests, inFlight = requests, cf }) {
  const counts = { requests, allowed: 0, refused: 0, other: 0, decisions: {} };
  let next = 0;
  const worker = async () => {
    while (next < requests) {
      const port = ports[next++ % ports.length];
      const { status, headers } = await get(port, path, key, { cf });
      if (status === 200) counts.allowed += 1;
      else if (status === 429) counts.refused += 1;
      else counts.other += 1;
      const decision = headers["x-ratelimit-decision"] ?? `status ${status}`;
      counts.decisions[decision] = (counts.decisions[decision] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, requests) }, worker));
  return counts;
}

let unique = 0;
/** A key no earlier run or check has used. */
export const freshKey = (name) => `${name}-${Date.now().toString(36)}-${(unique++).toString(36)}`;
