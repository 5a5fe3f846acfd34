/**
 * A descriptor keyed on a verified token's claim, through the real gateway
 * and counter objects (docs/rules.md, "Verified identity (jwt)"): each
 * verified user has a counter of their own, and a token that does not
 * verify (forged, expired, not yet valid, for another issuer or audience,
 * unsigned, HS256 keyed with a public key, a kid of no key, garbage, too
 * long) gives the entry no value, so the request is limited by address only.
 */
import { describe, expect, it } from "vitest";
import { gateway, uniqueIp } from "../support/app.ts";
import { AUDIENCE, claims, confused, hs256, ISSUER, newSigner, SECRET, signed, unsigned } from "./tokens.ts";

/** Per user 2 a minute; per address `perAddress` a minute. */
function rules(jwt: Record<string, unknown>, perAddress = 100) {
  return {
    domain: "api",
    jwt,
    descriptors: [
      { key: "user", rate_limit: { unit: "minute", requests_per_unit: 2 } },
      { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: perAddress } },
    ],
    routes: [{ match: { path: "/*" }, descriptors: [[{ key: "user", jwt_claim: "sub" }], [{ key: "remote_address" }]] }],
  };
}

const hsJwt = { secret: "JWT_TEST_SECRET", issuer: ISSUER, audience: AUDIENCE };
const vars = { JWT_TEST_SECRET: SECRET } as Record<string, string>;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let users = 0;
const newUser = () => `user-${++users}-${crypto.randomUUID()}`;

/** Statuses of `n` requests with `token`, each from its own address unless `ip` is given. */
async function statuses(call: ReturnType<typeof gateway>, token: string, n: number, ip?: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) out.push((await call("/x", { headers: bearer(token), ip: ip ?? uniqueIp() })).status);
  return out;
}

describe("HS256", () => {
  const call = gateway(rules(hsJwt), vars);

  it("gives each verified user a counter of their own, whatever their address", async () => {
    const [alice, bob] = [newUser(), newUser()];
    expect(await statuses(call, await hs256(claims(alice)), 3)).toEqual([200, 200, 429]);
    expect(await statuses(call, await hs256(claims(bob)), 3)).toEqual([200, 200, 429]);
  });

  it("keys on a number claim as its text", async () => {
    const sub = Math.floor(Math.random() * 1e9);
    expect(await statuses(call, await hs256(claims(sub)), 3)).toEqual([200, 200, 429]);
    expect(await statuses(call, await hs256(claims(String(sub))), 1)).toEqual([429]);
  });

  it("gives no value for a token that does not verify: the victim's counter is untouched", async () => {
    const victim = newUser();
    const hour = 3600;
    const now = Math.floor(Date.now() / 1000);
    const good = await hs256(claims(victim));
    const [head, body] = good.split(".");
    const bad = [
      ["forged signature", `${head}.${body}.${good.split(".")[2].replace(/^./, (c) => (c === "A" ? "B" : "A"))}`],
      ["another secret", await hs256(claims(victim), "another secret of thirty-two bytes, not the rules' one")],
      ["expired", await hs256(claims(victim, { exp: now - hour }))],
      ["not yet valid", await hs256(claims(victim, { nbf: now + hour }))],
      ["exp not a number", await hs256(claims(victim, { exp: "never" }))],
      ["another issuer", await hs256(claims(victim, { iss: "https://evil.test" }))],
      ["another audience", await hs256(claims(victim, { aud: "someone-else" }))],
      ["no audience", await hs256(claims(victim, { aud: undefined }))],
      ["alg none", unsigned(claims(victim))],
      ["alg none with the real signature", unsigned(claims(victim), good.split(".")[2])],
      ["alg None", `${btoa('{"alg":"None"}').replace(/=+$/, "")}.${body}.`],
      ["alg HS384", await hs256(claims(victim), SECRET, { alg: "HS384" })],
      ["crit", await hs256(claims(victim), SECRET, { crit: ["exp"] })],
      ["garbage", "not.a.token"],
      ["four parts", `${good}.x`],
      ["payload not JSON", `${head}.${btoa("{sub:").replace(/=+$/, "")}.${good.split(".")[2]}`],
      ["huge", await hs256(claims(victim, { pad: "x".repeat(9000) }))],
    ] as const;
    for (const [what, token] of bad) expect(await statuses(call, token, 3), what).toEqual([200, 200, 200]);
    // Another scheme, or no scheme: no token either (two tokens are a 400: test/identity/one-reading.test.ts).
    for (const authorization of [`Basic ${good}`, good]) {
      for (let i = 0; i < 3; i += 1) expect((await call("/x", { headers: { authorization }, ip: uniqueIp() })).status, authorization).toBe(200);
    }
    expect(await statuses(call, good, 3)).toEqual([200, 200, 429]);
  });

  it("limits a request whose token does not verify by its address", async () => {
    const byAddress = gateway(rules(hsJwt, 3), vars);
    const ip = uniqueIp();
    const forged = await hs256(claims(newUser()), "another secret of thirty-two bytes, not the rules' one");
    expect(await statuses(byAddress, forged, 4, ip)).toEqual([200, 200, 200, 429]);
  });

  it("verifies nothing when the named secret is not set", async () => {
    const unset = gateway(rules({ ...hsJwt, secret: "JWT_UNSET_SECRET" }), vars);
    expect(await statuses(unset, await hs256(claims(newUser())), 3)).toEqual([200, 200, 200]);
  });

  it("reads the token from a cookie when told to", async () => {
    const byCookie = gateway(rules({ ...hsJwt, cookie: "session" }), vars);
    const token = await hs256(claims(newUser()));
    const send = async (cookie: string) => (await byCookie("/x", { headers: { cookie }, ip: uniqueIp() })).status;
    expect([await send(`a=1; session=${token}`), await send(`session=${token}`), await send(`session=${token}`)]).toEqual([200, 200, 429]);
    // The Authorization header is not where this domain looks; two different session cookies are a 400.
    const other = await hs256(claims(newUser()));
    expect(await statuses(byCookie, token, 2)).toEqual([200, 200]);
    expect([await send(`session=${other}; session=${token}`), await send(`session=${token}; session=${other}`)]).toEqual([400, 400]);
  });
});

