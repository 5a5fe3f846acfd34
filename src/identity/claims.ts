/**
 * A request's verified claims under each domain's `jwt` (docs/rules.md,
 * "Verified identity (jwt)"), for the descriptors' `jwt_claim` entries.
 * Only the domains whose route matching the request reads a claim look for
 * a token (src/request/descriptors.ts, claimDomains): another domain's slow
 * JWKS never holds a request up. A request without one costs nothing more,
 * and a token is verified at most once per request and domain (kept with
 * the request, in the verifier's holder). A token that does not verify, for
 * any reason, is no token: never an error, never a value the client chose.
 * A token the origin could read two ways is an error (AmbiguousTokenError,
 * src/identity/token.ts): the request is refused with a 400.
 */
import type { CompiledDomain, CompiledRules, DuplicateValues, JwtOptions } from "../rules/types.ts";
import { type ImportedKey, importJwks, importSecret } from "./jwk-import.ts";
import { jwksKeys } from "./jwks-cache.ts";
import { keptOf } from "./kept.ts";
import { parseToken } from "./parse.ts";
import { requestToken } from "./token.ts";

export { AmbiguousTokenError } from "./token.ts";
import { scalarClaims, verifyToken } from "./verify.ts";

/** Each domain's verified claims, as the descriptors read them (src/request/descriptors.ts, MappingOptions.claims). */
export type DomainClaims = (domain: CompiledDomain) => ReadonlyMap<string, string> | undefined;

/**
 * Whether some domain of `rules` reads a claim: only then need a request's token be looked for.
 *
 * @example
 * if (readsClaims(rules)) options = { ...options, claims: await requestClaims(rules, request, env, Date.now()) };
 */
export function readsClaims(rules: CompiledRules): boolean {
  for (const domain of rules.domains.values()) if (domain.readsClaims && domain.jwt !== undefined) return true;
  return false;
}

/**
 * Whether `request` carries anything where some claim-reading domain of
 * `rules` looks for a token: when not (most requests), nothing more is done
 * for identity, not even the route match that picks the domains to verify.
 *
 * @example
 * if (readsClaims(rules) && mayCarryToken(rules, request.headers)) domains = claimDomains(rules, request);
 */
export function mayCarryToken(rules: CompiledRules, headers: Headers): boolean {
  for (const domain of rules.domains.values()) {
    if (!domain.readsClaims || domain.jwt === undefined) continue;
    const place = domain.jwt.token;
    if (place.kind === "cookie" ? headers.has("cookie") : headers.has(place.name) || headers.has(place.name.replaceAll("-", "_"))) return true;
  }
  return false;
}

/**
 * The verified claims of `request` for each of `domains` (by default every
 * domain of `rules` that reads a claim); `env` holds the HS256 secrets the
 * rules name. Rejects with AmbiguousTokenError for a token the origin could
 * read two ways.
 *
 * @example
 * const claims = await requestClaims(rules, request, env, Date.now(), claimDomains(rules, request));
 * claims(rules.domains.get("api"))?.get("sub"); // "user-42", or undefined
 */
export async function requestClaims(
  rules: CompiledRules,
  request: Request,
  env: object,
  nowMs: number,
  domains: Iterable<CompiledDomain> = rules.domains.values(),
): Promise<DomainClaims> {
  const found = new Map<CompiledDomain, ReadonlyMap<string, string>>();
  for (const domain of domains) {
    if (!domain.readsClaims || domain.jwt === undefined) continue;
    const kept = keptOf(domain.jwt);
    const byRequest = (kept.byRequest ??= new WeakMap());
    let claims = byRequest.get(request);
    if (claims === undefined) {
      claims = verifiedClaims(domain.jwt, domain.duplicateValues, request, env, nowMs);
      byRequest.set(request, claims);
    }
    const verified = await claims;
    if (verified !== undefined) found.set(domain, verified);
  }
  return (domain) => found.get(domain);
}

async function verifiedClaims(
  options: JwtOptions,
  duplicates: DuplicateValues,
  request: Request,
  env: object,
  nowMs: number,
): Promise<ReadonlyMap<string, string> | undefined> {
  const text = requestToken(request.headers, options.token, duplicates);
  if (text === undefined) return undefined;
  const token = parseToken(text);
  if (token === undefined) return undefined;
  const kid = typeof token.header.kid === "string" ? token.header.kid : undefined;
  const keys = await keysFor(options, env, nowMs, token.header.alg, kid);
  const payload = await verifyToken(token, keys, options, nowMs);
  return payload === undefined ? undefined : scalarClaims(payload);
}

// Only the keys of the token's algorithm are made: a HS256 token never costs a JWKS fetch, nor an RS256 one the secret.
async function keysFor(options: JwtOptions, env: object, nowMs: number, alg: unknown, kid: string | undefined): Promise<readonly ImportedKey[]> {
  if (!options.algorithms.some((a) => a === alg)) return [];
  const kept = keptOf(options);
  if (alg === "HS256") {
    const name = options.secret;
    const text = name === undefined ? undefined : (env as Record<string, unknown>)[name];
    if (typeof text !== "string") return warnOnce(options, `the secret ${name} the rules' jwt names is not set: no HS256 token verifies`);
    if (kept.hmac?.text !== text) {
      const key = await importSecret(text);
      if (key === undefined) return warnOnce(options, `the secret ${name} is shorter than 32 bytes: no HS256 token verifies`);
      kept.hmac = { text, key: key.key };
    }
    return [{ alg: "HS256", key: kept.hmac.key }];
  }
  if (options.jwks !== undefined) return (kept.inline ??= await importJwks(options.jwks));
  if (options.jwksUrl !== undefined) return jwksKeys((kept.jwks ??= {}), options.jwksUrl, nowMs, kid);
  return [];
}

function warnOnce(options: JwtOptions, message: string): [] {
  const kept = keptOf(options);
  if (kept.secretWarned === undefined) {
    kept.secretWarned = true;
    console.error(`floodgate: ${message}`);
  }
  return [];
}
