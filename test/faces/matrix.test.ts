/**
 * The faces matrix: every way in decides as the gateway does for the same
 * limit. Each face (the `rateLimit()` middleware with rules, hono-rate-
 * limiter's options, the Upstash-shaped `Ratelimit`, the binding
 * entrypoint's `bindingLimit`, Envoy's `/json` decision API) against the gateway, for each of: the
 * counters bound as `COUNTERS` or under another name (`LIMITS`, the only
 * name in the env the face sees); `request.cf` present (Frankfurt) or
 * absent; counters that fail, with failure mode open and closed; and a
 * burst of concurrent requests. The same sequence of requests must get the
 * same allow/refuse decisions, request by request (a burst: as many
 * allowed). `Ratelimit` has no closed mode (Upstash's timeout always lets
 * the request through), so it sits out the closed rows.
 *
 * Breaks tried, each seen to fail here: the hono-rate-limiter face's
 * failure mode ignored (always open); its counters read from c.env.COUNTERS
 * whatever `counters` says; `bindingLimit` answering `{ success: true }` on
 * a failure whatever FAILURE_MODE says.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readSettings } from "../../src/config.ts";
import type { Env } from "../../src/config.ts";
import { Isolate } from "../../src/admission/isolate-context.ts";
import { rateLimitOn } from "../../src/hono/middleware.ts";
import { BindingLimits, bindingLimit } from "../../src/dropins/binding.ts";
import { Ratelimit } from "../../src/dropins/ratelimit.ts";
import { gateway, testEnv } from "../support/app.ts";
import { auth, TOKEN } from "../support/envoy.ts";
import { throwingCounters } from "../support/failing.ts";
import { Hono } from "hono";

const LIMIT = 3;
const REQUESTS = 5;
type Cf = RequestInit["cf"];
const FRANKFURT = { colo: "FRA", continent: "EU", country: "DE" } as unknown as Cf;
type Algorithm = "fixed_window" | "sliding_window_counter";

/** One row of the matrix: how the counters are bound, where the request comes from, whether they work. */
interface Row {
  readonly name: "COUNTERS" | "LIMITS";
  readonly cf?: Cf;
  readonly failure?: "open" | "closed";
  readonly burst: boolean;
}

/** The decisions a face makes for `user`'s requests (in order; for a burst, sent at once). */
type Face = (row: Row, user: string, algorithm: Algorithm) => Promise<boolean[]>;

let serial = 0;
const unique = (label: string) => `${label}-${Date.now()}-${serial++}`;

function countersOf(row: Row): Env["COUNTERS"] {
  return row.failure === undefined ? testEnv.COUNTERS : throwingCounters;
}

/** `count` requests, one after another or all at once. */
async function send(row: Row, one: () => Promise<boolean>): Promise<boolean[]> {
  if (row.burst) return Promise.all(Array.from({ length: REQUESTS }, one));
  const decisions: boolean[] = [];
  for (let i = 0; i < REQUESTS; i++) decisions.push(await one());
  return decisions;
}

const rulesFor = (domain: string, algorithm: Algorithm) => ({
  domain,
  descriptors: [{ key: "user", rate_limit: { unit: "hour", requests_per_unit: LIMIT, algorithm } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "user", header: "x-user" }]] }],
});

/** The reference: floodgate's own gateway, its counters always `COUNTERS` (it is floodgate's own Worker). */
const viaGateway: Face = (row, user, algorithm) => {
  const vars: Partial<Env> = { COUNTERS: countersOf(row), ...(row.failure ? { FAILURE_MODE: row.failure } : {}) };
  const call = gateway(rulesFor(`gw-${algorithm}`, algorithm), vars);
  return send(row, async () => {
    const response = await call("/x", { headers: { "x-user": user }, ...(row.cf ? { cf: row.cf } : {}) });
    await response.arrayBuffer();
    return response.status === 200;
  });
};

const viaRulesMiddleware: Face = (row, user, algorithm) => {
  const middleware = rateLimitOn(
    { rules: rulesFor(unique("mw"), algorithm), counters: (c) => c.env[row.name], ...(row.failure ? { failureMode: row.failure } : {}) },
    {},
  );
  return withUser(row, middleware, user);
};

const viaHonoRateLimiter: Face = (row, user) => {
  const middleware = rateLimitOn(
    {
      windowMs: 3_600_000,
      limit: LIMIT,
      keyGenerator: (c) => c.req.header("x-user") ?? "",
      counters: (c) => c.env[row.name],
      prefix: unique("hrl"),
      ...(row.failure ? { failureMode: row.failure } : {}),
    },
    {},
  );
  return withUser(row, middleware, user);
};

