/**
 * The token a request carries where a domain's `jwt` says (docs/rules.md,
 * "Verified identity (jwt)"), read exactly as the origin reads it: the
 * Bearer credential of `Authorization`, the whole value of another header,
 * or a cookie (unquoted and percent-decoded, as frameworks read cookies).
 * A request the origin could read two ways is refused (AmbiguousTokenError,
 * a 400), never read as "no token": a token the limiter does not see while
 * the origin does would escape every limit keyed on its claims. Two
 * `Authorization` headers, a scheme followed by anything but one space
 * (`Bearer<TAB>t`, which lenient origins accept), a cookie sent twice with
 * different values (unless the domain's `duplicate_values` says which one
 * the origin reads), a header sent under two spellings: all ambiguous.
 * Anything else that is no Bearer credential, or is too long, is no token.
 */
import { JWT_BOUNDS } from "../rules/index.ts";
import type { DuplicateValues, JwtOptions } from "../rules/types.ts";

/**
 * A token the origin could read two ways: the gateway answers 400 with this message.
 *
 * @example
 * new AmbiguousTokenError("The Authorization header is sent more than once; send one.").message;
 */
export class AmbiguousTokenError extends Error {}

const SCHEME = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)([ \t]+)(.*)$/;

/**
 * The token of `headers` under `place`, or undefined; throws AmbiguousTokenError when the origin could read another.
 *
 * @example
 * requestToken(new Headers({ authorization: "Bearer eyJ..." }), { kind: "header", name: "authorization" }); // "eyJ..."
 * requestToken(new Headers({ cookie: "session=eyJ..." }), { kind: "cookie", name: "session" });          // "eyJ..."
 * requestToken(new Headers({ authorization: "Bearer\teyJ..." }), { kind: "header", name: "authorization" }); // throws AmbiguousTokenError
 */
export function requestToken(headers: Headers, place: JwtOptions["token"], duplicates: DuplicateValues = "reject"): string | undefined {
  const token = place.kind === "cookie" ? cookieToken(headers.get("cookie"), place.name, duplicates) : headerToken(headers, place.name);
  return token !== undefined && token.length > 0 && token.length <= JWT_BOUNDS.maxTokenChars ? token : undefined;
}

// Copies of a header arrive joined by ", " (Fetch), and no token holds a comma: a comma is a second header.
function headerToken(headers: Headers, name: string): string | undefined {
  const value = oneSpelling(headers, name);
  if (value === undefined || value.length > JWT_BOUNDS.maxTokenChars + 16) return undefined;
  const text = value.trim();
  if (text.indexOf(",") >= 0) throw new AmbiguousTokenError(`The ${displayName(name)} header is sent more than once; send one.`);
  if (name !== "authorization") return /\s/.test(text) ? undefined : text;
  const parts = SCHEME.exec(text);
  // Another scheme (Basic, …) or no credential: no token, as the origin would find no Bearer token either.
  if (parts === null || parts[1].toLowerCase() !== "bearer") return undefined;
  if (parts[2] !== " " || /\s/.test(parts[3]))
    throw new AmbiguousTokenError("The Authorization header's Bearer scheme is followed by other whitespace than one space; send `Bearer <token>`.");
  return parts[3];
}

// A header also sent as its underscore spelling (`X_Auth_Token`) is the same header to a CGI-style origin.
function oneSpelling(headers: Headers, name: string): string | undefined {
  const sent = headers.get(name);
  if (name.indexOf("-") < 0) return sent ?? undefined;
  const spelled = headers.get(name.replaceAll("-", "_"));
  if (spelled !== null && sent !== null && spelled !== sent)
    throw new AmbiguousTokenError(`The ${displayName(name)} header is sent in more than one spelling with different values; send it once.`);
  return sent ?? spelled ?? undefined;
}

// The cookie named `name` as frameworks read it; sent more than once with different values, the domain's pick or a 400.
function cookieToken(header: string | null, name: string, duplicates: DuplicateValues): string | undefined {
  if (header === null) return undefined;
  const values: string[] = [];
  // RFC 6265 cookie values hold no ",": copies of the Cookie header joined by ", " are separate cookies.
  for (const part of header.split(/[;,]/)) {
    const eq = part.indexOf("=");
    if (eq >= 0 && part.slice(0, eq).trim() === name) values.push(cookieValue(part.slice(eq + 1).trim()));
  }
  if (values.length <= 1 || duplicates === "first") return values[0];
  if (duplicates === "last") return values[values.length - 1];
  if (values.some((value) => value !== values[0]))
    throw new AmbiguousTokenError(`The cookie "${name}" holding the token is sent more than once with different values; send it once.`);
  return values[0];
}

// As Express, Hono, Rack and Python read a cookie value: surrounding quotes stripped, percent-escapes decoded.
function cookieValue(raw: string): string {
  const value = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (value.indexOf("%") < 0) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function displayName(name: string): string {
  return name === "authorization" ? "Authorization" : `"${name}"`;
}
