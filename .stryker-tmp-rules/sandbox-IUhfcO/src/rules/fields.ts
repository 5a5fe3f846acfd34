/**
 * Readers for single members of a JSON object. Each returns `undefined` when
 * the member is absent or invalid, recording an error in the invalid case.
 */
// @ts-nocheck
function stryNS_9fa48() {
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
import { type Diagnostics, type JsonObject, jsonType, keyPath } from "./reader.ts";
import { closest } from "./suggest.ts";

/**
 * Record `missing required key` unless `obj` has `key`.
 *
 * @example
 * requireKey(d, {}, "domain", "$"); // false; error at $: missing required key "domain"
 */
export function requireKey(d: Diagnostics, obj: JsonObject, key: string, path: string): boolean {
  if (stryMutAct_9fa48("1106")) {
    {}
  } else {
    stryCov_9fa48("1106");
    if (stryMutAct_9fa48("1108") ? false : stryMutAct_9fa48("1107") ? true : (stryCov_9fa48("1107", "1108"), Object.hasOwn(obj, key))) return stryMutAct_9fa48("1109") ? false : (stryCov_9fa48("1109"), true);
    d.add(path, stryMutAct_9fa48("1111") ? `` : (stryCov_9fa48("1111"), `missing required key "${key}"`));
    return stryMutAct_9fa48("1112") ? true : (stryCov_9fa48("1112"), false);
  }
}

/**
 * A string member. Empty strings are rejected with `emptyMessage` unless it is `null`.
 *
 * @example
 * readString(d, { key: "" }, "key", "$.descriptors[0]"); // undefined; error "must be a non-empty string"
 */
export function readString(d: Diagnostics, obj: JsonObject, key: string, path: string, emptyMessage: string | null = stryMutAct_9fa48("1113") ? "" : (stryCov_9fa48("1113"), "must be a non-empty string")): string | undefined {
  if (stryMutAct_9fa48("1114")) {
    {}
  } else {
    stryCov_9fa48("1114");
    if (stryMutAct_9fa48("1117") ? false : stryMutAct_9fa48("1116") ? true : stryMutAct_9fa48("1115") ? Object.hasOwn(obj, key) : (stryCov_9fa48("1115", "1116", "1117"), !Object.hasOwn(obj, key))) return undefined;
    const value = obj[key];
    if (stryMutAct_9fa48("1120") ? typeof value === "string" : stryMutAct_9fa48("1119") ? false : stryMutAct_9fa48("1118") ? true : (stryCov_9fa48("1118", "1119", "1120"), typeof value !== (stryMutAct_9fa48("1121") ? "" : (stryCov_9fa48("1121"), "string")))) {
      if (stryMutAct_9fa48("1122")) {
        {}
      } else {
        stryCov_9fa48("1122");
        d.add(keyPath(path, key), stryMutAct_9fa48("1124") ? `` : (stryCov_9fa48("1124"), `expected a string, got ${jsonType(value)}`));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("1127") ? value === "" || emptyMessage !== null : stryMutAct_9fa48("1126") ? false : stryMutAct_9fa48("1125") ? true : (stryCov_9fa48("1125", "1126", "1127"), (stryMutAct_9fa48("1129") ? value !== "" : stryMutAct_9fa48("1128") ? true : (stryCov_9fa48("1128", "1129"), value === (stryMutAct_9fa48("1130") ? "Stryker was here!" : (stryCov_9fa48("1130"), "")))) && (stryMutAct_9fa48("1132") ? emptyMessage === null : stryMutAct_9fa48("1131") ? true : (stryCov_9fa48("1131", "1132"), emptyMessage !== null)))) {
      if (stryMutAct_9fa48("1133")) {
        {}
      } else {
        stryCov_9fa48("1133");
        if (stryMutAct_9fa48("1134")) {
          ;
        } else {
          stryCov_9fa48("1134");
          d.add(keyPath(path, key), emptyMessage);
        }
        return undefined;
      }
    }
    return value;
  }
}

/**
 * A boolean member.
 *
 * @example
 * readBool(d, { shadow_mode: "yes" }, "shadow_mode", "$"); // undefined; error "expected a boolean, got string"
 */
export function readBool(d: Diagnostics, obj: JsonObject, key: string, path: string): boolean | undefined {
  if (stryMutAct_9fa48("1135")) {
    {}
  } else {
    stryCov_9fa48("1135");
    if (stryMutAct_9fa48("1138") ? false : stryMutAct_9fa48("1137") ? true : stryMutAct_9fa48("1136") ? Object.hasOwn(obj, key) : (stryCov_9fa48("1136", "1137", "1138"), !Object.hasOwn(obj, key))) return undefined;
    const value = obj[key];
    if (stryMutAct_9fa48("1141") ? typeof value !== "boolean" : stryMutAct_9fa48("1140") ? false : stryMutAct_9fa48("1139") ? true : (stryCov_9fa48("1139", "1140", "1141"), typeof value === (stryMutAct_9fa48("1142") ? "" : (stryCov_9fa48("1142"), "boolean")))) return value;
    d.add(keyPath(path, key), stryMutAct_9fa48("1144") ? `` : (stryCov_9fa48("1144"), `expected a boolean, got ${jsonType(value)}`));
    return undefined;
  }
}

/**
 * An integer member within `[min, max]`.
 *
 * @example
 * readInt(d, { burst: 0 }, "burst", "$.rate_limit", 1, 10); // undefined; error "must be at least 1, got 0"
 */
export function readInt(d: Diagnostics, obj: JsonObject, key: string, path: string, min: number, max: number): number | undefined {
  if (stryMutAct_9fa48("1145")) {
    {}
  } else {
    stryCov_9fa48("1145");
    if (stryMutAct_9fa48("1148") ? false : stryMutAct_9fa48("1147") ? true : stryMutAct_9fa48("1146") ? Object.hasOwn(obj, key) : (stryCov_9fa48("1146", "1147", "1148"), !Object.hasOwn(obj, key))) return undefined;
    const value = obj[key];
    const at = keyPath(path, key);
    if (stryMutAct_9fa48("1151") ? typeof value === "number" : stryMutAct_9fa48("1150") ? false : stryMutAct_9fa48("1149") ? true : (stryCov_9fa48("1149", "1150", "1151"), typeof value !== (stryMutAct_9fa48("1152") ? "" : (stryCov_9fa48("1152"), "number")))) {
      if (stryMutAct_9fa48("1153")) {
        {}
      } else {
        stryCov_9fa48("1153");
        d.add(at, stryMutAct_9fa48("1155") ? `` : (stryCov_9fa48("1155"), `expected an integer, got ${jsonType(value)}`));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("1158") ? false : stryMutAct_9fa48("1157") ? true : stryMutAct_9fa48("1156") ? Number.isInteger(value) : (stryCov_9fa48("1156", "1157", "1158"), !Number.isInteger(value))) {
      if (stryMutAct_9fa48("1159")) {
        {}
      } else {
        stryCov_9fa48("1159");
        d.add(at, stryMutAct_9fa48("1161") ? `` : (stryCov_9fa48("1161"), `expected an integer, got ${value}`));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("1165") ? value >= min : stryMutAct_9fa48("1164") ? value <= min : stryMutAct_9fa48("1163") ? false : stryMutAct_9fa48("1162") ? true : (stryCov_9fa48("1162", "1163", "1164", "1165"), value < min)) {
      if (stryMutAct_9fa48("1166")) {
        {}
      } else {
        stryCov_9fa48("1166");
        d.add(at, stryMutAct_9fa48("1168") ? `` : (stryCov_9fa48("1168"), `must be at least ${min}, got ${value}`));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("1172") ? value <= max : stryMutAct_9fa48("1171") ? value >= max : stryMutAct_9fa48("1170") ? false : stryMutAct_9fa48("1169") ? true : (stryCov_9fa48("1169", "1170", "1171", "1172"), value > max)) {
      if (stryMutAct_9fa48("1173")) {
        {}
      } else {
        stryCov_9fa48("1173");
        d.add(at, stryMutAct_9fa48("1175") ? `` : (stryCov_9fa48("1175"), `must be at most ${max}, got ${value}`));
        return undefined;
      }
    }
    return value;
  }
}

/**
 * A string member that must be one of `values`; `what` names it in messages.
 *
 * @example
 * readEnum(d, { unit: "minutes" }, "unit", "$", ["minute"], "unit");
 * // undefined; error 'unknown unit "minutes" (did you mean "minute"?)'
 */
export function readEnum<T extends string>(d: Diagnostics, obj: JsonObject, key: string, path: string, values: readonly T[], what: string): T | undefined {
  if (stryMutAct_9fa48("1176")) {
    {}
  } else {
    stryCov_9fa48("1176");
    const value = readString(d, obj, key, path, null);
    if (stryMutAct_9fa48("1179") ? value !== undefined : stryMutAct_9fa48("1178") ? false : stryMutAct_9fa48("1177") ? true : (stryCov_9fa48("1177", "1178", "1179"), value === undefined)) return undefined;
    if (stryMutAct_9fa48("1181") ? false : stryMutAct_9fa48("1180") ? true : (stryCov_9fa48("1180", "1181"), (values as readonly string[]).includes(value))) return value as T;
    const suggestion = closest(value, values);
    const hint = (stryMutAct_9fa48("1184") ? suggestion === undefined : stryMutAct_9fa48("1183") ? false : stryMutAct_9fa48("1182") ? true : (stryCov_9fa48("1182", "1183", "1184"), suggestion !== undefined)) ? stryMutAct_9fa48("1185") ? `` : (stryCov_9fa48("1185"), `did you mean "${suggestion}"?`) : stryMutAct_9fa48("1186") ? `` : (stryCov_9fa48("1186"), `expected one of: ${values.join(stryMutAct_9fa48("1187") ? "" : (stryCov_9fa48("1187"), ", "))}`);
    d.add(keyPath(path, key), stryMutAct_9fa48("1189") ? `` : (stryCov_9fa48("1189"), `unknown ${what} ${JSON.stringify(value)} (${hint})`));
    return undefined;
  }
}