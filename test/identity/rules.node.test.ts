/**
 * `jwt` and `jwt_claim` in the rules (docs/rules.md, "Verified identity
 * (jwt)"): every mistake gets its exact error and path, as `rules:check`
 * prints them, and rules.schema.json agrees with the validator.
 */
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { compileRules, JWT_ALGORITHMS, RULE_KEYS } from "../../src/rules/index.ts";
import { validates } from "../rules/mini-schema.ts";

const B = "A".repeat(342);
const C = "B".repeat(43);
const RSA = { kty: "RSA", n: B, e: "AQAB", kid: "r1" };
const EC = { kty: "EC", crv: "P-256", x: C, y: C, kid: "e1" };
const claimRoute = [{ match: { path: "/*" }, descriptors: [[{ key: "user", jwt_claim: "sub" }]] }];
const doc = (jwt: unknown, extra: Record<string, unknown> = {}) => ({ domain: "api", jwt, routes: claimRoute, ...extra });
const errors = (input: unknown) => {
  const result = compileRules(input);
  return result.ok ? [] : result.errors.map((e) => `${e.path}: ${e.message}`);
};

describe("valid jwt", () => {
  it.each([
    ["a secret", { secret: "JWT_SECRET" }],
    ["a secret, issuer, audiences, a cookie", { secret: "JWT_SECRET", issuer: "https://auth.example", audience: ["a", "b"], cookie: "session" }],
    ["inline keys", { jwks: { keys: [RSA, { ...EC, alg: "ES256", use: "sig" }] }, algorithms: ["ES256"] }],
    ["a jwks_url", { jwks_url: "https://auth.example/.well-known/jwks.json", header: "X-Token" }],
    ["a local jwks_url", { jwks_url: "http://127.0.0.1:8787/jwks" }],
  ])("accepts %s, as does the schema", (_name, jwt) => {
    expect(errors(doc(jwt))).toEqual([]);
    expect(validates(schema, doc(jwt))).toBe(true);
  });

  it("reads the header lower-cased, defaults to Authorization, and the algorithms to those the keys allow", () => {
    const result = compileRules([doc({ secret: "S", header: "X-Token" }), { ...doc({ jwks_url: "https://a.example/k" }), domain: "b" }]);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.rules.domains.get("api")?.jwt).toEqual({ token: { kind: "header", name: "x-token" }, secret: "S", algorithms: ["HS256"] });
    expect(result.rules.domains.get("b")?.jwt).toEqual({
      token: { kind: "header", name: "authorization" },
      jwksUrl: "https://a.example/k",
      algorithms: ["RS256", "ES256"],
    });
    expect(result.rules.domains.get("api")?.readsClaims).toBe(true);
  });

  it("lists in the schema exactly the keys and algorithms the validator allows", () => {
    const jwt = (schema as any).$defs.document.properties.jwt;
    expect(Object.keys(jwt.properties)).toEqual(RULE_KEYS.jwt);
    expect(Object.keys(jwt.properties.jwks.properties)).toEqual(RULE_KEYS.jwks);
    expect(Object.keys(jwt.properties.jwks.properties.keys.items.properties)).toEqual(RULE_KEYS.jwk);
    expect(jwt.properties.algorithms.items.enum).toEqual(JWT_ALGORITHMS);
  });
});

