/**
 * CIDR ranges as `remote_address` values (docs/rules.md, "Address ranges"):
 * parsing, and a table that finds the most specific range holding an address.
 */

/** An address or range: its family, its bits as an unsigned integer, and its prefix length. */
export interface IpPrefix {
  readonly family: 4 | 6;
  readonly bits: bigint;
  readonly length: number;
}

/** Width in bits of each family. */
const WIDTH = { 4: 32, 6: 128 } as const;

const IPV4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => IPV4_PART.test(p))) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n);
}

function parseIpv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.length > 45) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (i === items.length - 1 && item.includes(".")) {
        const v4 = parseIpv4(item);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(item)) {
        out.push(parseInt(item, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...Array<number>(missing).fill(0), ...tail].reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/**
 * An address (`203.0.113.7`, `2001:db8::1`: a full-length prefix) or a range
 * (`203.0.113.0/24`) as an IpPrefix; undefined when the text is neither.
 * Host bits are kept as written: `hostBitsSet` tells whether there are any.
 *
 * @example
 * parsePrefix("203.0.113.0/24"); // { family: 4, bits: 3405803776n, length: 24 }
 * parsePrefix("2001:db8::/32")?.length; // 32
 * parsePrefix("unknown");        // undefined
 */
export function parsePrefix(text: string): IpPrefix | undefined {
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  let family: 4 | 6 = 4;
  let bits = parseIpv4(address);
  if (bits === undefined) {
    family = 6;
    bits = parseIpv6(address);
  }
  if (bits === undefined) return undefined;
  let length: number = WIDTH[family];
  if (slash >= 0) {
    const len = text.slice(slash + 1);
    if (!/^(0|[1-9]\d{0,2})$/.test(len) || Number(len) > WIDTH[family]) return undefined;
    length = Number(len);
  }
  return { family, bits, length };
}

/**
 * Whether a prefix has bits set past its length (`203.0.113.7/24`).
 *
 * @example
 * hostBitsSet(parsePrefix("203.0.113.7/24")!); // true
 */
export function hostBitsSet(prefix: IpPrefix): boolean {
  return (prefix.bits & ((1n << BigInt(WIDTH[prefix.family] - prefix.length)) - 1n)) !== 0n;
}

/**
 * The prefix written canonically with its host bits cleared, for error messages.
 *
 * @example
 * formatPrefix(parsePrefix("203.0.113.7/24")!); // "203.0.113.0/24"
 * formatPrefix(parsePrefix("2001:DB8::1/32")!);  // "2001:db8::/32"
 */
export function formatPrefix(prefix: IpPrefix): string {
  const width = WIDTH[prefix.family];
  const bits = (prefix.bits >> BigInt(width - prefix.length)) << BigInt(width - prefix.length);
  if (prefix.family === 4) {
    return `${[24n, 16n, 8n, 0n].map((s) => (bits >> s) & 0xffn).join(".")}/${prefix.length}`;
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((bits >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  // The longest run of zero groups collapses to "::" (RFC 5952).
  let best = [-1, 0];
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best[1] && j - i > 1) best = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const text = best[0] < 0 ? groups.join(":") : `${groups.slice(0, best[0]).join(":")}::${groups.slice(best[0] + best[1]).join(":")}`;
  return `${text}/${prefix.length}`;
}

/** Per family: the prefix lengths present, longest first, and the ranges of each length by network bits. */
interface FamilyTable<T> {
  lengths: number[];
  readonly byLength: Map<number, Map<bigint, T>>;
}

/**
 * Ranges compiled once into one map per prefix length, so a lookup costs at
 * most one map read per distinct length (longest first: the first hit is the
 * most specific range).
 *
 * @example
 * const table = new CidrTable<string>();
 * table.add(parsePrefix("10.0.0.0/8")!, "wide");
 * table.add(parsePrefix("10.1.0.0/16")!, "narrow");
 * table.lookup("10.1.2.3"); // "narrow"
 * table.lookup("10.9.2.3"); // "wide"
 */
export class CidrTable<T> {
  readonly #families = { 4: { lengths: [], byLength: new Map() } as FamilyTable<T>, 6: { lengths: [], byLength: new Map() } as FamilyTable<T> };

  /** Add a range (host bits ignored); returns the value already there for the same range, if any. */
  add(prefix: IpPrefix, value: T): T | undefined {
    const table = this.#families[prefix.family];
    let ranges = table.byLength.get(prefix.length);
    if (ranges === undefined) {
      table.byLength.set(prefix.length, (ranges = new Map()));
      table.lengths = [...table.byLength.keys()].sort((a, b) => b - a);
    }
    const network = prefix.bits >> BigInt(WIDTH[prefix.family] - prefix.length);
    const before = ranges.get(network);
    if (before === undefined) ranges.set(network, value);
    return before;
  }

  /**
   * The value of the most specific range holding `address` (an address, or a
   * prefix such as a client's `2001:db8:1:200::/56`: only ranges at most that
   * long are considered); undefined when none holds it or it is no address.
   */
  lookup(address: string): T | undefined {
    const prefix = parsePrefix(address);
    if (prefix === undefined) return undefined;
    const table = this.#families[prefix.family];
    const width = WIDTH[prefix.family];
    for (const length of table.lengths) {
      if (length > prefix.length) continue;
      const found = table.byLength.get(length)?.get(prefix.bits >> BigInt(width - length));
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Every value in the table (a walk over the whole tree, such as "does any limit queue", needs them). */
  *values(): IterableIterator<T> {
    for (const family of [this.#families[4], this.#families[6]]) for (const ranges of family.byLength.values()) yield* ranges.values();
  }
}
