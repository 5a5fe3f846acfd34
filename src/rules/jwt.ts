/**
 * A domain's `jwt` (docs/rules.md, "Verified identity (jwt)"): where a token
 * is and the keys that verify it, read once with every error. The keys decide
 * the algorithm family: a secret only ever verifies HS256, a JWK only the
 * algorithm of its type (RS256 for RSA, ES256 for EC P-256), so a token can
 * never pick how it is checked.
 */
import { readString } from "./fields.ts";
import { JWT_ALGORITHMS, JWT_BOUNDS } from "./keys.ts";
import { asArray, asObject, checkKeys, type Diagnostics, indexPath, type JsonObject, jsonType, keyPath } from "./reader.ts";
import { readJwk } from "./jwk.ts";
import type { JwtAlgorithm, JwtOptions, PublicJwk } from "./types.ts";

// RFC 9110 `token`: the syntax of a header name.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A Worker secret or var name as wrangler takes it.
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Read `obj.jwt` at `path` (a domain document); undefined when absent or invalid (errors recorded).
 *
 * @example
 * readJwt(d, { jwt: { secret: "JWT_SECRET", issuer: "https://auth.example" } }, "$");
 * // { token: { kind: "header", name: "authorization" }, secret: "JWT_SECRET", issuer: ..., algorithms: ["HS256"], kept: {} }
 */
export function readJwt(d: Diagnostics, doc: JsonObject, path: string): JwtOptions | undefined {
  if (!Object.hasOwn(doc, "jwt")) return undefined;
  const at = keyPath(path, "jwt");
  const obj = asObject(d, doc.jwt, at);
  if (obj === undefined) return undefined;
  const before = d.errors.length;
  checkKeys(d, obj, at, "jwt");
  const token = readTokenPlace(d, obj, at);
  const secret = readString(d, obj, "secret", at);
  if (secret !== undefined && !ENV_NAME.test(secret)) {
    d.add(
      keyPath(at, "secret"),
      `${JSON.stringify(secret)} is not a Worker secret name (letters, digits and _, not starting with a digit); the secret itself never goes in the rules`,
    );
  }
  const jwks = Object.hasOwn(obj, "jwks") ? readJwks(d, obj.jwks, keyPath(at, "jwks")) : undefined;
  const jwksUrl = readJwksUrl(d, obj, at);
  if (jwks !== undefined && jwksUrl !== undefined) d.add(at, 'set "jwks" or "jwks_url", not both');
  if (!["secret", "jwks", "jwks_url"].some((key) => Object.hasOwn(obj, key))) {
    d.add(at, 'no keys: set "secret" (the name of a Worker secret, for HS256), "jwks" or "jwks_url" (public keys, for RS256 and ES256)');
  }
  const issuer = readString(d, obj, "issuer", at);
  const audience = readAudience(d, obj, at);
  const hasSecret = Object.hasOwn(obj, "secret");
  const hasPublic = Object.hasOwn(obj, "jwks") || Object.hasOwn(obj, "jwks_url");
  const algorithms = readAlgorithms(d, obj, at, hasSecret, hasPublic);
  if (d.errors.length > before || token === undefined) return undefined;
  const options = {
    token,
    ...(secret !== undefined ? { secret } : {}),
    ...(jwks !== undefined ? { jwks } : {}),
    ...(jwksUrl !== undefined ? { jwksUrl } : {}),
    ...(issuer !== undefined ? { issuer } : {}),
    ...(audience !== undefined ? { audience } : {}),
    algorithms,
  };
  // What src/identity/ keeps of it, not enumerable: not part of the rules' shape.
  Object.defineProperty(options, "kept", { value: {}, enumerable: false });
  return Object.freeze(options) as JwtOptions;
}

function readTokenPlace(d: Diagnostics, obj: JsonObject, at: string): JwtOptions["token"] | undefined {
  if (Object.hasOwn(obj, "header") && Object.hasOwn(obj, "cookie")) {
    d.add(at, 'set "header" or "cookie", not both');
    return undefined;
  }
  const cookie = readString(d, obj, "cookie", at);
  if (cookie !== undefined) return Object.freeze({ kind: "cookie", name: cookie });
  const header = readString(d, obj, "header", at);
  if (header === undefined) return Object.hasOwn(obj, "header") || Object.hasOwn(obj, "cookie") ? undefined : { kind: "header", name: "authorization" };
  if (!TOKEN.test(header)) {
    d.add(keyPath(at, "header"), `${JSON.stringify(header)} is not a valid header name`);
    return undefined;
  }
  return Object.freeze({ kind: "header", name: header.toLowerCase() });
}

