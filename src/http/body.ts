/**
 * Reading a request body (or a fetched response's) with a size bound, so an
 * admin endpoint (or the queue, which must hold the body, or a `jwks_url`'s
 * key set) never buffers more than it will keep.
 */

/** Thrown when a body is larger than allowed; the handler answers 413. */
export class BodyTooLargeError extends Error {
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    super(`the request body is larger than ${maxBytes} bytes`);
    this.maxBytes = maxBytes;
  }
}

/**
 * The body as UTF-8 text, or BodyTooLargeError past `maxBytes` (checked
 * against Content-Length first, then while streaming, since a chunked body
 * has no length up front).
 *
 * @example
 * const text = await readBodyText(c.req.raw, 1024 * 1024);
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readBodyBytes(request, maxBytes));
}

/**
 * The body as bytes, under the same bound as `readBodyText`.
 *
 * @example
 * const bytes = await readBodyBytes(c.req.raw, 64 * 1024);
 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw new BodyTooLargeError(maxBytes);
  return readStreamBytes(request.body, maxBytes);
}

/**
 * A stream's bytes (none for `null`), or BodyTooLargeError as soon as more
 * than `maxBytes` came (the stream cancelled, read no further): the reading
 * of a request body and of a fetched response (a `jwks_url`'s keys).
 *
 * @example
 * const bytes = await readStreamBytes(response.body, 256 * 1024);
 */
export async function readStreamBytes(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
