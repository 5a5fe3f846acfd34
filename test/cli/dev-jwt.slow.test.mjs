// Verified identity against `wrangler dev` (docs/rules.md, "Verified identity (jwt)"):
// rules uploaded through the admin API key a limit on the `sub` of an HS256 token
// whose secret is a Worker var; a verified token reaches its own counter, while a
// forged, expired or `alg: none` token naming the same `sub` does not (it is
// limited by address only). An HS256 token naming a `kid` verifies; a request
// to one domain fetches no keys of another whose matched route reads no claim.
// Breaks tried (each alone, against this file): a cookie sent twice with different
// values read as no token (src/identity/token.ts), Bearer and a tab read as no token,
// two Authorization headers read as no token: "one reading of identity" failed each
// time; verifyToken trying only keys of the token's kid (src/identity/verify.ts): the
// kid test failed; claimDomains keeping every domain with jwt whatever the route
// (src/request/descriptors.ts): the JWKS test failed.
//   ./node_modules/.bin/node --test test/cli/dev-jwt.slow.test.mjs
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { startDev, putRules } from "../browser/dev-server.mjs";

const ADMIN_TOKEN = "dev-jwt-admin-token-of-at-least-32-characters";
const SECRET = "a dev test secret of thirty-two bytes or more, never a real one";
const ISSUER = "https://auth.dev.test";

const api = {
  domain: "api",
  jwt: { secret: "JWT_SECRET", issuer: ISSUER },
  descriptors: [
    { key: "user", rate_limit: { unit: "minute", requests_per_unit: 2 } },
    { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 1000 } },
  ],
  routes: [{ match: { path: "/api/*" }, descriptors: [[{ key: "user", jwt_claim: "sub" }], [{ key: "remote_address" }]] }],
};
// The same users, their token in a cookie.
const web = {
  ...api,
  domain: "web",
  jwt: { ...api.jwt, cookie: "session" },
  routes: [{ match: { path: "/web/*" }, descriptors: [[{ key: "user", jwt_claim: "sub" }], [{ key: "remote_address" }]] }],
};
// A domain whose keys are served slowly (the finding: a request to another domain waited 5.1 s on them).
const jwks = { fetches: 0, server: undefined };
const partners = (url) => ({
  domain: "partners",
  jwt: { jwks_url: url },
  descriptors: [{ key: "partner", rate_limit: { unit: "minute", requests_per_unit: 2 } }],
  routes: [{ match: { path: "/partners/*" }, descriptors: [[{ key: "partner", jwt_claim: "sub" }]] }],
});

const b64url = (text) => Buffer.from(text).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

function token(payload, { secret = SECRET, alg = "HS256", kid } = {}) {
  const input = `${b64url(JSON.stringify({ alg, typ: "JWT", ...(kid === undefined ? {} : { kid }) }))}.${b64url(JSON.stringify(payload))}`;
  const signature = alg === "none" ? "" : createHmac("sha256", secret).update(input).digest("base64url");
  return `${input}.${signature}`;
}

let dev;
before(async () => {
  jwks.server = createServer((_req, res) => {
    jwks.fetches += 1;
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"keys":[]}'), 2_000);
  });
  await new Promise((resolve) => jwks.server.listen(0, "127.0.0.1", resolve));
  const rules = [api, web, partners(`http://127.0.0.1:${jwks.server.address().port}/jwks`)];
  dev = await startDev({ ADMIN_TOKEN, JWT_SECRET: SECRET });
  await putRules(dev, ADMIN_TOKEN, rules);
});
after(async () => {
  await dev?.stop();
  jwks.server?.close();
});

/** Statuses of `n` requests with `jwt` as the Bearer token, until the uploaded rules are in force. */
async function statuses(jwt, n) {
  const out = [];
  for (let i = 0; i < n; i += 1) out.push((await fetch(`${dev.base}/api/x`, { headers: { authorization: `Bearer ${jwt}` } })).status);
  return out;
}

