/**
 * The signature on every queued delivery (docs/on-limit.md, "Signed
 * deliveries"): HMAC-SHA256, keyed with QUEUE_SECRET, over one line each of
 * a version tag, the method, the host, the path and query, the queued id,
 * the attempt, the timestamp, the body's SHA-256 and the SHA-256 of the
 * credential headers sent. An origin that holds the secret can tell
 * floodgate's deliveries from a client's forgeries, a delivery replayed to
 * another host or with other credentials, and a replay of an old delivery
 * by its timestamp.
 */

/** `v2=<hex HMAC-SHA256>`: the signature of a delivery. */
export const SIGNATURE_HEADER = "X-Floodgate-Signature";
/** Unix seconds when the delivery was signed (part of what is signed). */
export const TIMESTAMP_HEADER = "X-Floodgate-Timestamp";

/** What a delivery's signature covers. */
export interface SignedParts {
  readonly method: string;
  /** The Host the origin receives (ORIGIN_URL's host, with its port when not the default). */
  readonly host: string;
  /** The path and query the origin is sent (what it sees as its request target). */
  readonly pathAndQuery: string;
  readonly id: string;
  readonly attempt: number;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly body: Uint8Array | null;
  /**
   * The value of each of CREDENTIAL_HEADERS the delivery carries, in that
   * order, "" for one it does not: their SHA-256 is signed, so a replay
   * cannot swap in another client's credentials.
   */
  readonly credentials: readonly string[];
}

/**
 * The text that is signed: `v2`, method, host, path and query, id, attempt,
 * timestamp, the body's SHA-256 and the SHA-256 of the credential values
 * joined by "\n" (hex), one per line.
 *
 * @example
 * await canonicalString({ method: "POST", host: "api.example.com", pathAndQuery: "/hook?a=1", id, attempt: 1, timestamp: 1767225600, body: null, credentials: ["Bearer t", "", "", "", ""] });
 * // "v2\nPOST\napi.example.com\n/hook?a=1\n<id>\n1\n1767225600\ne3b0c442…\n<sha256 of the credentials>"
 */
export async function canonicalString(parts: SignedParts): Promise<string> {
  const digest = hex(await crypto.subtle.digest("SHA-256", parts.body ?? new Uint8Array()));
  const credentials = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.credentials.join("\n"))));
  return [
    "v2",
    parts.method.toUpperCase(),
    parts.host.toLowerCase(),
    parts.pathAndQuery,
    parts.id,
    String(parts.attempt),
    String(parts.timestamp),
    digest,
    credentials,
  ].join("\n");
}

const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
}

/**
 * The two headers that sign a delivery with `secret`.
 *
 * @example
 * for (const [name, value] of await signatureHeaders(settings.queueSecret, parts)) headers.set(name, value);
 */
export async function signatureHeaders(secret: string, parts: SignedParts): Promise<[string, string][]> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), new TextEncoder().encode(await canonicalString(parts)));
  return [
    [SIGNATURE_HEADER, `v2=${hex(mac)}`],
    [TIMESTAMP_HEADER, String(parts.timestamp)],
  ];
}

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
