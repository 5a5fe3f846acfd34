/**
 * Bearer tokens: reading one from `Authorization`, and comparing secrets
 * in constant time.
 */
// @ts-nocheck

const encoder = new TextEncoder();

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

/**
 * Compare two secrets in constant time. Both are hashed first, so the
 * comparison always runs over 32 bytes and leaks neither content nor length.
 *
 * @example
 * await tokensEqual("s3cret", env.ADMIN_TOKEN); // true or false, in the same time
 */
export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/**
 * The token of an `Authorization: Bearer <token>` header, or undefined.
 *
 * @example
 * bearerToken("Bearer abc"); // "abc"
 * bearerToken("Basic abc");  // undefined
 */
export function bearerToken(header: string | null): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return match?.[1];
}
