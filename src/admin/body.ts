/**
 * An admin endpoint's request body as text, or the 413 that names the cap
 * (docs/admin-api.md): one place for every endpoint that takes a document.
 */
import { BodyTooLargeError, readBodyText } from "../http/body.ts";
import { problem } from "../http/problem.ts";

/**
 * The body as UTF-8 text, or a 413 problem when it is over `maxBytes`
 * (`hint`, if given, is added to the detail).
 *
 * @example
 * const text = await bodyTextOr413(c.req.raw, MAX_RULES_BODY_BYTES);
 * if (text instanceof Response) return text;
 */
export async function bodyTextOr413(request: Request, maxBytes: number, hint = ""): Promise<string | Response> {
  try {
    return await readBodyText(request, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return problem(413, "Payload Too Large", `${error.message}${hint === "" ? "." : `; ${hint}.`}`);
    throw error;
  }
}
