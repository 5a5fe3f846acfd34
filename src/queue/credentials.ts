/**
 * Credential headers of a queued request (docs/on-limit.md, "Credentials"):
 * dropped before the request is stored, unless its limit has
 * `queue_credentials: true`; then they travel sealed with AES-256-GCM under
 * a key derived from QUEUE_SECRET, bound to the queued id, so neither the
 * queue nor the dead-letter queue holds them in the clear.
 */
import { fromBase64, type SealedCredentials, toBase64 } from "./message.ts";

/** Headers that carry a client's credentials; never stored in the clear. */
export const CREDENTIAL_HEADERS: readonly string[] = ["authorization", "proxy-authorization", "cookie", "x-api-key", "x-auth-token"];

/**
 * `headers` split into those that may be stored and the credential ones.
 *
 * @example
 * splitCredentials([["accept", "*\/*"], ["cookie", "sid=1"]]); // { kept: [["accept", "*\/*"]], credentials: [["cookie", "sid=1"]] }
 */
export function splitCredentials(headers: Iterable<[string, string]>): { kept: [string, string][]; credentials: [string, string][] } {
  const kept: [string, string][] = [];
  const credentials: [string, string][] = [];
  // `X_Api_Key` is the credential to a CGI-style origin: any spelling counts.
  for (const [name, value] of headers) (CREDENTIAL_HEADERS.includes(name.toLowerCase().replaceAll("_", "-")) ? credentials : kept).push([name, value]);
  return { kept, credentials };
}

const keys = new Map<string, Promise<CryptoKey>>();

// HKDF: the encryption key is not the signing key, though both come from the one secret.
function sealingKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    key = (async () => {
      const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
      const params = { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: new TextEncoder().encode("floodgate queue credentials v1") };
      return crypto.subtle.deriveKey(params, base, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
    })();
    keys.set(secret, key);
  }
  return key;
}

/**
 * Seal `credentials` for the queued request `id`.
 *
 * @example
 * const sealed = await sealCredentials(secret, [["authorization", "Bearer x"]], id);
 */
export async function sealCredentials(secret: string, credentials: readonly [string, string][], id: string): Promise<SealedCredentials> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(credentials));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(id) }, await sealingKey(secret), plain);
  return { iv: toBase64(iv), data: toBase64(new Uint8Array(data)) };
}

/**
 * The credentials sealed for `id`; throws when the secret or the id is not the one they were sealed with.
 *
 * @example
 * for (const [name, value] of await openCredentials(secret, message.credentials, message.id)) headers.set(name, value);
 */
export async function openCredentials(secret: string, sealed: SealedCredentials, id: string): Promise<[string, string][]> {
  const iv = fromBase64(sealed.iv);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(id) },
    await sealingKey(secret),
    fromBase64(sealed.data),
  );
  return JSON.parse(new TextDecoder().decode(plain)) as [string, string][];
}
