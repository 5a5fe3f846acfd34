/**
 * One public key of `jwt.jwks` (RFC 7517), checked for what WebCrypto will
 * need: an RSA key (RS256) or an EC P-256 key (ES256), public members only.
 * Shared secrets (`oct`) are refused: an HS256 secret lives in a Worker
 * secret, and a JWK never verifies HS256 (docs/rules.md, "Verified identity (jwt)").
 */
import { asObject, checkKeys, type Diagnostics, keyPath } from "./reader.ts";
import type { PublicJwk } from "./types.ts";

const BASE64URL = /^[A-Za-z0-9_-]+$/;
// 2048 bits of modulus are 256 bytes: 342 base64url characters, unpadded.
const MIN_RSA_CHARS = 342;
// A P-256 coordinate is 32 bytes: 43 base64url characters.
const P256_COORDINATE_CHARS = 43;
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/**
 * The key at `path`, its members as given, or undefined (errors recorded).
 *
 * @example
 * readJwk(d, { kty: "EC", crv: "P-256", x: "…43 chars…", y: "…43 chars…", kid: "k1" }, "$.jwt.jwks.keys[0]");
 */
export function readJwk(d: Diagnostics, value: unknown, path: string): PublicJwk | undefined {
  const obj = asObject(d, value, path);
  if (obj === undefined) return undefined;
  const before = d.errors.length;
  const secret = PRIVATE_MEMBERS.filter((m) => Object.hasOwn(obj, m));
  if (secret.length > 0) {
    d.add(path, `a private or secret key (it has ${secret.map((m) => `"${m}"`).join(", ")}): give only the public key`);
    return undefined;
  }
  checkKeys(d, obj, path, "jwk");
  const strings: Record<string, string> = {};
  for (const [member, given] of Object.entries(obj)) {
    if (member === "x5c" || member === "key_ops") continue;
    if (typeof given === "string" && given !== "") strings[member] = given;
    else {
      d.add(keyPath(path, member), "must be a non-empty string");
      // "" marks a member already reported, so the checks below say nothing more of it.
      strings[member] = "";
    }
  }
  const kty = strings.kty;
  if (!Object.hasOwn(obj, "kty")) d.add(path, 'missing required key "kty"');
  else if (kty === "RSA") readRsa(d, strings, path);
  else if (kty === "EC") readEc(d, strings, path);
  else if (kty === "oct") d.add(keyPath(path, "kty"), '"oct" keys are shared secrets: name a Worker secret in "jwt.secret" for HS256 instead');
  else if (kty !== "") d.add(keyPath(path, "kty"), `unknown key type ${JSON.stringify(kty)} (expected "RSA" or "EC")`);
  const fits = kty === "RSA" ? "RS256" : "ES256";
  if (strings.alg && (kty === "RSA" || kty === "EC") && strings.alg !== fits) {
    d.add(keyPath(path, "alg"), `an ${kty} key verifies only ${fits}, got ${JSON.stringify(strings.alg)}`);
  }
  if (strings.use && strings.use !== "sig") d.add(keyPath(path, "use"), `a verifying key has "use": "sig", got ${JSON.stringify(strings.use)}`);
  if (d.errors.length > before) return undefined;
  const { x5c: _chain, key_ops: _ops, ...kept } = obj;
  return Object.freeze(kept as Record<string, string>);
}

function readRsa(d: Diagnostics, key: Record<string, string>, path: string): void {
  for (const member of ["crv", "x", "y"]) if (Object.hasOwn(key, member)) d.add(keyPath(path, member), `an RSA key has no "${member}"`);
  for (const member of ["n", "e"]) base64url(d, key, member, path);
  if (key.n !== undefined && BASE64URL.test(key.n) && key.n.length < MIN_RSA_CHARS) d.add(keyPath(path, "n"), "an RSA key under 2048 bits");
}

function readEc(d: Diagnostics, key: Record<string, string>, path: string): void {
  for (const member of ["n", "e"]) if (Object.hasOwn(key, member)) d.add(keyPath(path, member), `an EC key has no "${member}"`);
  if (key.crv === undefined) d.add(path, 'missing required key "crv"');
  else if (key.crv !== "P-256" && key.crv !== "") d.add(keyPath(path, "crv"), `only the P-256 curve is supported (ES256), got ${JSON.stringify(key.crv)}`);
  for (const member of ["x", "y"]) {
    if (base64url(d, key, member, path) && key[member].length !== P256_COORDINATE_CHARS) {
      d.add(keyPath(path, member), `a P-256 coordinate is ${P256_COORDINATE_CHARS} base64url characters, got ${key[member].length}`);
    }
  }
}

function base64url(d: Diagnostics, key: Record<string, string>, member: string, path: string): boolean {
  const value = key[member];
  if (value === undefined) d.add(path, `missing required key "${member}"`);
  if (value === undefined || value === "") return false;
  if (!BASE64URL.test(value)) {
    d.add(keyPath(path, member), "must be base64url (A-Z, a-z, 0-9, - and _, unpadded)");
    return false;
  }
  return true;
}