describe("RS256 and ES256 with inline keys", async () => {
  const rs = await newSigner("RS256", "rs-1");
  const es = await newSigner("ES256", "es-1");
  const stranger = await newSigner("RS256", "rs-1");
  const call = gateway(rules({ jwks: { keys: [rs.jwk, es.jwk] }, issuer: ISSUER, audience: AUDIENCE, secret: "JWT_TEST_SECRET" }), vars);

  it("gives each user a counter of their own with either kind of key", async () => {
    expect(await statuses(call, await signed(rs, claims(newUser())), 3)).toEqual([200, 200, 429]);
    expect(await statuses(call, await signed(es, claims(newUser())), 3)).toEqual([200, 200, 429]);
    // Without a kid, any key of the token's kind is tried.
    expect(await statuses(call, await signed(es, claims(newUser()), { kid: undefined }), 3)).toEqual([200, 200, 429]);
  });

  it("refuses another signer's key, a kid of no key, a key of the other kind and HS256 keyed with a public key", async () => {
    const victim = newUser();
    const bad = [
      ["another signer, same kid", await signed(stranger, claims(victim))],
      ["kid of no key", await signed(rs, claims(victim), { kid: "rs-2" })],
      ["kid of the EC key on an RS256 token", await signed(rs, claims(victim), { kid: "es-1" })],
      ["ES256 named as RS256", (await signed(es, claims(victim), { alg: "RS256" })).replace(/^/, "")],
      ["expired", await signed(es, claims(victim, { exp: 1 }))],
      ...(await confused(rs, claims(victim))).map((token, i) => [`HS256 keyed with the RSA public key (${i})`, token] as const),
      ...(await confused(es, claims(victim))).map((token, i) => [`HS256 keyed with the EC public key (${i})`, token] as const),
    ] as const;
    for (const [what, token] of bad) expect(await statuses(call, token, 3), what).toEqual([200, 200, 200]);
    expect(await statuses(call, await signed(rs, claims(victim)), 3)).toEqual([200, 200, 429]);
  });

  it("refuses HS256 outright when the rules name no secret", async () => {
    const publicOnly = gateway(rules({ jwks: { keys: [rs.jwk] } }), vars);
    const victim = newUser();
    for (const token of [await hs256(claims(victim)), ...(await confused(rs, claims(victim)))])
      expect(await statuses(publicOnly, token, 3)).toEqual([200, 200, 200]);
    expect(await statuses(publicOnly, await signed(rs, claims(victim)), 3)).toEqual([200, 200, 429]);
  });
});

describe("plans", () => {
  // Envoy nesting: the plan claim picks the branch, the user claim the counter in it.
  const call = gateway(
    {
      domain: "api",
      jwt: hsJwt,
      descriptors: [
        { key: "plan", value: "free", descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 2 } }] },
        { key: "plan", value: "pro", descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 5 } }] },
        { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 3 } },
      ],
      routes: [
        {
          match: { path: "/*" },
          descriptors: [
            [
              { key: "plan", jwt_claim: "plan" },
              { key: "user", jwt_claim: "sub" },
            ],
            [{ key: "remote_address" }],
          ],
        },
      ],
    },
    vars,
  );

  it("limits each user by their plan's nested limit", async () => {
    expect(await statuses(call, await hs256(claims(newUser(), { plan: "free" })), 3)).toEqual([200, 200, 429]);
    expect(await statuses(call, await hs256(claims(newUser(), { plan: "pro" })), 6)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("gives a plan that is not a string or number, or a forged plan, no value: the address limit applies", async () => {
    const ip = uniqueIp();
    expect(await statuses(call, await hs256(claims(newUser(), { plan: ["pro"] })), 3, ip)).toEqual([200, 200, 200]);
    expect(await statuses(call, await hs256(claims(newUser(), { plan: "pro" }), "another secret of thirty-two bytes, not the rules' one"), 1, ip)).toEqual([
      429,
    ]);
  });
});
