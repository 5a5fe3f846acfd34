// @ts-nocheck
// The admin API from the page: the token from this tab's session storage, sent
// only as an Authorization header (never in a URL or a cookie).

const TOKEN_KEY = "floodgate.adminToken";

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** The token was refused (401): the page asks for it again. */
export class Unauthorized extends Error {}

/**
 * Call `/__ratelimit/<path>` and return its JSON; a problem answer throws its `detail`.
 *
 * @example
 * const view = await api("traffic");
 */
export async function api(path, method = "GET") {
  const res = await fetch(`/__ratelimit/${path}`, { method, headers: { authorization: `Bearer ${token.get()}` }, cache: "no-store" });
  if (res.status === 401) throw new Unauthorized("The admin token was refused.");
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.detail ?? `${method} /__ratelimit/${path} answered ${res.status}`);
  return body;
}

/**
 * The counters API's query: `descriptor` is sent as typed (`,` and `=` separate,
 * `%2C` `%3D` `%25` escape), with only what a URL would drop or split on escaped
 * (controls, spaces, `&`, `#`).
 */
export function counterQuery(domain, descriptor) {
  return `domain=${encodeURIComponent(domain)}&descriptor=${queryText(descriptor)}`;
}

// Controls and spaces (a URL drops or trims them), "&" and "#" (a URL splits on them).
function queryText(text) {
  return [...text].map((c) => (c <= " " || c === "\u007f" || c === "&" || c === "#" ? encodeURIComponent(c) : c)).join("");
}
