/**
 * CIDR ranges as `remote_address` values (docs/rules.md, "Address ranges"):
 * parsing, and a table that finds the most specific range holding an address.
 */
// @ts-nocheck


/** An address or range: its family, its bits as an unsigned integer, and its prefix length. */function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
export interface IpPrefix {
  readonly family: 4 | 6;
  readonly bits: bigint;
  readonly length: number;
}

/** Width in bits of each family. */
const WIDTH = {
  4: 32,
  6: 128
} as const;

/**
 * IPv6 client addresses reach the rules as their /64 (docs/rules.md): a longer
 * range could never be decided, so rules may not use one.
 */
export const IPV6_CLIENT_PREFIX = 64;
const IPV4_PART = stryMutAct_9fa48("53") ? /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\D)$/ : stryMutAct_9fa48("52") ? /^(25[0-5]|2[0-4]\d|1\d\d|[^1-9]?\d)$/ : stryMutAct_9fa48("51") ? /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d)$/ : stryMutAct_9fa48("50") ? /^(25[0-5]|2[0-4]\d|1\d\D|[1-9]?\d)$/ : stryMutAct_9fa48("49") ? /^(25[0-5]|2[0-4]\d|1\D\d|[1-9]?\d)$/ : stryMutAct_9fa48("48") ? /^(25[0-5]|2[0-4]\D|1\d\d|[1-9]?\d)$/ : stryMutAct_9fa48("47") ? /^(25[0-5]|2[^0-4]\d|1\d\d|[1-9]?\d)$/ : stryMutAct_9fa48("46") ? /^(25[^0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/ : stryMutAct_9fa48("45") ? /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)/ : stryMutAct_9fa48("44") ? /(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/ : (stryCov_9fa48("44", "45", "46", "47", "48", "49", "50", "51", "52", "53"), /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/);
function parseIpv4(text: string): bigint | undefined {
  if (stryMutAct_9fa48("54")) {
    {}
  } else {
    stryCov_9fa48("54");
    const parts = text.split(stryMutAct_9fa48("55") ? "" : (stryCov_9fa48("55"), "."));
    if (stryMutAct_9fa48("58") ? parts.length !== 4 && !parts.every(p => IPV4_PART.test(p)) : stryMutAct_9fa48("57") ? false : stryMutAct_9fa48("56") ? true : (stryCov_9fa48("56", "57", "58"), (stryMutAct_9fa48("60") ? parts.length === 4 : stryMutAct_9fa48("59") ? false : (stryCov_9fa48("59", "60"), parts.length !== 4)) || (stryMutAct_9fa48("61") ? parts.every(p => IPV4_PART.test(p)) : (stryCov_9fa48("61"), !(stryMutAct_9fa48("62") ? parts.some(p => IPV4_PART.test(p)) : (stryCov_9fa48("62"), parts.every(stryMutAct_9fa48("63") ? () => undefined : (stryCov_9fa48("63"), p => IPV4_PART.test(p))))))))) return undefined;
    return parts.reduce(stryMutAct_9fa48("64") ? () => undefined : (stryCov_9fa48("64"), (acc, p) => acc << 8n | BigInt(p)), 0n);
  }
}
function parseIpv6(text: string): bigint | undefined {
  if (stryMutAct_9fa48("65")) {
    {}
  } else {
    stryCov_9fa48("65");
    if (stryMutAct_9fa48("68") ? !/^[0-9a-fA-F:.]+$/.test(text) && text.length > 45 : stryMutAct_9fa48("67") ? false : stryMutAct_9fa48("66") ? true : (stryCov_9fa48("66", "67", "68"), (stryMutAct_9fa48("69") ? /^[0-9a-fA-F:.]+$/.test(text) : (stryCov_9fa48("69"), !(stryMutAct_9fa48("73") ? /^[^0-9a-fA-F:.]+$/ : stryMutAct_9fa48("72") ? /^[0-9a-fA-F:.]$/ : stryMutAct_9fa48("71") ? /^[0-9a-fA-F:.]+/ : stryMutAct_9fa48("70") ? /[0-9a-fA-F:.]+$/ : (stryCov_9fa48("70", "71", "72", "73"), /^[0-9a-fA-F:.]+$/)).test(text))) || (stryMutAct_9fa48("76") ? text.length <= 45 : stryMutAct_9fa48("75") ? text.length >= 45 : stryMutAct_9fa48("74") ? false : (stryCov_9fa48("74", "75", "76"), text.length > 45)))) return undefined;
    const halves = text.split(stryMutAct_9fa48("77") ? "" : (stryCov_9fa48("77"), "::"));
    if (stryMutAct_9fa48("81") ? halves.length <= 2 : stryMutAct_9fa48("80") ? halves.length >= 2 : stryMutAct_9fa48("79") ? false : stryMutAct_9fa48("78") ? true : (stryCov_9fa48("78", "79", "80", "81"), halves.length > 2)) return undefined;
    const groups = (part: string): number[] | undefined => {
      if (stryMutAct_9fa48("82")) {
        {}
      } else {
        stryCov_9fa48("82");
        if (stryMutAct_9fa48("85") ? part !== "" : stryMutAct_9fa48("84") ? false : stryMutAct_9fa48("83") ? true : (stryCov_9fa48("83", "84", "85"), part === (stryMutAct_9fa48("86") ? "Stryker was here!" : (stryCov_9fa48("86"), "")))) return stryMutAct_9fa48("87") ? ["Stryker was here"] : (stryCov_9fa48("87"), []);
        const out: number[] = stryMutAct_9fa48("88") ? ["Stryker was here"] : (stryCov_9fa48("88"), []);
        const items = part.split(stryMutAct_9fa48("89") ? "" : (stryCov_9fa48("89"), ":"));
        for (let i = 0; stryMutAct_9fa48("92") ? i >= items.length : stryMutAct_9fa48("91") ? i <= items.length : stryMutAct_9fa48("90") ? false : (stryCov_9fa48("90", "91", "92"), i < items.length); stryMutAct_9fa48("93") ? i-- : (stryCov_9fa48("93"), i++)) {
          if (stryMutAct_9fa48("94")) {
            {}
          } else {
            stryCov_9fa48("94");
            const item = items[i];
            if (stryMutAct_9fa48("97") ? i === items.length - 1 || item.includes(".") : stryMutAct_9fa48("96") ? false : stryMutAct_9fa48("95") ? true : (stryCov_9fa48("95", "96", "97"), (stryMutAct_9fa48("99") ? i !== items.length - 1 : stryMutAct_9fa48("98") ? true : (stryCov_9fa48("98", "99"), i === (stryMutAct_9fa48("100") ? items.length + 1 : (stryCov_9fa48("100"), items.length - 1)))) && item.includes(stryMutAct_9fa48("101") ? "" : (stryCov_9fa48("101"), ".")))) {
              if (stryMutAct_9fa48("102")) {
                {}
              } else {
                stryCov_9fa48("102");
                const v4 = parseIpv4(item);
                if (stryMutAct_9fa48("105") ? v4 !== undefined : stryMutAct_9fa48("104") ? false : stryMutAct_9fa48("103") ? true : (stryCov_9fa48("103", "104", "105"), v4 === undefined)) return undefined;
                if (stryMutAct_9fa48("106")) {
                  ;
                } else {
                  stryCov_9fa48("106");
                  out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
                }
              }
            } else if (stryMutAct_9fa48("108") ? false : stryMutAct_9fa48("107") ? true : (stryCov_9fa48("107", "108"), (stryMutAct_9fa48("112") ? /^[^0-9a-fA-F]{1,4}$/ : stryMutAct_9fa48("111") ? /^[0-9a-fA-F]$/ : stryMutAct_9fa48("110") ? /^[0-9a-fA-F]{1,4}/ : stryMutAct_9fa48("109") ? /[0-9a-fA-F]{1,4}$/ : (stryCov_9fa48("109", "110", "111", "112"), /^[0-9a-fA-F]{1,4}$/)).test(item))) {
              if (stryMutAct_9fa48("113")) {
                {}
              } else {
                stryCov_9fa48("113");
                if (stryMutAct_9fa48("114")) {
                  ;
                } else {
                  stryCov_9fa48("114");
                  out.push(parseInt(item, 16));
                }
              }
            } else {
              if (stryMutAct_9fa48("115")) {
                {}
              } else {
                stryCov_9fa48("115");
                return undefined;
              }
            }
          }
        }
        return out;
      }
    };
    const head = groups(halves[0]);
    const tail = (stryMutAct_9fa48("118") ? halves.length !== 2 : stryMutAct_9fa48("117") ? false : stryMutAct_9fa48("116") ? true : (stryCov_9fa48("116", "117", "118"), halves.length === 2)) ? groups(halves[1]) : stryMutAct_9fa48("119") ? ["Stryker was here"] : (stryCov_9fa48("119"), []);
    if (stryMutAct_9fa48("122") ? head === undefined && tail === undefined : stryMutAct_9fa48("121") ? false : stryMutAct_9fa48("120") ? true : (stryCov_9fa48("120", "121", "122"), (stryMutAct_9fa48("124") ? head !== undefined : stryMutAct_9fa48("123") ? false : (stryCov_9fa48("123", "124"), head === undefined)) || (stryMutAct_9fa48("126") ? tail !== undefined : stryMutAct_9fa48("125") ? false : (stryCov_9fa48("125", "126"), tail === undefined)))) return undefined;
    const missing = stryMutAct_9fa48("127") ? 8 - head.length + tail.length : (stryCov_9fa48("127"), (stryMutAct_9fa48("128") ? 8 + head.length : (stryCov_9fa48("128"), 8 - head.length)) - tail.length);
    if (stryMutAct_9fa48("130") ? false : stryMutAct_9fa48("129") ? true : (stryCov_9fa48("129", "130"), (stryMutAct_9fa48("133") ? halves.length !== 2 : stryMutAct_9fa48("132") ? false : stryMutAct_9fa48("131") ? true : (stryCov_9fa48("131", "132", "133"), halves.length === 2)) ? stryMutAct_9fa48("137") ? missing >= 1 : stryMutAct_9fa48("136") ? missing <= 1 : stryMutAct_9fa48("135") ? false : stryMutAct_9fa48("134") ? true : (stryCov_9fa48("134", "135", "136", "137"), missing < 1) : stryMutAct_9fa48("140") ? missing === 0 : stryMutAct_9fa48("139") ? false : stryMutAct_9fa48("138") ? true : (stryCov_9fa48("138", "139", "140"), missing !== 0))) return undefined;
    return (stryMutAct_9fa48("141") ? [] : (stryCov_9fa48("141"), [...head, ...(stryMutAct_9fa48("142") ? Array().fill(0) : (stryCov_9fa48("142"), Array<number>(missing).fill(0))), ...tail])).reduce(stryMutAct_9fa48("143") ? () => undefined : (stryCov_9fa48("143"), (acc, g) => acc << 16n | BigInt(g)), 0n);
  }
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
  if (stryMutAct_9fa48("144")) {
    {}
  } else {
    stryCov_9fa48("144");
    const slash = text.indexOf(stryMutAct_9fa48("145") ? "" : (stryCov_9fa48("145"), "/"));
    const address = (stryMutAct_9fa48("149") ? slash >= 0 : stryMutAct_9fa48("148") ? slash <= 0 : stryMutAct_9fa48("147") ? false : stryMutAct_9fa48("146") ? true : (stryCov_9fa48("146", "147", "148", "149"), slash < 0)) ? text : stryMutAct_9fa48("150") ? text : (stryCov_9fa48("150"), text.slice(0, slash));
    let family: 4 | 6 = 4;
    let bits = parseIpv4(address);
    if (stryMutAct_9fa48("153") ? bits !== undefined : stryMutAct_9fa48("152") ? false : stryMutAct_9fa48("151") ? true : (stryCov_9fa48("151", "152", "153"), bits === undefined)) {
      if (stryMutAct_9fa48("154")) {
        {}
      } else {
        stryCov_9fa48("154");
        family = 6;
        bits = parseIpv6(address);
      }
    }
    if (stryMutAct_9fa48("157") ? bits !== undefined : stryMutAct_9fa48("156") ? false : stryMutAct_9fa48("155") ? true : (stryCov_9fa48("155", "156", "157"), bits === undefined)) return undefined;
    let length: number = WIDTH[family];
    if (stryMutAct_9fa48("161") ? slash < 0 : stryMutAct_9fa48("160") ? slash > 0 : stryMutAct_9fa48("159") ? false : stryMutAct_9fa48("158") ? true : (stryCov_9fa48("158", "159", "160", "161"), slash >= 0)) {
      if (stryMutAct_9fa48("162")) {
        {}
      } else {
        stryCov_9fa48("162");
        const len = stryMutAct_9fa48("163") ? text : (stryCov_9fa48("163"), text.slice(stryMutAct_9fa48("164") ? slash - 1 : (stryCov_9fa48("164"), slash + 1)));
        if (stryMutAct_9fa48("167") ? !/^(0|[1-9]\d{0,2})$/.test(len) && Number(len) > WIDTH[family] : stryMutAct_9fa48("166") ? false : stryMutAct_9fa48("165") ? true : (stryCov_9fa48("165", "166", "167"), (stryMutAct_9fa48("168") ? /^(0|[1-9]\d{0,2})$/.test(len) : (stryCov_9fa48("168"), !(stryMutAct_9fa48("173") ? /^(0|[1-9]\D{0,2})$/ : stryMutAct_9fa48("172") ? /^(0|[1-9]\d)$/ : stryMutAct_9fa48("171") ? /^(0|[^1-9]\d{0,2})$/ : stryMutAct_9fa48("170") ? /^(0|[1-9]\d{0,2})/ : stryMutAct_9fa48("169") ? /(0|[1-9]\d{0,2})$/ : (stryCov_9fa48("169", "170", "171", "172", "173"), /^(0|[1-9]\d{0,2})$/)).test(len))) || (stryMutAct_9fa48("176") ? Number(len) <= WIDTH[family] : stryMutAct_9fa48("175") ? Number(len) >= WIDTH[family] : stryMutAct_9fa48("174") ? false : (stryCov_9fa48("174", "175", "176"), Number(len) > WIDTH[family])))) return undefined;
        length = Number(len);
      }
    }
    return stryMutAct_9fa48("177") ? {} : (stryCov_9fa48("177"), {
      family,
      bits,
      length
    });
  }
}

/**
 * Whether a prefix has bits set past its length (`203.0.113.7/24`).
 *
 * @example
 * hostBitsSet(parsePrefix("203.0.113.7/24")!); // true
 */
export function hostBitsSet(prefix: IpPrefix): boolean {
  if (stryMutAct_9fa48("178")) {
    {}
  } else {
    stryCov_9fa48("178");
    return stryMutAct_9fa48("181") ? (prefix.bits & (1n << BigInt(WIDTH[prefix.family] - prefix.length)) - 1n) === 0n : stryMutAct_9fa48("180") ? false : stryMutAct_9fa48("179") ? true : (stryCov_9fa48("179", "180", "181"), (prefix.bits & (stryMutAct_9fa48("182") ? (1n << BigInt(WIDTH[prefix.family] - prefix.length)) + 1n : (stryCov_9fa48("182"), (1n << BigInt(stryMutAct_9fa48("183") ? WIDTH[prefix.family] + prefix.length : (stryCov_9fa48("183"), WIDTH[prefix.family] - prefix.length))) - 1n))) !== 0n);
  }
}

/**
 * The prefix written canonically with its host bits cleared, for error messages.
 *
 * @example
 * formatPrefix(parsePrefix("203.0.113.7/24")!); // "203.0.113.0/24"
 * formatPrefix(parsePrefix("2001:DB8::1/32")!);  // "2001:db8::/32"
 */
export function formatPrefix(prefix: IpPrefix): string {
  if (stryMutAct_9fa48("184")) {
    {}
  } else {
    stryCov_9fa48("184");
    const width = WIDTH[prefix.family];
    const bits = prefix.bits >> BigInt(stryMutAct_9fa48("185") ? width + prefix.length : (stryCov_9fa48("185"), width - prefix.length)) << BigInt(stryMutAct_9fa48("186") ? width + prefix.length : (stryCov_9fa48("186"), width - prefix.length));
    if (stryMutAct_9fa48("189") ? prefix.family !== 4 : stryMutAct_9fa48("188") ? false : stryMutAct_9fa48("187") ? true : (stryCov_9fa48("187", "188", "189"), prefix.family === 4)) {
      if (stryMutAct_9fa48("190")) {
        {}
      } else {
        stryCov_9fa48("190");
        return stryMutAct_9fa48("191") ? `` : (stryCov_9fa48("191"), `${(stryMutAct_9fa48("192") ? [] : (stryCov_9fa48("192"), [24n, 16n, 8n, 0n])).map(stryMutAct_9fa48("193") ? () => undefined : (stryCov_9fa48("193"), s => bits >> s & 0xffn)).join(stryMutAct_9fa48("194") ? "" : (stryCov_9fa48("194"), "."))}/${prefix.length}`);
      }
    }
    const groups = Array.from(stryMutAct_9fa48("195") ? {} : (stryCov_9fa48("195"), {
      length: 8
    }), stryMutAct_9fa48("196") ? () => undefined : (stryCov_9fa48("196"), (_, i) => Number(bits >> BigInt(stryMutAct_9fa48("197") ? 112 + 16 * i : (stryCov_9fa48("197"), 112 - (stryMutAct_9fa48("198") ? 16 / i : (stryCov_9fa48("198"), 16 * i)))) & 0xffffn).toString(16)));
    // The longest run of zero groups collapses to "::" (RFC 5952).
    let best = stryMutAct_9fa48("199") ? [] : (stryCov_9fa48("199"), [stryMutAct_9fa48("200") ? +1 : (stryCov_9fa48("200"), -1), 0]);
    for (let i = 0; stryMutAct_9fa48("203") ? i >= 8 : stryMutAct_9fa48("202") ? i <= 8 : stryMutAct_9fa48("201") ? false : (stryCov_9fa48("201", "202", "203"), i < 8);) {
      if (stryMutAct_9fa48("204")) {
        {}
      } else {
        stryCov_9fa48("204");
        let j = i;
        while (stryMutAct_9fa48("206") ? j < 8 || groups[j] === "0" : stryMutAct_9fa48("205") ? false : (stryCov_9fa48("205", "206"), (stryMutAct_9fa48("209") ? j >= 8 : stryMutAct_9fa48("208") ? j <= 8 : stryMutAct_9fa48("207") ? true : (stryCov_9fa48("207", "208", "209"), j < 8)) && (stryMutAct_9fa48("211") ? groups[j] !== "0" : stryMutAct_9fa48("210") ? true : (stryCov_9fa48("210", "211"), groups[j] === (stryMutAct_9fa48("212") ? "" : (stryCov_9fa48("212"), "0")))))) stryMutAct_9fa48("213") ? j-- : (stryCov_9fa48("213"), j++);
        if (stryMutAct_9fa48("216") ? j - i > best[1] || j - i > 1 : stryMutAct_9fa48("215") ? false : stryMutAct_9fa48("214") ? true : (stryCov_9fa48("214", "215", "216"), (stryMutAct_9fa48("219") ? j - i <= best[1] : stryMutAct_9fa48("218") ? j - i >= best[1] : stryMutAct_9fa48("217") ? true : (stryCov_9fa48("217", "218", "219"), (stryMutAct_9fa48("220") ? j + i : (stryCov_9fa48("220"), j - i)) > best[1])) && (stryMutAct_9fa48("223") ? j - i <= 1 : stryMutAct_9fa48("222") ? j - i >= 1 : stryMutAct_9fa48("221") ? true : (stryCov_9fa48("221", "222", "223"), (stryMutAct_9fa48("224") ? j + i : (stryCov_9fa48("224"), j - i)) > 1)))) best = stryMutAct_9fa48("225") ? [] : (stryCov_9fa48("225"), [i, stryMutAct_9fa48("226") ? j + i : (stryCov_9fa48("226"), j - i)]);
        i = (stryMutAct_9fa48("229") ? j !== i : stryMutAct_9fa48("228") ? false : stryMutAct_9fa48("227") ? true : (stryCov_9fa48("227", "228", "229"), j === i)) ? stryMutAct_9fa48("230") ? i - 1 : (stryCov_9fa48("230"), i + 1) : j;
      }
    }
    const text = (stryMutAct_9fa48("234") ? best[0] >= 0 : stryMutAct_9fa48("233") ? best[0] <= 0 : stryMutAct_9fa48("232") ? false : stryMutAct_9fa48("231") ? true : (stryCov_9fa48("231", "232", "233", "234"), best[0] < 0)) ? groups.join(stryMutAct_9fa48("235") ? "" : (stryCov_9fa48("235"), ":")) : stryMutAct_9fa48("236") ? `` : (stryCov_9fa48("236"), `${stryMutAct_9fa48("237") ? groups.join(":") : (stryCov_9fa48("237"), groups.slice(0, best[0]).join(stryMutAct_9fa48("238") ? "" : (stryCov_9fa48("238"), ":")))}::${stryMutAct_9fa48("239") ? groups.join(":") : (stryCov_9fa48("239"), groups.slice(stryMutAct_9fa48("240") ? best[0] - best[1] : (stryCov_9fa48("240"), best[0] + best[1])).join(stryMutAct_9fa48("241") ? "" : (stryCov_9fa48("241"), ":")))}`);
    return stryMutAct_9fa48("242") ? `` : (stryCov_9fa48("242"), `${text}/${prefix.length}`);
  }
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
  readonly #families = stryMutAct_9fa48("243") ? {} : (stryCov_9fa48("243"), {
    4: {
      lengths: [],
      byLength: new Map()
    } as FamilyTable<T>,
    6: {
      lengths: [],
      byLength: new Map()
    } as FamilyTable<T>
  });

  /** Add a range (host bits ignored); returns the value already there for the same range, if any. */
  add(prefix: IpPrefix, value: T): T | undefined {
    if (stryMutAct_9fa48("244")) {
      {}
    } else {
      stryCov_9fa48("244");
      const table = this.#families[prefix.family];
      let ranges = table.byLength.get(prefix.length);
      if (stryMutAct_9fa48("247") ? ranges !== undefined : stryMutAct_9fa48("246") ? false : stryMutAct_9fa48("245") ? true : (stryCov_9fa48("245", "246", "247"), ranges === undefined)) {
        if (stryMutAct_9fa48("248")) {
          {}
        } else {
          stryCov_9fa48("248");
          if (stryMutAct_9fa48("249")) {
            ;
          } else {
            stryCov_9fa48("249");
            table.byLength.set(prefix.length, ranges = new Map());
          }
          table.lengths = stryMutAct_9fa48("250") ? [...table.byLength.keys()] : (stryCov_9fa48("250"), (stryMutAct_9fa48("251") ? [] : (stryCov_9fa48("251"), [...table.byLength.keys()])).sort(stryMutAct_9fa48("252") ? () => undefined : (stryCov_9fa48("252"), (a, b) => stryMutAct_9fa48("253") ? b + a : (stryCov_9fa48("253"), b - a))));
        }
      }
      const network = prefix.bits >> BigInt(stryMutAct_9fa48("254") ? WIDTH[prefix.family] + prefix.length : (stryCov_9fa48("254"), WIDTH[prefix.family] - prefix.length));
      const before = ranges.get(network);
      if (stryMutAct_9fa48("257") ? before !== undefined : stryMutAct_9fa48("256") ? false : stryMutAct_9fa48("255") ? true : (stryCov_9fa48("255", "256", "257"), before === undefined)) if (stryMutAct_9fa48("258")) {
        ;
      } else {
        stryCov_9fa48("258");
        ranges.set(network, value);
      }
      return before;
    }
  }

  /**
   * The value of the most specific range holding `address` (an address, or a
   * prefix such as a client's `2001:db8:1:2::/64`: only ranges at most that
   * long are considered); undefined when none holds it or it is no address.
   */
  lookup(address: string): T | undefined {
    if (stryMutAct_9fa48("259")) {
      {}
    } else {
      stryCov_9fa48("259");
      const prefix = parsePrefix(address);
      if (stryMutAct_9fa48("262") ? prefix !== undefined : stryMutAct_9fa48("261") ? false : stryMutAct_9fa48("260") ? true : (stryCov_9fa48("260", "261", "262"), prefix === undefined)) return undefined;
      const table = this.#families[prefix.family];
      const width = WIDTH[prefix.family];
      for (const length of table.lengths) {
        if (stryMutAct_9fa48("263")) {
          {}
        } else {
          stryCov_9fa48("263");
          if (stryMutAct_9fa48("267") ? length <= prefix.length : stryMutAct_9fa48("266") ? length >= prefix.length : stryMutAct_9fa48("265") ? false : stryMutAct_9fa48("264") ? true : (stryCov_9fa48("264", "265", "266", "267"), length > prefix.length)) continue;
          const found = stryMutAct_9fa48("268") ? table.byLength.get(length).get(prefix.bits >> BigInt(width - length)) : (stryCov_9fa48("268"), table.byLength.get(length)?.get(prefix.bits >> BigInt(stryMutAct_9fa48("269") ? width + length : (stryCov_9fa48("269"), width - length))));
          if (stryMutAct_9fa48("272") ? found === undefined : stryMutAct_9fa48("271") ? false : stryMutAct_9fa48("270") ? true : (stryCov_9fa48("270", "271", "272"), found !== undefined)) return found;
        }
      }
      return undefined;
    }
  }
}