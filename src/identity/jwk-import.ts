/**
 * Public keys and the HS256 secret made into WebCrypto keys. A key's type
 * decides the one algorithm it verifies: an RSA key RS256, an EC P-256 key
 * ES256, a secret HS256 (docs/rules.md, "Verified identity (jwt)"). A key
 * that does not import is left out, never an error of the request.
 */
import type { JwtAlgorithm, PublicJwk } from "../rules/types.ts";

/** A verifying key and the one algorithm it verifies. */
export interface ImportedKey {
  readonly alg: JwtAlgorithm;
  readonly kid?: string;
  readonly key: CryptoKey;
}

const RS256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;
const ES256 = { name: "ECDSA", namedCurve: "P-256" } as const;
/** RFC 7518, section 3.2: an HS256 key of at least the hash's 256 bits. */
export const MIN_SECRET_BYTES = 32;

/**
 * The usable keys of `jwks` (RSA and EC P-256 public keys for signatures), in order; others left out.
 *
 * @example
 * const keys = await importJwks([{ kty: "EC", crv: "P-256", x, y, kid: "k1" }]); // [{ alg: "ES256", kid: "k1", key }]
 */
export async function importJwks(jwks: readonly unknown[]): Promise<ImportedKey[]> {
  const keys = await Promise.all(jwks.map(importJwk));
  return keys.filter((key) => key !== undefined);
}

async function importJwk(given: unknown): Promise<ImportedKey | undefined> {
  if (typeof given !== "object" || given === null) return undefined;
  const jwk = given as PublicJwk;
  if (jwk.use !== undefined && jwk.use !== "sig") return undefined;
  if ("d" in jwk) return undefined;
  const kid = typeof jwk.kid === "string" ? { kid: jwk.kid } : {};
  try {
    // Only the public members go in: a JWK's own "alg" or "key_ops" never widens what it verifies.
    // A modulus under 2048 bits (342 base64url characters) is refused, as in the rules.
    if (jwk.kty === "RSA" && typeof jwk.n === "string" && jwk.n.length >= 342 && (jwk.alg === undefined || jwk.alg === "RS256")) {
      const key = await crypto.subtle.importKey("jwk", { kty: "RSA", n: jwk.n, e: jwk.e }, RS256, false, ["verify"]);
      return { alg: "RS256", ...kid, key };
    }
    if (jwk.kty === "EC" && jwk.crv === "P-256" && (jwk.alg === undefined || jwk.alg === "ES256")) {
      const key = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }, ES256, false, ["verify"]);
      return { alg: "ES256", ...kid, key };
    }
  } catch {
    // A key WebCrypto refuses (a bad modulus, a point off the curve) verifies nothing.
  }
  return undefined;
}

/**
 * The HS256 key of `secret`'s UTF-8 bytes, or undefined when shorter than 32 bytes.
 *
 * @example
 * await importSecret(env.JWT_SECRET); // { alg: "HS256", key }
 */
export async function importSecret(secret: string): Promise<ImportedKey | undefined> {
  const bytes = new TextEncoder().encode(secret);
  if (bytes.length < MIN_SECRET_BYTES) return undefined;
  const key = await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  return { alg: "HS256", key };
}
