/**
 * One reading of identity (docs/rules.md, "Verified identity (jwt)"): the
 * token is read exactly as the origin reads it, or the request is refused
 * with a 400 naming the ambiguity, through the real gateway and counters.
 * Two session cookies with different values, two `Authorization` headers,
 * `Bearer` followed by a tab or two spaces: each is a 400, never "no token"
 * (which skipped the per-user limit while the origin read the token). An
 * HS256 token naming a `kid` verifies with the secret. A domain whose
 * matched route reads no claim verifies no token (no JWKS fetch).
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { AUDIENCE, claims, hs256, ISSUER, newSigner, SECRET, signed } from "./tokens.ts";

const vars = { JWT_TEST_SECRET: SECRET } as Record<string, string>;
const hsJwt = { secret: "JWT_TEST_SECRET", issuer: ISSUER, audience: AUDIENCE };

function rules(jwt: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    domain: "api",
    jwt,
    ...extra,
    descriptors: [
      { key: "user", rate_limit: { unit: "minute", requests_per_unit: 3 } },
      { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 100 } },
    ],
    routes: [{ match: { path: "/*" }, descriptors: [[{ key: "user", jwt_claim: "sub" }], [{ key: "remote_address" }]] }],
  };
}

const newUser = () => `user-${crypto.randomUUID()}`;

describe("a token in a cookie", () => {
  const call = gateway(rules({ ...hsJwt, cookie: "session" }), vars);
  const send = async (cookie: string) => call("/x", { headers: { cookie }, ip: uniqueIp() });

  it("refuses two session cookies with different values with a 400 naming the cookie; the per-user limit holds", async () => {
    const token = await hs256(claims(newUser()));
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await send(`session=${token}`)).status);
    // The finding: `session=<valid>; session=x` made the token absent and skipped the per-user limit.
    for (const cookie of [`session=${token}; session=x`, `session=x; session=${token}`, `session=${token}, session=x`]) {
      const response = await send(cookie);
      expect(response.status, cookie).toBe(400);
      expect((await response.json<{ detail: string }>()).detail).toContain('cookie "session"');
    }
    statuses.push((await send(`session=${token}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("reads the same cookie sent twice, and a quoted or percent-encoded one, as the origin does", async () => {
    const token = await hs256(claims(newUser()));
    const encoded = token.replaceAll(".", "%2E");
    const statuses = [
      (await send(`session=${token}; session=${token}`)).status,
      (await send(`session="${token}"`)).status,
      (await send(`session=${encoded}`)).status,
      (await send(`session=${token}`)).status,
    ];
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("reads the copy the domain's duplicate_values names", async () => {
    const last = gateway(rules({ ...hsJwt, cookie: "session" }, { duplicate_values: "last" }), vars);
    const token = await hs256(claims(newUser()));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await last("/x", { headers: { cookie: `session=x; session=${token}` }, ip: uniqueIp() })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe("a token in Authorization", () => {
  const call = gateway(rules(hsJwt), vars);

  it("refuses two Authorization headers, a tab or two spaces after Bearer, with a 400 naming the ambiguity", async () => {
    const token = await hs256(claims(newUser()));
    const two = new Headers();
    two.append("authorization", `Bearer ${token}`);
    two.append("authorization", "Bearer x");
    const same = new Headers();
    same.append("authorization", `Bearer ${token}`);
    same.append("authorization", `Bearer ${token}`);
    for (const [what, headers, says] of [
      ["two headers", two, "more than once"],
      ["the same header twice", same, "more than once"],
      ["a tab", { authorization: `Bearer\t${token}` }, "whitespace"],
      ["two spaces", { authorization: `Bearer  ${token}` }, "whitespace"],
      ["a space and a tab", { authorization: `Bearer \t${token}` }, "whitespace"],
    ] as const) {
      const response = await call("/x", { headers, ip: uniqueIp() });
      expect(response.status, what).toBe(400);
      expect(await response.text(), what).toContain(says);
    }
    // The user's counter was not spent by the refused requests; the scheme's case is the origin's too (RFC 9110).
    const statuses: number[] = [];
    for (const scheme of ["Bearer", "bearer", "BEARER", "Bearer"])
      statuses.push((await call("/x", { headers: { authorization: `${scheme} ${token}` }, ip: uniqueIp() })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("refuses a custom token header sent under two spellings", async () => {
    const custom = gateway(rules({ ...hsJwt, header: "x-auth-token" }), vars);
    const token = await hs256(claims(newUser()));
    const response = await custom("/x", { headers: { "x-auth-token": token, x_auth_token: "x" }, ip: uniqueIp() });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("spelling");
  });

  it("is no ambiguity on a route that reads no claim", async () => {
    const mixed = gateway(
      {
        ...rules(hsJwt),
        routes: [
          { match: { path: "/open/*" }, descriptors: [[{ key: "remote_address" }]] },
          { match: { path: "/*" }, descriptors: [[{ key: "user", jwt_claim: "sub" }], [{ key: "remote_address" }]] },
        ],
      },
      vars,
    );
    expect((await mixed("/open/x", { headers: { authorization: "Bearer\ta" }, ip: uniqueIp() })).status).toBe(200);
    expect((await mixed("/x", { headers: { authorization: "Bearer\ta" }, ip: uniqueIp() })).status).toBe(400);
  });
});

describe("HS256 with a kid", () => {
  it("verifies with the secret whatever kid the issuer names", async () => {
    const call = gateway(rules(hsJwt), vars);
    const token = await hs256(claims(newUser()), SECRET, { kid: "hs-2026" });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await call("/x", { headers: { authorization: `Bearer ${token}` }, ip: uniqueIp() })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe("only the matched route's domain verifies", () => {
  it("fetches no JWKS of a domain whose matched route reads no claim", async () => {
    const origin = testEnv.TEST_ORIGIN_URL;
    const tag = crypto.randomUUID();
    const signer = await newSigner("RS256", "rs-1");
    await fetch(`${origin}/__jwks?tag=${tag}&status=200`, { method: "PUT", body: JSON.stringify({ keys: [signer.jwk] }) });
    const call = gateway(
      [
        rules(hsJwt),
        {
          domain: "partners",
          jwt: { jwks_url: `${origin}/__jwks?tag=${tag}` },
          descriptors: [{ key: "partner", rate_limit: { unit: "minute", requests_per_unit: 2 } }],
          routes: [{ match: { path: "/partners/*" }, descriptors: [[{ key: "partner", jwt_claim: "sub" }]] }],
        },
      ],
      vars,
    );
    const token = await signed(signer, claims(newUser()));
    // "api" matches /x and reads a claim; "partners" matches nothing: its keys are never fetched.
    for (let i = 0; i < 3; i += 1) expect((await call("/x", { headers: { authorization: `Bearer ${token}` }, ip: uniqueIp() })).status).toBe(200);
    expect(await (await fetch(`${origin}/__jwks_fetches?tag=${tag}`)).json()).toBe(0);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await call("/partners/x", { headers: { authorization: `Bearer ${token}` }, ip: uniqueIp() })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(await (await fetch(`${origin}/__jwks_fetches?tag=${tag}`)).json()).toBe(1);
  });
});
