/**
 * Verify a parsed token (docs/rules.md, "Verified identity (jwt)"): its
 * `alg` must be one the domain accepts, and the key that checks it is one
 * whose type is that algorithm's (an HS256 token is checked only with the
 * secret, never with a public key's bytes); a token with a `kid` only with
 * the key of that `kid`, or with a key that has none (the HS256 secret: its
 * issuer may name it with any `kid`). Then `exp`, `nbf` (30 s of leeway), `iss` and
 * `aud`. Pure but for WebCrypto: the time is passed in.
 */
import { JWT_BOUNDS } from "../rules/index.ts";
import type { JwtOptions } from "../rules/types.ts";
import type { ImportedKey } from "./jwk-import.ts";
import type { ParsedToken } from "./parse.ts";

const VERIFY: Record<ImportedKey["alg"], string | { readonly name: string; readonly hash: string }> = {
  HS256: "HMAC",
  RS256: "RSASSA-PKCS1-v1_5",
  ES256: { name: "ECDSA", hash: "SHA-256" },
};

/**
 * The claims of `token` when its signature and claims hold at `nowMs`, else undefined.
 *
 * @example
 * const claims = await verifyToken(parseToken(text), keys, domain.jwt, Date.now());
 * claims?.sub; // the verified subject
 */
export async function verifyToken(
  token: ParsedToken,
  keys: readonly ImportedKey[],
  options: Pick<JwtOptions, "algorithms" | "issuer" | "audience">,
  nowMs: number,
): Promise<Readonly<Record<string, unknown>> | undefined> {
  const { header, payload } = token;
  const alg = options.algorithms.find((a) => a === header.alg);
  // Extensions the token says must be understood are not: RFC 7515, section 4.1.11.
  if (alg === undefined || header.crit !== undefined) return undefined;
  if (header.kid !== undefined && typeof header.kid !== "string") return undefined;
  if (!claimsHold(payload, options, nowMs)) return undefined;
  const candidates = keys.filter((k) => k.alg === alg && (header.kid === undefined || k.kid === undefined || k.kid === header.kid));
  // An ES256 signature is r‖s, 64 bytes (RFC 7518, section 3.4), as WebCrypto takes it.
  if (alg === "ES256" && token.signature.length !== 64) return undefined;
  for (const candidate of candidates) {
    try {
      if (await crypto.subtle.verify(VERIFY[alg], candidate.key, token.signature, token.signed)) return payload;
    } catch {
      // A signature WebCrypto cannot read verifies nothing.
    }
  }
  return undefined;
}

/**
 * Whether `payload`'s time, issuer and audience claims allow it at `nowMs`.
 *
 * @example
 * claimsHold({ exp: 1 }, { algorithms: ["HS256"] }, Date.now()); // false: expired
 */
export function claimsHold(payload: Readonly<Record<string, unknown>>, options: Pick<JwtOptions, "issuer" | "audience">, nowMs: number): boolean {
  const now = nowMs / 1000;
  const leeway = JWT_BOUNDS.leewaySeconds;
  const { exp, nbf, iss, aud } = payload;
  if (exp !== undefined && (typeof exp !== "number" || !Number.isFinite(exp) || now >= exp + leeway)) return false;
  if (nbf !== undefined && (typeof nbf !== "number" || !Number.isFinite(nbf) || now + leeway < nbf)) return false;
  if (options.issuer !== undefined && iss !== options.issuer) return false;
  if (options.audience !== undefined) {
    const named = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
    if (!named.some((a) => typeof a === "string" && options.audience?.includes(a))) return false;
  }
  return true;
}

/**
 * The claims a descriptor can key on: top-level strings (not empty) and finite numbers, as text.
 *
 * @example
 * scalarClaims({ sub: "u1", plan: "pro", n: 7, roles: ["a"] }); // Map { sub → "u1", plan → "pro", n → "7" }
 */
export function scalarClaims(payload: Readonly<Record<string, unknown>>): ReadonlyMap<string, string> {
  const claims = new Map<string, string>();
  for (const [name, value] of Object.entries(payload)) {
    if (typeof value === "string" && value !== "") claims.set(name, value);
    else if (typeof value === "number" && Number.isFinite(value)) claims.set(name, String(value));
  }
  return claims;
}
