/**
 * Test tokens made with WebCrypto: HS256 with a secret, RS256 and ES256 with
 * fresh key pairs (their public halves as JWKs), unsigned (`alg: none`) and
 * the algorithm-confusion forgery (HS256 keyed with the public key's bytes).
 */
const encoder = new TextEncoder();

/** Unpadded base64url of bytes or of a string's UTF-8. */
export function b64url(data: Uint8Array | ArrayBuffer | string): string {
  const bytes = typeof data === "string" ? encoder.encode(data) : new Uint8Array(data);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export const SECRET = "a test secret of thirty-two bytes or more, never a real one";
export const ISSUER = "https://auth.test";
export const AUDIENCE = "floodgate";
const now = () => Math.floor(Date.now() / 1000);

/** Standard claims for `sub`, valid for an hour from now; `extra` added or overriding. */
export function claims(sub: string | number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { sub, iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 3600, ...extra };
}

function signingInput(header: Record<string, unknown>, payload: Record<string, unknown>): string {
  return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
}

/** An HS256 token keyed with `secret` (text or raw bytes). */
export async function hs256(payload: Record<string, unknown>, secret: string | Uint8Array = SECRET, header: Record<string, unknown> = {}): Promise<string> {
  const raw = typeof secret === "string" ? encoder.encode(secret) : secret;
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const input = signingInput({ alg: "HS256", typ: "JWT", ...header }, payload);
  return `${input}.${b64url(await crypto.subtle.sign("HMAC", key, encoder.encode(input)))}`;
}

/** A key pair for RS256 or ES256, its public half as a JWK with `kid`. */
export interface Signer {
  readonly alg: "RS256" | "ES256";
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly jwk: Record<string, string>;
}

export async function newSigner(alg: "RS256" | "ES256", kid: string): Promise<Signer> {
  const params =
    alg === "RS256"
      ? { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }
      : { name: "ECDSA", namedCurve: "P-256" };
  const pair = (await crypto.subtle.generateKey(params, true, ["sign", "verify"])) as CryptoKeyPair;
  const exported = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as unknown as Record<string, unknown>;
  const jwk: Record<string, string> =
    alg === "RS256"
      ? { kty: "RSA", n: String(exported.n), e: String(exported.e), kid, alg, use: "sig" }
      : { kty: "EC", crv: "P-256", x: String(exported.x), y: String(exported.y), kid, alg, use: "sig" };
  return { alg, privateKey: pair.privateKey, publicKey: pair.publicKey, jwk };
}

/** A token signed by `signer`, its header naming the signer's kid unless `header` says otherwise. */
export async function signed(signer: Signer, payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const input = signingInput({ alg: signer.alg, typ: "JWT", kid: signer.jwk.kid, ...header }, payload);
  const algorithm = signer.alg === "RS256" ? "RSASSA-PKCS1-v1_5" : { name: "ECDSA", hash: "SHA-256" };
  return `${input}.${b64url(await crypto.subtle.sign(algorithm, signer.privateKey, encoder.encode(input)))}`;
}

/** An unsigned token (`alg: none`, empty signature or a junk one). */
export function unsigned(payload: Record<string, unknown>, signature = ""): string {
  return `${signingInput({ alg: "none", typ: "JWT" }, payload)}.${signature}`;
}

/** HS256 tokens keyed with the public key's bytes as a confused verifier would read them (SPKI, the JWK's text, its modulus). */
export async function confused(signer: Signer, payload: Record<string, unknown>): Promise<string[]> {
  const spki = new Uint8Array((await crypto.subtle.exportKey("spki", signer.publicKey)) as ArrayBuffer);
  const pem = `-----BEGIN PUBLIC KEY-----\n${btoa(String.fromCharCode(...spki))}\n-----END PUBLIC KEY-----\n`;
  const header = { kid: signer.jwk.kid };
  return Promise.all([
    hs256(payload, spki, header),
    hs256(payload, pem, header),
    hs256(payload, JSON.stringify(signer.jwk), header),
    hs256(payload, signer.jwk.n ?? signer.jwk.x, header),
  ]);
}
