/**
 * The client address used for `remote_address` descriptors.
 */
// @ts-nocheck


/** Key used for requests that carry no client IP, so they share one bucket instead of going unlimited. */
export const UNKNOWN_CLIENT = "unknown";

/** The request's client IP is present but not an IP address. */
export class InvalidClientIpError extends Error {}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * The client IP for rate limiting. By default only `CF-Connecting-IP` (set by
 * Cloudflare's edge, which overwrites anything a client sends) is trusted;
 * `X-Forwarded-For` and `X-Real-IP` are client-controlled and ignored.
 * With `trustedProxyHops` N > 0 (the `TRUSTED_PROXY_HOPS` var: N proxies of
 * yours sit in front of Cloudflare, each appending the address it was
 * reached from), the client is the Nth `X-Forwarded-For` entry from the
 * right — entries further left were written by the client and are ignored —
 * or `X-Real-IP` when there is no `X-Forwarded-For`.
 *
 * IPv6 addresses are reduced to their /64, since one subscriber usually
 * holds a whole /64 and could otherwise rotate freely; IPv4-mapped IPv6 is
 * read as IPv4. No address at all yields `UNKNOWN_CLIENT` (one shared
 * bucket, not unlimited); a malformed one throws InvalidClientIpError (the
 * gateway answers 400).
 *
 * @example
 * clientAddress(new Headers({ "cf-connecting-ip": "2001:db8:1:2:3:4:5:6" })); // "2001:db8:1:2::/64"
 * clientAddress(new Headers({ "cf-connecting-ip": "203.0.113.7" }));        // "203.0.113.7"
 * clientAddress(new Headers({ "x-forwarded-for": "1.1.1.1, 198.51.100.9", "cf-connecting-ip": "192.0.2.1" }), 1); // "198.51.100.9"
 */
export function clientAddress(headers: Headers, trustedProxyHops = 0): string {
  const [raw, source] = rawClientIp(headers, trustedProxyHops);
  if (raw === undefined) return UNKNOWN_CLIENT;
  const address = normalizeIp(raw);
  if (address === undefined) throw new InvalidClientIpError(`${source} is not an IP address: ${JSON.stringify(raw.slice(0, 64))}`);
  return address;
}

function rawClientIp(headers: Headers, hops: number): [string | undefined, string] {
  if (hops > 0) {
    const forwarded = headers.get("x-forwarded-for");
    if (forwarded !== null) {
      const hopsSeen = forwarded.split(",").map((part) => part.trim());
      // Fewer entries than trusted proxies: the chain is not what was declared, so fall back to the edge's view.
      if (hopsSeen.length >= hops) return [hopsSeen[hopsSeen.length - hops] || undefined, "X-Forwarded-For"];
    } else {
      const real = headers.get("x-real-ip")?.trim();
      if (real) return [real, "X-Real-IP"];
    }
  }
  return [headers.get("cf-connecting-ip")?.trim() || undefined, "CF-Connecting-IP"];
}

/**
 * An IPv4 address as is, an IPv6 address as its /64 (IPv4-mapped IPv6 as
 * IPv4), or undefined when the text is neither.
 *
 * @example
 * normalizeIp("::ffff:203.0.113.7"); // "203.0.113.7"
 * normalizeIp("2001:DB8::1");        // "2001:db8:0:0::/64"
 */
export function normalizeIp(text: string): string | undefined {
  if (IPV4.test(text)) return text;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  if (mapped && IPV4.test(mapped[1])) return mapped[1];
  return ipv6Prefix64(text);
}

/**
 * The /64 prefix of an IPv6 address in canonical lower-case form, or
 * undefined when the text is not IPv6.
 *
 * @example
 * ipv6Prefix64("2001:DB8::1"); // "2001:db8:0:0::/64"
 */
export function ipv6Prefix64(text: string): string | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.length > 45) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string): string[] | undefined => {
    if (part === "") return [];
    const groups = part.split(":");
    // An embedded IPv4 tail (::ffff:1.2.3.4) only matters past the /64; count it as two groups.
    const last = groups[groups.length - 1];
    if (last.includes(".")) {
      if (!IPV4.test(last)) return undefined;
      groups.splice(groups.length - 1, 1, "0", "0");
    }
    return groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)) ? groups : undefined;
  };
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