function readJwks(d: Diagnostics, value: unknown, at: string): readonly PublicJwk[] | undefined {
  const obj = asObject(d, value, at);
  if (obj === undefined) return undefined;
  checkKeys(d, obj, at, "jwks");
  if (!Object.hasOwn(obj, "keys")) {
    d.add(at, 'missing required key "keys"');
    return undefined;
  }
  const list = asArray(d, obj.keys, keyPath(at, "keys"));
  if (list === undefined) return undefined;
  if (list.length === 0 || list.length > JWT_BOUNDS.maxKeys) d.add(keyPath(at, "keys"), `expected 1 to ${JWT_BOUNDS.maxKeys} keys, got ${list.length}`);
  const keys: PublicJwk[] = [];
  const kids = new Map<string, string>();
  list.forEach((item, i) => {
    const path = indexPath(keyPath(at, "keys"), i);
    const key = readJwk(d, item, path);
    if (key === undefined) return;
    const kid = key.kid;
    if (kid !== undefined) {
      const first = kids.get(kid);
      if (first !== undefined) d.add(keyPath(path, "kid"), `duplicate kid "${kid}" (already at ${first})`);
      kids.set(kid, path);
    }
    keys.push(key);
  });
  return Object.freeze(keys);
}

function readJwksUrl(d: Diagnostics, obj: JsonObject, at: string): string | undefined {
  const text = readString(d, obj, "jwks_url", at);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    d.add(keyPath(at, "jwks_url"), `${JSON.stringify(text)} is not a URL`);
    return undefined;
  }
  // Keys fetched in the clear could be swapped on the way: https, but for this machine (wrangler dev, tests).
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(url.hostname))) {
    d.add(keyPath(at, "jwks_url"), `must be an https:// URL (http:// only to localhost), got ${JSON.stringify(text)}`);
    return undefined;
  }
  return url.href;
}

function readAudience(d: Diagnostics, obj: JsonObject, at: string): readonly string[] | undefined {
  if (!Object.hasOwn(obj, "audience")) return undefined;
  const value = obj.audience;
  const path = keyPath(at, "audience");
  if (typeof value === "string") return value === "" ? void d.add(path, "must be a non-empty string") : Object.freeze([value]);
  if (!Array.isArray(value) || value.length === 0) {
    d.add(path, `expected a string or a non-empty array of strings, got ${Array.isArray(value) ? "an empty array" : jsonType(value)}`);
    return undefined;
  }
  value.forEach((item, i) => {
    if (typeof item !== "string" || item === "") d.add(indexPath(path, i), `expected a non-empty string, got ${jsonType(item)}`);
  });
  return Object.freeze([...value] as string[]);
}

function readAlgorithms(d: Diagnostics, obj: JsonObject, at: string, hasSecret: boolean, hasPublic: boolean): readonly JwtAlgorithm[] {
  const fitting: JwtAlgorithm[] = [...(hasSecret ? (["HS256"] as const) : []), ...(hasPublic ? (["RS256", "ES256"] as const) : [])];
  if (!Object.hasOwn(obj, "algorithms")) return Object.freeze(fitting);
  const path = keyPath(at, "algorithms");
  const list = asArray(d, obj.algorithms, path);
  if (list === undefined) return fitting;
  if (list.length === 0) d.add(path, 'must not be empty (omit "algorithms" to accept every algorithm the keys allow)');
  const algorithms: JwtAlgorithm[] = [];
  list.forEach((item, i) => {
    const where = indexPath(path, i);
    const known = JWT_ALGORITHMS.find((a) => a === item);
    if (typeof item === "string" && item.toLowerCase() === "none") d.add(where, '"none" is never accepted: an unsigned token proves nothing');
    else if (known === undefined) d.add(where, `unknown algorithm ${JSON.stringify(item)} (expected one of: ${JWT_ALGORITHMS.join(", ")})`);
    else if (known === "HS256" && !hasSecret) d.add(where, '"HS256" needs "secret" (an HS256 token is never checked against a public key)');
    else if (known !== "HS256" && !hasPublic) d.add(where, `${JSON.stringify(known)} needs public keys ("jwks" or "jwks_url")`);
    else algorithms.push(known);
  });
  return Object.freeze(algorithms);
}

/**
 * Record every route entry of `doc.routes` that reads a `jwt_claim` when the domain has no `jwt`;
 * true when some entry reads one.
 *
 * @example
 * claimEntries(d, { routes: [{ match: {}, descriptors: [[{ key: "user", jwt_claim: "sub" }]] }] }, "$", false);
 * // true; error at $.routes[0].descriptors[0][0].jwt_claim: "jwt_claim" needs a "jwt" ...
 */
export function claimEntries(d: Diagnostics, doc: JsonObject, path: string, hasJwt: boolean): boolean {
  let reads = false;
  const routes = Array.isArray(doc.routes) ? doc.routes : [];
  routes.forEach((route, r) => {
    const descriptors = isObject(route) && Array.isArray(route.descriptors) ? route.descriptors : [];
    descriptors.forEach((descriptor, i) => {
      if (!Array.isArray(descriptor)) return;
      descriptor.forEach((entry, j) => {
        if (!isObject(entry) || !Object.hasOwn(entry, "jwt_claim")) return;
        reads = true;
        const at = keyPath(indexPath(indexPath(keyPath(indexPath(keyPath(path, "routes"), r), "descriptors"), i), j), "jwt_claim");
        if (!hasJwt) d.add(at, '"jwt_claim" needs a "jwt" object at the top level of the domain document (how tokens are verified)');
      });
    });
  });
  return reads;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
