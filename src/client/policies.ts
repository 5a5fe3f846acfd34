/**
 * Every budget a response names (docs/client.md, "Reading each budget"):
 * draft-11's `RateLimit-Policy` (`"name";q=…;qu="tokens";w=…`) joined with
 * its `RateLimit` (`"name";r=…;t=…`) by policy name, so a caller of an LLM
 * API behind floodgate can see its tokens per minute beside its requests.
 */

/** One policy of a response, as the server described it. */
export interface PolicyHeader {
  readonly name: string;
  /** The quota (`q`), in `unit`s per window. */
  readonly quota?: number;
  /** What the quota counts (`qu`): `requests` unless the server said otherwise (`tokens`, `content-bytes`, …). */
  readonly unit: string;
  /** The window in seconds (`w`). */
  readonly windowSeconds?: number;
  /** What is left (`r`), in `unit`s. */
  readonly remaining?: number;
  /** Seconds until more fits (`t`). */
  readonly resetSeconds?: number;
}

// One member of a structured-field list: a quoted name, then `;key=value` parameters (integers or quoted strings).
const MEMBER = /\s*"((?:[^"\\]|\\.)*)"((?:\s*;\s*[a-z][a-z0-9_*.-]*\s*=\s*(?:\d+|"(?:[^"\\]|\\.)*"))*)\s*(?:,|$)/giy;
const PARAM = /;\s*([a-z][a-z0-9_*.-]*)\s*=\s*(\d+|"(?:[^"\\]|\\.)*")/gi;

/**
 * The policies of `headers`, in the order `RateLimit-Policy` lists them
 * (the most restrictive first); empty when the response names none.
 *
 * @example
 * rateLimitPolicies(new Headers({
 *   "RateLimit-Policy": '"tokens-per-minute";q=100000;qu="tokens";w=60, "requests-per-minute";q=600;w=60',
 *   RateLimit: '"tokens-per-minute";r=2500;t=60, "requests-per-minute";r=599;t=60',
 * }));
 * // [{ name: "tokens-per-minute", quota: 100000, unit: "tokens", windowSeconds: 60, remaining: 2500, resetSeconds: 60 }, { name: "requests-per-minute", … }]
 */
export function rateLimitPolicies(headers: Headers): PolicyHeader[] {
  const live = new Map(members(headers.get("ratelimit")).map((m) => [m.name, m.params]));
  return members(headers.get("ratelimit-policy")).map(({ name, params }) => {
    const now = live.get(name);
    const policy: Record<string, unknown> = { name, unit: typeof params.qu === "string" ? params.qu : "requests" };
    if (typeof params.q === "number") policy.quota = params.q;
    if (typeof params.w === "number") policy.windowSeconds = params.w;
    if (typeof now?.r === "number") policy.remaining = now.r;
    if (typeof now?.t === "number") policy.resetSeconds = now.t;
    return policy as unknown as PolicyHeader;
  });
}

function members(field: string | null): { name: string; params: Record<string, number | string> }[] {
  if (field === null) return [];
  const out: { name: string; params: Record<string, number | string> }[] = [];
  MEMBER.lastIndex = 0;
  for (let match = MEMBER.exec(field); match !== null && match[0] !== ""; match = MEMBER.exec(field)) {
    const params: Record<string, number | string> = {};
    for (const [, key, value] of match[2].matchAll(PARAM)) params[key.toLowerCase()] = value.startsWith('"') ? unquote(value) : Number(value);
    out.push({ name: unquote(`"${match[1]}"`), params });
  }
  return out;
}

function unquote(text: string): string {
  return text.slice(1, -1).replace(/\\(.)/g, "$1");
}