describe("invalid jwt", () => {
  it.each([
    [
      "jwt_claim without a jwt",
      { domain: "api", routes: claimRoute },
      ['$.routes[0].descriptors[0][0].jwt_claim: "jwt_claim" needs a "jwt" object at the top level of the domain document (how tokens are verified)'],
    ],
    [
      "an empty jwt_claim",
      doc({ secret: "S" }, { routes: [{ match: {}, descriptors: [[{ key: "user", jwt_claim: "" }]] }] }),
      ["$.routes[0].descriptors[0][0].jwt_claim: must be a non-empty string"],
    ],
    ["jwt not an object", doc("HS256"), ["$.jwt: expected an object, got string"]],
    [
      "no keys",
      doc({ issuer: "x" }),
      ['$.jwt: no keys: set "secret" (the name of a Worker secret, for HS256), "jwks" or "jwks_url" (public keys, for RS256 and ES256)'],
    ],
    ["missing secret name", doc({ secret: "" }), ["$.jwt.secret: must be a non-empty string"]],
    [
      "the secret itself as its name",
      doc({ secret: "s3cr3t-value!" }),
      [
        '$.jwt.secret: "s3cr3t-value!" is not a Worker secret name (letters, digits and _, not starting with a digit); the secret itself never goes in the rules',
      ],
    ],
    [
      "unknown algorithm",
      doc({ secret: "S", algorithms: ["HS512"] }),
      ['$.jwt.algorithms[0]: unknown algorithm "HS512" (expected one of: HS256, RS256, ES256)'],
    ],
    ["alg none", doc({ secret: "S", algorithms: ["HS256", "none"] }), ['$.jwt.algorithms[1]: "none" is never accepted: an unsigned token proves nothing']],
    [
      "HS256 without a secret",
      doc({ jwks: { keys: [RSA] }, algorithms: ["HS256"] }),
      ['$.jwt.algorithms[0]: "HS256" needs "secret" (an HS256 token is never checked against a public key)'],
    ],
    ["RS256 without public keys", doc({ secret: "S", algorithms: ["RS256"] }), ['$.jwt.algorithms[0]: "RS256" needs public keys ("jwks" or "jwks_url")']],
    [
      "empty algorithms",
      doc({ secret: "S", algorithms: [] }),
      ['$.jwt.algorithms: must not be empty (omit "algorithms" to accept every algorithm the keys allow)'],
    ],
    ["header and cookie", doc({ secret: "S", header: "x", cookie: "y" }), ['$.jwt: set "header" or "cookie", not both']],
    ["a bad header name", doc({ secret: "S", header: "x token" }), ['$.jwt.header: "x token" is not a valid header name']],
    ["jwks and jwks_url", doc({ jwks: { keys: [RSA] }, jwks_url: "https://a.example/k" }), ['$.jwt: set "jwks" or "jwks_url", not both']],
    [
      "jwks_url over http",
      doc({ jwks_url: "http://auth.example/k" }),
      ['$.jwt.jwks_url: must be an https:// URL (http:// only to localhost), got "http://auth.example/k"'],
    ],
    ["jwks_url not a URL", doc({ jwks_url: "auth.example" }), ['$.jwt.jwks_url: "auth.example" is not a URL']],
    ["an empty audience list", doc({ secret: "S", audience: [] }), ["$.jwt.audience: expected a string or a non-empty array of strings, got an empty array"]],
    ["a misspelled key", doc({ secret: "S", issuers: "x" }), ['$.jwt.issuers: unknown key "issuers" (did you mean "issuer"?)']],
    [
      "jwks without keys",
      doc({ jwks: { key: [RSA] } }),
      ['$.jwt.jwks.key: unknown key "key" (did you mean "keys"?)', '$.jwt.jwks: missing required key "keys"'],
    ],
    ["no keys in jwks", doc({ jwks: { keys: [] } }), ["$.jwt.jwks.keys: expected 1 to 32 keys, got 0"]],
    [
      "an oct JWK",
      doc({ jwks: { keys: [{ kty: "oct", kid: "h" }] } }),
      ['$.jwt.jwks.keys[0].kty: "oct" keys are shared secrets: name a Worker secret in "jwt.secret" for HS256 instead'],
    ],
    ["a private JWK", doc({ jwks: { keys: [{ ...RSA, d: B }] } }), ['$.jwt.jwks.keys[0]: a private or secret key (it has "d"): give only the public key']],
    ["an unknown key type", doc({ jwks: { keys: [{ kty: "OKP", x: C }] } }), ['$.jwt.jwks.keys[0].kty: unknown key type "OKP" (expected "RSA" or "EC")']],
    ["a JWK without kty", doc({ jwks: { keys: [{ n: B, e: "AQAB" }] } }), ['$.jwt.jwks.keys[0]: missing required key "kty"']],
    ["an RSA key without e", doc({ jwks: { keys: [{ kty: "RSA", n: B }] } }), ['$.jwt.jwks.keys[0]: missing required key "e"']],
    ["a short RSA key", doc({ jwks: { keys: [{ ...RSA, n: "AQAB" }] } }), ["$.jwt.jwks.keys[0].n: an RSA key under 2048 bits"]],
    [
      "an RSA modulus not base64url",
      doc({ jwks: { keys: [{ ...RSA, n: `${B}==` }] } }),
      ["$.jwt.jwks.keys[0].n: must be base64url (A-Z, a-z, 0-9, - and _, unpadded)"],
    ],
    ["another curve", doc({ jwks: { keys: [{ ...EC, crv: "P-384" }] } }), ['$.jwt.jwks.keys[0].crv: only the P-256 curve is supported (ES256), got "P-384"']],
    ["a short coordinate", doc({ jwks: { keys: [{ ...EC, y: "AAAA" }] } }), ["$.jwt.jwks.keys[0].y: a P-256 coordinate is 43 base64url characters, got 4"]],
    [
      "an alg that does not fit the key",
      doc({ jwks: { keys: [{ ...RSA, alg: "HS256" }] } }),
      ['$.jwt.jwks.keys[0].alg: an RSA key verifies only RS256, got "HS256"'],
    ],
    ["an encryption key", doc({ jwks: { keys: [{ ...EC, use: "enc" }] } }), ['$.jwt.jwks.keys[0].use: a verifying key has "use": "sig", got "enc"']],
    ["a duplicate kid", doc({ jwks: { keys: [RSA, { ...EC, kid: "r1" }] } }), ['$.jwt.jwks.keys[1].kid: duplicate kid "r1" (already at $.jwt.jwks.keys[0])']],
    ["a kid not a string", doc({ jwks: { keys: [{ ...RSA, kid: 7 }] } }), ["$.jwt.jwks.keys[0].kid: must be a non-empty string"]],
  ])("refuses %s", (_name, input, expected) => {
    expect(errors(input)).toEqual(expected);
  });

  it.each([
    ["no keys", doc({ issuer: "x" })],
    ["alg none", doc({ secret: "S", algorithms: ["none"] })],
    ["an oct JWK", doc({ jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } })],
    ["a private JWK", doc({ jwks: { keys: [{ ...RSA, d: B }] } })],
    ["jwks_url over http", doc({ jwks_url: "http://auth.example/k" })],
    ["header and cookie", doc({ secret: "S", header: "x", cookie: "y" })],
    ["a short coordinate", doc({ jwks: { keys: [{ ...EC, y: "AAAA" }] } })],
  ])("the schema refuses %s too", (_name, input) => {
    expect(validates(schema, input)).toBe(false);
  });
});