test("a verified token's sub keys its own counter; forged, expired and alg none tokens do not reach it", async () => {
  // The isolate picks uploaded rules up within its poll: wait until a fresh user is limited at 2.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const probe = await statuses(token({ sub: `probe-${Math.random()}`, iss: ISSUER, exp: now() + 600 }), 3);
    if (probe[2] === 429) break;
    assert.ok(Date.now() < deadline, `the uploaded rules never applied: ${probe}\n${dev.log()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const victim = `victim-${Math.random()}`;
  const claims = { sub: victim, iss: ISSUER, exp: now() + 600 };
  for (const [what, jwt] of [
    ["forged", token(claims, { secret: "another secret of thirty-two bytes, not the Worker's" })],
    ["expired", token({ ...claims, exp: now() - 3600 })],
    ["alg none", token(claims, { alg: "none" })],
  ]) {
    assert.deepEqual(await statuses(jwt, 3), [200, 200, 200], what);
  }
  assert.deepEqual(await statuses(token(claims), 3), [200, 200, 429], "the victim's own counter was untouched");
  assert.deepEqual(await statuses(token({ ...claims, sub: `other-${Math.random()}` }), 3), [200, 200, 429], "another user has a counter of their own");
});

test("one reading of identity: two session cookies, two Authorization headers, or Bearer and a tab are a 400, never a skipped limit", async () => {
  const user = `ambiguous-${Math.random()}`;
  const jwt = token({ sub: user, iss: ISSUER, exp: now() + 600 });
  // The finding: with the token unread, the per-user limit (2 here) was skipped while the origin read the token.
  const twice = new Headers();
  twice.append("authorization", `Bearer ${jwt}`);
  twice.append("authorization", "Bearer x");
  for (const [what, headers] of [
    ["two Authorization headers", twice],
    ["Bearer and a tab", { authorization: `Bearer\t${jwt}` }],
    ["Bearer and two spaces", { authorization: `Bearer  ${jwt}` }],
  ]) {
    const response = await fetch(`${dev.base}/api/x`, { headers });
    assert.equal(response.status, 400, `${what}: ${await response.text()}`);
  }
  assert.deepEqual(await statuses(jwt, 3), [200, 200, 429], "the user's limit holds, unspent by the refused requests");
  // The token in a cookie: `session=<valid>; session=x` was "no token" (3/min: 200 200 200 429 429, then six 200s).
  const cookieJwt = token({ sub: `cookie-${Math.random()}`, iss: ISSUER, exp: now() + 600 });
  const web = async (cookie) => (await fetch(`${dev.base}/web/x`, { headers: { cookie } })).status;
  const seen = [await web(`session=${cookieJwt}`), await web(`session=${cookieJwt}`), await web(`session=${cookieJwt}`)];
  for (let i = 0; i < 3; i += 1) seen.push(await web(`session=${cookieJwt}; session=x`));
  assert.deepEqual(seen, [200, 200, 429, 400, 400, 400]);
});

test("an HS256 token naming a kid verifies with the secret: its sub keys its own counter", async () => {
  // The finding: a token with any kid never verified, so the per-user limit silently stopped (every request 200).
  const claims = { sub: `kid-${Math.random()}`, iss: ISSUER, exp: now() + 600 };
  assert.deepEqual(await statuses(token(claims, { kid: "2026-key-1" }), 3), [200, 200, 429]);
  assert.deepEqual(await statuses(token(claims, { kid: "another-kid" }), 1), [429], "the same sub, whatever the kid");
});

test("a request to one domain fetches no keys of another domain whose matched route reads no claim", async () => {
  // An RS256 token (its signature junk): a domain that reads a claim from it must fetch the partners' keys to check it.
  const jwt = token({ sub: `jwks-${Math.random()}`, iss: ISSUER, exp: now() + 600 }, { alg: "RS256" });
  // "api" takes HS256 only: the token verifies nothing there, and the address limit decides.
  assert.deepEqual(await statuses(jwt, 3), [200, 200, 200]);
  // No request of this file but the one below matches a partners route: any fetch so far was for another domain's request.
  assert.equal(jwks.fetches, 0, "the partners domain's slow keys were fetched for a request to /api/x or /web/x");
  // Its own route does fetch them (so the server is reachable and the count above means something).
  const response = await fetch(`${dev.base}/partners/x`, { headers: { authorization: `Bearer ${jwt}` } });
  await response.arrayBuffer();
  assert.equal(jwks.fetches, 1);
});
