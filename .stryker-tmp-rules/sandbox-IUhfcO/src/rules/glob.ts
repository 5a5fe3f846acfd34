/**
 * `*` glob matching, compiled once per pattern. `*` matches any run of
 * characters, including none and including `/`; every other character is
 * literal. No RegExp is built, so pattern text can never be misread as regex
 * syntax, and matching is linear in the input.
 */
// @ts-nocheck


/** A compiled glob: true when the whole input matches. */function stryNS_9fa48() {
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
export type GlobMatcher = (input: string) => boolean;

/**
 * Whether `pattern` contains a wildcard (otherwise it is matched exactly).
 *
 * @example
 * isGlob("partner-*"); // true
 */
export function isGlob(pattern: string): boolean {
  if (stryMutAct_9fa48("1190")) {
    {}
  } else {
    stryCov_9fa48("1190");
    return pattern.includes(stryMutAct_9fa48("1191") ? "" : (stryCov_9fa48("1191"), "*"));
  }
}

/**
 * Compile `pattern`. With `ignoreCase`, both the pattern and each input are
 * lower-cased (host names).
 *
 * @example
 * const m = compileGlob("/files/*.json");
 * m("/files/a/b.json"); // true
 * m("/files/b.txt");    // false
 * compileGlob("*.Example.com", true)("API.example.COM"); // true
 */
export function compileGlob(pattern: string, ignoreCase = stryMutAct_9fa48("1192") ? true : (stryCov_9fa48("1192"), false)): GlobMatcher {
  if (stryMutAct_9fa48("1193")) {
    {}
  } else {
    stryCov_9fa48("1193");
    const source = ignoreCase ? stryMutAct_9fa48("1194") ? pattern.toUpperCase() : (stryCov_9fa48("1194"), pattern.toLowerCase()) : pattern;
    const match = compileParts(source.split(stryMutAct_9fa48("1195") ? "" : (stryCov_9fa48("1195"), "*")));
    return ignoreCase ? stryMutAct_9fa48("1196") ? () => undefined : (stryCov_9fa48("1196"), input => match(stryMutAct_9fa48("1197") ? input.toUpperCase() : (stryCov_9fa48("1197"), input.toLowerCase()))) : match;
  }
}
function compileParts(parts: readonly string[]): GlobMatcher {
  if (stryMutAct_9fa48("1198")) {
    {}
  } else {
    stryCov_9fa48("1198");
    if (stryMutAct_9fa48("1201") ? parts.length !== 1 : stryMutAct_9fa48("1200") ? false : stryMutAct_9fa48("1199") ? true : (stryCov_9fa48("1199", "1200", "1201"), parts.length === 1)) {
      if (stryMutAct_9fa48("1202")) {
        {}
      } else {
        stryCov_9fa48("1202");
        const literal = parts[0];
        return stryMutAct_9fa48("1203") ? () => undefined : (stryCov_9fa48("1203"), input => stryMutAct_9fa48("1206") ? input !== literal : stryMutAct_9fa48("1205") ? false : stryMutAct_9fa48("1204") ? true : (stryCov_9fa48("1204", "1205", "1206"), input === literal));
      }
    }
    const first = parts[0];
    const last = parts[stryMutAct_9fa48("1207") ? parts.length + 1 : (stryCov_9fa48("1207"), parts.length - 1)];
    // Empty middle parts come from `**` and constrain nothing.
    const middle = stryMutAct_9fa48("1209") ? parts.filter(part => part !== "") : stryMutAct_9fa48("1208") ? parts.slice(1, -1) : (stryCov_9fa48("1208", "1209"), parts.slice(1, stryMutAct_9fa48("1210") ? +1 : (stryCov_9fa48("1210"), -1)).filter(stryMutAct_9fa48("1211") ? () => undefined : (stryCov_9fa48("1211"), part => stryMutAct_9fa48("1214") ? part === "" : stryMutAct_9fa48("1213") ? false : stryMutAct_9fa48("1212") ? true : (stryCov_9fa48("1212", "1213", "1214"), part !== (stryMutAct_9fa48("1215") ? "Stryker was here!" : (stryCov_9fa48("1215"), ""))))));
    if (stryMutAct_9fa48("1218") ? middle.length !== 0 : stryMutAct_9fa48("1217") ? false : stryMutAct_9fa48("1216") ? true : (stryCov_9fa48("1216", "1217", "1218"), middle.length === 0)) {
      if (stryMutAct_9fa48("1219")) {
        {}
      } else {
        stryCov_9fa48("1219");
        if (stryMutAct_9fa48("1222") ? last !== "" : stryMutAct_9fa48("1221") ? false : stryMutAct_9fa48("1220") ? true : (stryCov_9fa48("1220", "1221", "1222"), last === (stryMutAct_9fa48("1223") ? "Stryker was here!" : (stryCov_9fa48("1223"), "")))) return (stryMutAct_9fa48("1226") ? first !== "" : stryMutAct_9fa48("1225") ? false : stryMutAct_9fa48("1224") ? true : (stryCov_9fa48("1224", "1225", "1226"), first === (stryMutAct_9fa48("1227") ? "Stryker was here!" : (stryCov_9fa48("1227"), "")))) ? stryMutAct_9fa48("1228") ? () => undefined : (stryCov_9fa48("1228"), () => stryMutAct_9fa48("1229") ? false : (stryCov_9fa48("1229"), true)) : stryMutAct_9fa48("1230") ? () => undefined : (stryCov_9fa48("1230"), input => stryMutAct_9fa48("1231") ? input.endsWith(first) : (stryCov_9fa48("1231"), input.startsWith(first)));
        const minLength = stryMutAct_9fa48("1232") ? first.length - last.length : (stryCov_9fa48("1232"), first.length + last.length);
        return stryMutAct_9fa48("1233") ? () => undefined : (stryCov_9fa48("1233"), input => stryMutAct_9fa48("1236") ? input.length >= minLength && input.startsWith(first) || input.endsWith(last) : stryMutAct_9fa48("1235") ? false : stryMutAct_9fa48("1234") ? true : (stryCov_9fa48("1234", "1235", "1236"), (stryMutAct_9fa48("1238") ? input.length >= minLength || input.startsWith(first) : stryMutAct_9fa48("1237") ? true : (stryCov_9fa48("1237", "1238"), (stryMutAct_9fa48("1241") ? input.length < minLength : stryMutAct_9fa48("1240") ? input.length > minLength : stryMutAct_9fa48("1239") ? true : (stryCov_9fa48("1239", "1240", "1241"), input.length >= minLength)) && (stryMutAct_9fa48("1242") ? input.endsWith(first) : (stryCov_9fa48("1242"), input.startsWith(first))))) && (stryMutAct_9fa48("1243") ? input.startsWith(last) : (stryCov_9fa48("1243"), input.endsWith(last)))));
      }
    }
    const minLength = parts.reduce(stryMutAct_9fa48("1244") ? () => undefined : (stryCov_9fa48("1244"), (sum, part) => stryMutAct_9fa48("1245") ? sum - part.length : (stryCov_9fa48("1245"), sum + part.length)), 0);
    return input => {
      if (stryMutAct_9fa48("1246")) {
        {}
      } else {
        stryCov_9fa48("1246");
        if (stryMutAct_9fa48("1249") ? (input.length < minLength || !input.startsWith(first)) && !input.endsWith(last) : stryMutAct_9fa48("1248") ? false : stryMutAct_9fa48("1247") ? true : (stryCov_9fa48("1247", "1248", "1249"), (stryMutAct_9fa48("1251") ? input.length < minLength && !input.startsWith(first) : stryMutAct_9fa48("1250") ? false : (stryCov_9fa48("1250", "1251"), (stryMutAct_9fa48("1254") ? input.length >= minLength : stryMutAct_9fa48("1253") ? input.length <= minLength : stryMutAct_9fa48("1252") ? false : (stryCov_9fa48("1252", "1253", "1254"), input.length < minLength)) || (stryMutAct_9fa48("1255") ? input.startsWith(first) : (stryCov_9fa48("1255"), !(stryMutAct_9fa48("1256") ? input.endsWith(first) : (stryCov_9fa48("1256"), input.startsWith(first))))))) || (stryMutAct_9fa48("1257") ? input.endsWith(last) : (stryCov_9fa48("1257"), !(stryMutAct_9fa48("1258") ? input.startsWith(last) : (stryCov_9fa48("1258"), input.endsWith(last))))))) return stryMutAct_9fa48("1259") ? true : (stryCov_9fa48("1259"), false);
        // Leftmost placement of each middle part leaves the most room for the
        // rest, so a greedy scan is exact for `*`-only globs.
        const end = stryMutAct_9fa48("1260") ? input.length + last.length : (stryCov_9fa48("1260"), input.length - last.length);
        let from = first.length;
        for (const part of middle) {
          if (stryMutAct_9fa48("1261")) {
            {}
          } else {
            stryCov_9fa48("1261");
            const at = input.indexOf(part, from);
            if (stryMutAct_9fa48("1264") ? at < 0 && at + part.length > end : stryMutAct_9fa48("1263") ? false : stryMutAct_9fa48("1262") ? true : (stryCov_9fa48("1262", "1263", "1264"), (stryMutAct_9fa48("1267") ? at >= 0 : stryMutAct_9fa48("1266") ? at <= 0 : stryMutAct_9fa48("1265") ? false : (stryCov_9fa48("1265", "1266", "1267"), at < 0)) || (stryMutAct_9fa48("1270") ? at + part.length <= end : stryMutAct_9fa48("1269") ? at + part.length >= end : stryMutAct_9fa48("1268") ? false : (stryCov_9fa48("1268", "1269", "1270"), (stryMutAct_9fa48("1271") ? at - part.length : (stryCov_9fa48("1271"), at + part.length)) > end)))) return stryMutAct_9fa48("1272") ? true : (stryCov_9fa48("1272"), false);
            from = stryMutAct_9fa48("1273") ? at - part.length : (stryCov_9fa48("1273"), at + part.length);
          }
        }
        return stryMutAct_9fa48("1274") ? false : (stryCov_9fa48("1274"), true);
      }
    };
  }
}