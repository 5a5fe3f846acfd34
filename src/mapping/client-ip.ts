/**
 * The client address used for `remote_address` descriptors.
 */

/** Key used for requests that carry no client IP, so they share one bucket instead of going unlimited. */
export const UNKNOWN_CLIENT = "unknown";

/** The request's client IP is present but not an IP address. */
export class InvalidClientIpError extends Error {}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * The client IP from `CF-Connecting-IP` (set by Cloudflare's edge and not
 * forgeable there). IPv6 addresses are reduced to their /64, since one
 * subscriber usually holds a whole /64 and could otherwise rotate freely.
 * A missing header yields `UNKNOWN_CLIENT`; a malformed one throws
 * InvalidClientIpError (the gateway answers 400).
 *
 * @example
 * clientAddress(new Headers({ "cf-connecting-ip": "2001:db8:1:2:3:4:5:6" })); // "2001:db8:1:2::/64"
 * clientAddress(new Headers({ "cf-connecting-ip": "203.0.113.7" }));        // "203.0.113.7"
 */
export function clientAddress(headers: Headers): string {
  const raw = headers.get("cf-connecting-ip")?.trim();
  if (!raw) return UNKNOWN_CLIENT;
  if (IPV4.test(raw)) return raw;
  const v6 = ipv6Prefix64(raw);
  if (v6) return v6;
  throw new InvalidClientIpError(`CF-Connecting-IP is not an IP address: ${JSON.stringify(raw.slice(0, 64))}`);
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
  return groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":") + "::/64";
}
