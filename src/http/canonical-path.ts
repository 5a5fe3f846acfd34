/**
 * The one canonical form of a URL path that routes and the `path`
 * descriptor key match on (docs/rules.md, "Canonical paths"): every
 * spelling an origin would serve as the same path reads the same here, so
 * no spelling of `/login` walks around a `/login` limit.
 */

// RFC 3986 `pchar` plus "/": kept as they are. Everything else but "%" is percent-encoded.
const KEEP = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/") KEEP[c.charCodeAt(0)] = 1;

const SLASH = 47;
const DOT = 46;
const PERCENT = 37;
const SEMICOLON = 59;

/**
 * The canonical path, letter case as given: unreserved percent-escapes
 * (ALPHA DIGIT `-` `.` `_` `~`) decoded and the other escapes upper-cased, a
 * lone `%` and characters outside RFC 3986 `pchar` percent-encoded, `;`
 * parameters dropped from every segment, dot segments (`.`, `..`, also
 * encoded as `%2e`) resolved, empty segments (repeated or trailing slashes)
 * removed. The result starts with `/` and ends with one only when it is `/`.
 * A path already in that form comes back as the same string, nothing
 * allocated.
 *
 * @example
 * canonicalPath("//a/./b;jsessionid=1/../%6Cogin/"); // "/a/login"
 * canonicalPath("/x/%2f%7e");                         // "/x/%2F~"
 * canonicalPath("/login");                            // "/login" (the same string)
 */
export function canonicalPath(path: string): string {
  const n = path.length;
  if (n === 0 || path.charCodeAt(0) !== SLASH || (n > 1 && path.charCodeAt(n - 1) === SLASH)) return slowPath(path);
  for (let i = 0; i < n; i++) {
    const c = path.charCodeAt(i);
    if (c >= 128 || KEEP[c] === 0 || c === SEMICOLON) return slowPath(path);
    if (c === SLASH && i + 1 < n) {
      const next = path.charCodeAt(i + 1);
      if (next === SLASH || next === DOT) return slowPath(path);
    }
  }
  return path;
}

/**
 * A canonical path with its ASCII letters lower-cased, escapes left as they
 * are (`%2F` stays upper case): the form routes match on when the domain
 * folds case. Unchanged input comes back as the same string.
 *
 * @example
 * foldPathCase("/Login/%2F"); // "/login/%2F"
 */
export function foldPathCase(canonical: string): string {
  for (let i = 0; i < canonical.length; i++) {
    const c = canonical.charCodeAt(i);
    if (c === PERCENT) i += 2;
    else if (c >= 65 && c <= 90) return canonical.replace(/%[0-9A-F]{2}|[A-Z]+/g, (m) => (m.charCodeAt(0) === PERCENT ? m : m.toLowerCase()));
  }
  return canonical;
}

/**
 * A canonical path with its escaped slashes (`%2F`) and backslashes (`%5C`)
 * read as `/`, made canonical again: how nginx, Apache and most frameworks
 * route it (ENCODED_SLASHES=decode, docs/rules.md "The origin's view").
 * A path without one comes back as the same string.
 *
 * @example
 * decodedSlashes("/api%2Flogin"); // "/api/login"
 * decodedSlashes("/a%5C..%5Cb");  // "/b"
 */
export function decodedSlashes(canonical: string): string {
  if (canonical.indexOf("%") < 0 || !/%(2F|5C)/i.test(canonical)) return canonical;
  return canonicalPath(canonical.replace(/%(2F|5C)/gi, "/"));
}

function slowPath(path: string): string {
  const segments: string[] = [];
  for (const raw of path.split("/")) {
    // Parameters go first, so "/..;x/" is the dot segment a servlet container reads.
    const semicolon = raw.indexOf(";");
    const segment = normalizeSegment(semicolon < 0 ? raw : raw.slice(0, semicolon));
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

function normalizeSegment(segment: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c < 128 && KEEP[c] === 1) continue;
    out += segment.slice(from, i);
    if (c === PERCENT) {
      const value = hexByte(segment, i + 1);
      if (value < 0) out += "%25";
      else {
        out += isUnreserved(value) ? String.fromCharCode(value) : `%${segment.slice(i + 1, i + 3).toUpperCase()}`;
        i += 2;
      }
    } else {
      const point = segment.codePointAt(i) as number;
      const char = String.fromCodePoint(point);
      // A lone surrogate has no UTF-8 form; it is read as U+FFFD, as TextEncoder would.
      out += point >= 0xd800 && point <= 0xdfff ? "%EF%BF%BD" : encodeURIComponent(char);
      i += char.length - 1;
    }
    from = i + 1;
  }
  return from === 0 ? segment : out + segment.slice(from);
}

function hexByte(text: string, at: number): number {
  if (at + 2 > text.length) return -1;
  const high = hexDigit(text.charCodeAt(at));
  const low = hexDigit(text.charCodeAt(at + 1));
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

// RFC 3986 section 2.3: ALPHA DIGIT "-" "." "_" "~".
function isUnreserved(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95 || c === 126;
}
