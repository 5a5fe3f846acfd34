/**
 * The query of `GET /__ratelimit/status` (docs/admin-api.md, "Status"):
 * exactly one `method` and one `path`, nothing else, so no parameter of
 * this endpoint's own can name a counter.
 */

/** Methods a status may be asked for: those the gateway passes on (TRACE and CONNECT never are). */
export const STATUS_METHODS: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Longest `path` (with its query) a status may be asked for. */
export const MAX_STATUS_PATH = 2048;

/** The parsed query, or what is wrong with it. */
export type StatusQuery = { readonly ok: true; readonly method: string; readonly path: string } | { readonly ok: false; readonly message: string };

/**
 * Parse and check the status query.
 *
 * @example
 * parseStatusQuery(new URLSearchParams("method=GET&path=/api/x?page=2")); // { ok: true, method: "GET", path: "/api/x?page=2" }
 */
export function parseStatusQuery(params: URLSearchParams): StatusQuery {
  for (const name of params.keys())
    if (name !== "method" && name !== "path")
      return fail(
        `Unknown query parameter ${JSON.stringify(name.slice(0, 40))}: the status takes only method and path (the caller's own headers, cookies and address say who it is for).`,
      );
  const methods = params.getAll("method");
  const paths = params.getAll("path");
  if (methods.length !== 1) return fail(methods.length === 0 ? "method is required, e.g. method=GET." : "method is given more than once.");
  if (paths.length !== 1) return fail(paths.length === 0 ? "path is required, e.g. path=/api/x." : "path is given more than once.");
  const [method] = methods;
  const [path] = paths;
  if (!STATUS_METHODS.includes(method)) return fail(`method must be one of ${STATUS_METHODS.join(", ")}, got ${JSON.stringify(method.slice(0, 20))}.`);
  if (!path.startsWith("/")) return fail(`path must start with "/", got ${JSON.stringify(path.slice(0, 40))}.`);
  if (path.length > MAX_STATUS_PATH) return fail(`path is ${path.length} characters long; at most ${MAX_STATUS_PATH}.`);
  // Printable ASCII only, as a request line carries it (percent-encode the rest); no fragment (never sent).
  if (!/^[\x21-\x7e]*$/.test(path)) return fail("path must be printable ASCII without spaces: percent-encode other characters.");
  if (path.includes("#")) return fail('path must not hold a fragment ("#"): it is never sent to a server.');
  return { ok: true, method, path };
}

function fail(message: string): StatusQuery {
  return { ok: false, message };
}