function withUser(row: Row, middleware: ReturnType<typeof rateLimitOn>, user: string): Promise<boolean[]> {
  const app = new Hono();
  app.use(middleware);
  app.get("*", (c) => c.text("ok"));
  const bindings = { [row.name]: countersOf(row) };
  return send(row, async () => {
    const request = new Request("http://app.test/x", { headers: { "x-user": user }, ...(row.cf ? { cf: row.cf } : {}) });
    const response = await app.fetch(request, bindings);
    await response.arrayBuffer();
    return response.status === 200;
  });
}

const viaRatelimit: Face = (row, user) => {
  const env: Record<string, Env["COUNTERS"]> = { [row.name]: countersOf(row) };
  const ratelimit = new Ratelimit({ counters: env[row.name], limiter: Ratelimit.fixedWindow(LIMIT, "1 h"), prefix: unique("upstash") });
  return send(row, async () => (await ratelimit.limit(user)).success);
};

const bindingLimits = new BindingLimits();
const viaBinding: Face = (row, user) => {
  const env = { ...testEnv, ...(row.failure ? { FAILURE_MODE: row.failure } : {}) };
  const isolate = new Isolate({ env, settings: readSettings(env), counters: countersOf(row) }, null);
  const domain = bindingLimits.domainOf({ namespace_id: unique("binding"), simple: { limit: LIMIT, period: 3600 } });
  return send(row, async () => (await bindingLimit(isolate, domain, { key: user }, () => undefined)).success);
};

/** Envoy's decision API on the gateway (`POST /__ratelimit/json`): floodgate's own Worker, so its counters are always `COUNTERS`. */
const viaJson: Face = (row, user, algorithm) => {
  const domain = `gw-${algorithm}`;
  const vars: Partial<Env> = { ADMIN_TOKEN: TOKEN, COUNTERS: countersOf(row), ...(row.failure ? { FAILURE_MODE: row.failure } : {}) };
  const call = gateway(rulesFor(domain, algorithm), vars);
  const body = JSON.stringify({ domain, descriptors: [{ entries: [{ key: "user", value: user }] }] });
  return send(row, async () => {
    const response = await call("/__ratelimit/json", {
      method: "POST",
      body,
      headers: { ...auth, "content-type": "application/json" },
      ...(row.cf ? { cf: row.cf } : {}),
    });
    const answer = (await response.json()) as { overallCode?: string };
    return response.status === 200 && answer.overallCode === "OK";
  });
};

const FACES: readonly (readonly [string, Face, Algorithm, boolean])[] = [
  // name, face, the algorithm it counts with, whether it has a closed failure mode
  ["rateLimit() with rules", viaRulesMiddleware, "fixed_window", true],
  ["rateLimit() with hono-rate-limiter's options", viaHonoRateLimiter, "fixed_window", true],
  ["Ratelimit (floodgate/limiter)", viaRatelimit, "fixed_window", false],
  ["RateLimiterBinding", viaBinding, "sliding_window_counter", true],
  ["POST /__ratelimit/json", viaJson, "fixed_window", true],
];

const ROWS: Row[] = [];
for (const name of ["COUNTERS", "LIMITS"] as const) {
  for (const cf of [undefined, FRANKFURT]) {
    for (const failure of [undefined, "open", "closed"] as const) {
      for (const burst of [false, true]) ROWS.push({ name, ...(cf ? { cf } : {}), ...(failure ? { failure } : {}), burst });
    }
  }
}
const describeRow = (row: Row) =>
  `${row.name}, ${row.cf ? "from Frankfurt" : "no location"}, ${row.failure ? `counters failing, ${row.failure}` : "counters working"}, ${row.burst ? "a burst" : "in turn"}`;

beforeEach(() => {
  // Failing counters log one structured line per failure: expected here, checked in test/gateway/failure-mode.test.ts.
  vi.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("every face decides as the gateway does", () => {
  for (const [faceName, face, algorithm, hasClosed] of FACES) {
    describe(faceName, () => {
      for (const row of ROWS) {
        if (row.failure === "closed" && !hasClosed) continue;
        it(describeRow(row), async () => {
          const expected = await viaGateway(row, unique("gw-user"), algorithm);
          const got = await face(row, unique("face-user"), algorithm);
          // The reference itself: LIMIT allowed when the counters work, all or none when they fail.
          const allowed = expected.filter(Boolean).length;
          expect(allowed).toBe(row.failure === undefined ? LIMIT : row.failure === "open" ? REQUESTS : 0);
          if (row.burst) expect(got.filter(Boolean).length).toBe(allowed);
          else expect(got).toEqual(expected);
        });
      }
    });
  }
});
