/**
 * A compact JWS (RFC 7515) taken apart, defensively: three base64url parts,
 * a header and a payload that are JSON objects. Any other text is no token;
 * nothing here throws.
 */

/** A token's parts, its signature not yet checked. */
export interface ParsedToken {
  readonly header: Readonly<Record<string, unknown>>;
  readonly payload: Readonly<Record<string, unknown>>;
  /** The bytes signed: `header.payload` as sent. */
  readonly signed: Uint8Array;
  readonly signature: Uint8Array;
}

const COMPACT = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const encoder = new TextEncoder();

/**
 * `token` taken apart, or undefined for anything but a signed compact JWS.
 *
 * @example
 * parseToken("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln")?.payload.sub; // "a"
 * parseToken("not a token"); // undefined
 */
export function parseToken(token: string): ParsedToken | undefined {
  const parts = COMPACT.exec(token);
  if (parts === null) return undefined;
  const header = jsonObject(parts[1]);
  const payload = jsonObject(parts[2]);
  const signature = base64urlBytes(parts[3]);
  if (header === undefined || payload === undefined || signature === undefined) return undefined;
  return { header, payload, signed: encoder.encode(`${parts[1]}.${parts[2]}`), signature };
}

/**
 * The bytes of unpadded base64url `text`, or undefined.
 *
 * @example
 * base64urlBytes("AQID"); // Uint8Array [1, 2, 3]
 */
export function base64urlBytes(text: string): Uint8Array | undefined {
  // A length of 1 mod 4 is no whole byte.
  if (text.length % 4 === 1) return undefined;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

function jsonObject(part: string): Record<string, unknown> | undefined {
  const bytes = base64urlBytes(part);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(utf8.decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
