/**
 * The hits a request charges on a route with `cost` (docs/response-limits.md):
 * a literal, a whole number in a request header, or the body's size from
 * `Content-Length`. A missing or malformed value is the client's mistake: a
 * RequestCostError carrying the 4xx to answer, never a 500. A declared 0 is
 * charged as 1 unless the route has `allow_zero`: otherwise a client could
 * send as many requests as it liked for nothing.
 */
import type { RouteCost } from "../rules/types.ts";
import { memberAt } from "./json-body.ts";

/**
 * The largest cost a request may claim (the largest count a limit holds).
 *
 * @example
 * requestCost({ kind: "literal", value: MAX_REQUEST_COST }, new Headers(), false); // 4294967295
 */
export const MAX_REQUEST_COST = 4_294_967_295;

const WHOLE = /^\d{1,10}$/;

/**
 * A request whose cost cannot be read; `status` is 400 or 411.
 *
 * @example
 * try { requestCost({ kind: "header", name: "x-cost" }, new Headers(), false); }
 * catch (error) { (error as RequestCostError).status; } // 400: "The request header x-cost is required …"
 */
export class RequestCostError extends Error {
  readonly status: 400 | 411;
  constructor(status: 400 | 411, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The cost of `request` under `cost`.
 *
 * `body_bytes` takes `Content-Length`: the runtime delivers exactly that many
 * bytes or fails the body, so the number cannot understate what reaches the
 * origin. A body without it (chunked) is refused with 411 rather than read
 * into memory to count it.
 *
 * @example
 * requestCost({ kind: "header", name: "x-cost" }, new Headers({ "x-cost": "5" }), false); // 5
 * requestCost({ kind: "header", name: "x-cost" }, new Headers({ "x-cost": "0" }), false); // 1
 * requestCost({ kind: "body_bytes" }, new Headers({ "content-length": "12" }), true);    // 12
 * requestCost({ kind: "json_body", path: ["max_tokens"], fallback: 1024, max: 4096 }, new Headers(), true, { max_tokens: 9000 }); // 4096
 */
export function requestCost(cost: RouteCost, headers: Headers, hasBody: boolean, jsonBody?: unknown): number {
  switch (cost.kind) {
    case "literal":
      return cost.value;
    case "header":
      return atLeastOne(wholeNumber(headers.get(cost.name), `request header ${cost.name}`), cost.allowZero);
    case "body_bytes": {
      const length = headers.get("content-length");
      if (length === null) {
        if (!hasBody) return atLeastOne(0, cost.allowZero);
        throw new RequestCostError(411, "This route charges the request body's size in bytes: send Content-Length (chunked bodies are not accepted).");
      }
      return atLeastOne(wholeNumber(length, "Content-Length"), cost.allowZero);
    }
    case "json_body":
      return atLeastOne(reservation(cost, memberAt(jsonBody, cost.path)), cost.allowZero);
  }
}

// A reservation from the body (docs/llm.md): a whole number there, at most `max`; anything else (absent, a
// string, a fraction, a negative) is the route's default, which the origin's usage report then corrects.
function reservation(cost: Extract<RouteCost, { kind: "json_body" }>, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) return cost.fallback;
  return Math.min(value, cost.max);
}

function atLeastOne(n: number, allowZero: boolean | undefined): number {
  return n === 0 && allowZero !== true ? 1 : n;
}

function wholeNumber(text: string | null, source: string): number {
  if (text === null)
    throw new RequestCostError(400, `The ${source} is required on this route: it gives the request's cost, a whole number from 0 to ${MAX_REQUEST_COST}.`);
  const trimmed = text.trim();
  const n = WHOLE.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(n <= MAX_REQUEST_COST)) {
    throw new RequestCostError(400, `The ${source} must be a whole number from 0 to ${MAX_REQUEST_COST}, got ${JSON.stringify(text.slice(0, 40))}.`);
  }
  return n;
}
