/**
 * The token a request carries where a domain's `jwt` says (docs/rules.md,
 * "Verified identity (jwt)"): the Bearer credential of `Authorization`, the
 * whole value of another header, or a cookie. Anything ambiguous or too long
 * is no token: the request is then limited as one without.
 */
import { JWT_BOUNDS } from "../rules/index.ts";
import type { JwtOptions } from "../rules/types.ts";

const BEARER = /^Bearer +(\S+)$/i;

/**
 * The token of `headers` under `place`, or undefined.
 *
 * @example
 * requestToken(new Headers({ authorization: "Bearer eyJ..." }), { kind: "header", name: "authorization" }); // "eyJ..."
 * requestToken(new Headers({ cookie: "session=eyJ..." }), { kind: "cookie", name: "session" });          // "eyJ..."
 */
export function requestToken(headers: Headers, place: JwtOptions["token"]): string | undefined {
  const token = place.kind === "cookie" ? cookieToken(headers.get("cookie"), place.name) : headerToken(headers.get(place.name), place.name);
  return token !== undefined && token.length > 0 && token.length <= JWT_BOUNDS.maxTokenChars ? token : undefined;
}

// Copies of a header arrive joined by ", ": no token then, as no token holds a space.
function headerToken(value: string | null, name: string): string | undefined {
  if (value === null || value.length > JWT_BOUNDS.maxTokenChars + 16) return undefined;
  const text = value.trim();
  if (name === "authorization") return BEARER.exec(text)?.[1];
  return /\s|,/.test(text) ? undefined : text;
}

// The one cookie named `name`; sent more than once with different values, none (which one the origin reads is unknown).
function cookieToken(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  let found: string | undefined;
  for (const part of header.split(/[;,]/)) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (found !== undefined && found !== value) return undefined;
    found = value;
  }
  return found;
}
