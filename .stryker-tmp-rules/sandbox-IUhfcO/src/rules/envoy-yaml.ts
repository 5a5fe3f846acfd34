/**
 * Envoy rate limit service configs (parsed YAML) into floodgate rules: the
 * same keys, so mostly a copy, with Envoy's loose spots made explicit —
 * scalar keys and values become strings, units are lower-cased, a missing
 * `requests_per_unit` is Envoy's 0, empty values mean "no value", and every
 * limit pins `fixed_window`, the algorithm Envoy's service uses, so migrated
 * rules answer as before. Options that only shape Envoy's metrics or dynamic
 * metadata are dropped with a warning; options that change decisions and
 * floodgate lacks stay, for the compiler to reject.
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
import { indexPath, keyPath } from "./reader.ts";
import type { RuleError } from "./types.ts";
export interface Converted {
  /** The rules document (valid or not: compile it to know). */
  readonly document: unknown;
  readonly errors: readonly RuleError[];
  readonly warnings: readonly RuleError[];
}
type Obj = Record<string, unknown>;
interface Notes {
  readonly errors: RuleError[];
  readonly warnings: RuleError[];
}

/**
 * Convert one Envoy config (a YAML document as JS values; maps may be
 * `Map`s, which is how non-string keys are caught, as Envoy catches them).
 *
 * @example
 * fromEnvoy({ domain: "mongo_cps", descriptors: [{ key: "database", value: "users",
 *   rate_limit: { unit: "SECOND", requests_per_unit: 500 } }] }).document;
 * // { domain: "mongo_cps", descriptors: [{ key: "database", value: "users",
 * //   rate_limit: { unit: "second", requests_per_unit: 500, algorithm: "fixed_window" } }] }
 */
export function fromEnvoy(yaml: unknown): Converted {
  if (stryMutAct_9fa48("888")) {
    {}
  } else {
    stryCov_9fa48("888");
    const notes: Notes = stryMutAct_9fa48("889") ? {} : (stryCov_9fa48("889"), {
      errors: stryMutAct_9fa48("890") ? ["Stryker was here"] : (stryCov_9fa48("890"), []),
      warnings: stryMutAct_9fa48("891") ? ["Stryker was here"] : (stryCov_9fa48("891"), [])
    });
    const root = plain(yaml, stryMutAct_9fa48("892") ? "" : (stryCov_9fa48("892"), "$"), notes);
    if (stryMutAct_9fa48("895") ? false : stryMutAct_9fa48("894") ? true : stryMutAct_9fa48("893") ? isObj(root) : (stryCov_9fa48("893", "894", "895"), !isObj(root))) return stryMutAct_9fa48("896") ? {} : (stryCov_9fa48("896"), {
      document: root,
      ...notes
    });
    const document: Obj = stryMutAct_9fa48("897") ? {} : (stryCov_9fa48("897"), {
      ...root
    });
    if (stryMutAct_9fa48("899") ? false : stryMutAct_9fa48("898") ? true : (stryCov_9fa48("898", "899"), isScalar(document.domain))) document.domain = String(document.domain);
    if (stryMutAct_9fa48("902") ? document.domain !== null : stryMutAct_9fa48("901") ? false : stryMutAct_9fa48("900") ? true : (stryCov_9fa48("900", "901", "902"), document.domain === null)) delete document.domain;
    if (stryMutAct_9fa48("905") ? document.descriptors !== null : stryMutAct_9fa48("904") ? false : stryMutAct_9fa48("903") ? true : (stryCov_9fa48("903", "904", "905"), document.descriptors === null)) delete document.descriptors;
    if (stryMutAct_9fa48("907") ? false : stryMutAct_9fa48("906") ? true : (stryCov_9fa48("906", "907"), Array.isArray(document.descriptors))) {
      if (stryMutAct_9fa48("908")) {
        {}
      } else {
        stryCov_9fa48("908");
        document.descriptors = document.descriptors.map(stryMutAct_9fa48("909") ? () => undefined : (stryCov_9fa48("909"), (d, i) => descriptor(d, indexPath(keyPath(stryMutAct_9fa48("910") ? "" : (stryCov_9fa48("910"), "$"), stryMutAct_9fa48("911") ? "" : (stryCov_9fa48("911"), "descriptors")), i), notes)));
      }
    }
    return stryMutAct_9fa48("912") ? {} : (stryCov_9fa48("912"), {
      document,
      ...notes
    });
  }
}
function descriptor(value: unknown, path: string, notes: Notes): unknown {
  if (stryMutAct_9fa48("913")) {
    {}
  } else {
    stryCov_9fa48("913");
    if (stryMutAct_9fa48("916") ? false : stryMutAct_9fa48("915") ? true : stryMutAct_9fa48("914") ? isObj(value) : (stryCov_9fa48("914", "915", "916"), !isObj(value))) return value;
    const out: Obj = stryMutAct_9fa48("917") ? {} : (stryCov_9fa48("917"), {
      ...value
    });
    if (stryMutAct_9fa48("919") ? false : stryMutAct_9fa48("918") ? true : (stryCov_9fa48("918", "919"), isScalar(out.key))) out.key = String(out.key);
    if (stryMutAct_9fa48("922") ? out.key !== null : stryMutAct_9fa48("921") ? false : stryMutAct_9fa48("920") ? true : (stryCov_9fa48("920", "921", "922"), out.key === null)) out.key = stryMutAct_9fa48("923") ? "Stryker was here!" : (stryCov_9fa48("923"), "");
    if (stryMutAct_9fa48("925") ? false : stryMutAct_9fa48("924") ? true : (stryCov_9fa48("924", "925"), isScalar(out.value))) out.value = String(out.value);
    if (stryMutAct_9fa48("928") ? out.value === null && out.value === "" : stryMutAct_9fa48("927") ? false : stryMutAct_9fa48("926") ? true : (stryCov_9fa48("926", "927", "928"), (stryMutAct_9fa48("930") ? out.value !== null : stryMutAct_9fa48("929") ? false : (stryCov_9fa48("929", "930"), out.value === null)) || (stryMutAct_9fa48("932") ? out.value !== "" : stryMutAct_9fa48("931") ? false : (stryCov_9fa48("931", "932"), out.value === (stryMutAct_9fa48("933") ? "Stryker was here!" : (stryCov_9fa48("933"), "")))))) delete out.value;
    for (const key of stryMutAct_9fa48("934") ? [] : (stryCov_9fa48("934"), [stryMutAct_9fa48("935") ? "" : (stryCov_9fa48("935"), "rate_limit"), stryMutAct_9fa48("936") ? "" : (stryCov_9fa48("936"), "descriptors"), stryMutAct_9fa48("937") ? "" : (stryCov_9fa48("937"), "shadow_mode"), stryMutAct_9fa48("938") ? "" : (stryCov_9fa48("938"), "detailed_metric")])) if (stryMutAct_9fa48("941") ? out[key] !== null : stryMutAct_9fa48("940") ? false : stryMutAct_9fa48("939") ? true : (stryCov_9fa48("939", "940", "941"), out[key] === null)) delete out[key];
    for (const key of stryMutAct_9fa48("942") ? [] : (stryCov_9fa48("942"), [stryMutAct_9fa48("943") ? "" : (stryCov_9fa48("943"), "quota_mode"), stryMutAct_9fa48("944") ? "" : (stryCov_9fa48("944"), "share_threshold"), stryMutAct_9fa48("945") ? "" : (stryCov_9fa48("945"), "value_to_metric")])) if (stryMutAct_9fa48("948") ? out[key] === false && out[key] === null : stryMutAct_9fa48("947") ? false : stryMutAct_9fa48("946") ? true : (stryCov_9fa48("946", "947", "948"), (stryMutAct_9fa48("950") ? out[key] !== false : stryMutAct_9fa48("949") ? false : (stryCov_9fa48("949", "950"), out[key] === (stryMutAct_9fa48("951") ? true : (stryCov_9fa48("951"), false)))) || (stryMutAct_9fa48("953") ? out[key] !== null : stryMutAct_9fa48("952") ? false : (stryCov_9fa48("952", "953"), out[key] === null)))) delete out[key];
    if (stryMutAct_9fa48("955") ? false : stryMutAct_9fa48("954") ? true : (stryCov_9fa48("954", "955"), Object.hasOwn(out, stryMutAct_9fa48("956") ? "" : (stryCov_9fa48("956"), "value_to_metric")))) {
      if (stryMutAct_9fa48("957")) {
        {}
      } else {
        stryCov_9fa48("957");
        delete out.value_to_metric;
        notes.warnings.push(stryMutAct_9fa48("959") ? {} : (stryCov_9fa48("959"), {
          path: keyPath(path, stryMutAct_9fa48("960") ? "" : (stryCov_9fa48("960"), "value_to_metric")),
          message: stryMutAct_9fa48("961") ? "" : (stryCov_9fa48("961"), "dropped: it only adds request values to Envoy's metric names (use detailed_metric for that in floodgate)")
        }));
      }
    }
    if (stryMutAct_9fa48("963") ? false : stryMutAct_9fa48("962") ? true : (stryCov_9fa48("962", "963"), Object.hasOwn(out, stryMutAct_9fa48("964") ? "" : (stryCov_9fa48("964"), "metadata")))) {
      if (stryMutAct_9fa48("965")) {
        {}
      } else {
        stryCov_9fa48("965");
        delete out.metadata;
        notes.warnings.push(stryMutAct_9fa48("967") ? {} : (stryCov_9fa48("967"), {
          path: keyPath(path, stryMutAct_9fa48("968") ? "" : (stryCov_9fa48("968"), "metadata")),
          message: stryMutAct_9fa48("969") ? "" : (stryCov_9fa48("969"), "dropped: floodgate does not return dynamic metadata")
        }));
      }
    }
    if (stryMutAct_9fa48("972") ? out.rate_limit === undefined : stryMutAct_9fa48("971") ? false : stryMutAct_9fa48("970") ? true : (stryCov_9fa48("970", "971", "972"), out.rate_limit !== undefined)) out.rate_limit = rateLimit(out.rate_limit, keyPath(path, stryMutAct_9fa48("973") ? "" : (stryCov_9fa48("973"), "rate_limit")), notes);
    if (stryMutAct_9fa48("975") ? false : stryMutAct_9fa48("974") ? true : (stryCov_9fa48("974", "975"), Array.isArray(out.descriptors))) {
      if (stryMutAct_9fa48("976")) {
        {}
      } else {
        stryCov_9fa48("976");
        out.descriptors = out.descriptors.map(stryMutAct_9fa48("977") ? () => undefined : (stryCov_9fa48("977"), (d, i) => descriptor(d, indexPath(keyPath(path, stryMutAct_9fa48("978") ? "" : (stryCov_9fa48("978"), "descriptors")), i), notes)));
      }
    }
    return out;
  }
}
function rateLimit(value: unknown, path: string, notes: Notes): unknown {
  if (stryMutAct_9fa48("979")) {
    {}
  } else {
    stryCov_9fa48("979");
    if (stryMutAct_9fa48("982") ? false : stryMutAct_9fa48("981") ? true : stryMutAct_9fa48("980") ? isObj(value) : (stryCov_9fa48("980", "981", "982"), !isObj(value))) return value;
    const out: Obj = stryMutAct_9fa48("983") ? {} : (stryCov_9fa48("983"), {
      ...value
    });
    if (stryMutAct_9fa48("985") ? false : stryMutAct_9fa48("984") ? true : (stryCov_9fa48("984", "985"), isScalar(out.name))) out.name = String(out.name);
    if (stryMutAct_9fa48("988") ? out.name === "" && out.name === null : stryMutAct_9fa48("987") ? false : stryMutAct_9fa48("986") ? true : (stryCov_9fa48("986", "987", "988"), (stryMutAct_9fa48("990") ? out.name !== "" : stryMutAct_9fa48("989") ? false : (stryCov_9fa48("989", "990"), out.name === (stryMutAct_9fa48("991") ? "Stryker was here!" : (stryCov_9fa48("991"), "")))) || (stryMutAct_9fa48("993") ? out.name !== null : stryMutAct_9fa48("992") ? false : (stryCov_9fa48("992", "993"), out.name === null)))) delete out.name;
    if (stryMutAct_9fa48("996") ? out.replaces !== null : stryMutAct_9fa48("995") ? false : stryMutAct_9fa48("994") ? true : (stryCov_9fa48("994", "995", "996"), out.replaces === null)) delete out.replaces;
    if (stryMutAct_9fa48("998") ? false : stryMutAct_9fa48("997") ? true : (stryCov_9fa48("997", "998"), Array.isArray(out.replaces))) {
      if (stryMutAct_9fa48("999")) {
        {}
      } else {
        stryCov_9fa48("999");
        // An empty `- name:` reads as null; as "" the compiler reports it as an empty name, which it is.
        out.replaces = out.replaces.map(entry => {
          if (stryMutAct_9fa48("1000")) {
            {}
          } else {
            stryCov_9fa48("1000");
            if (stryMutAct_9fa48("1003") ? false : stryMutAct_9fa48("1002") ? true : stryMutAct_9fa48("1001") ? isObj(entry) : (stryCov_9fa48("1001", "1002", "1003"), !isObj(entry))) return entry;
            if (stryMutAct_9fa48("1006") ? entry.name !== null : stryMutAct_9fa48("1005") ? false : stryMutAct_9fa48("1004") ? true : (stryCov_9fa48("1004", "1005", "1006"), entry.name === null)) return stryMutAct_9fa48("1007") ? {} : (stryCov_9fa48("1007"), {
              ...entry,
              name: stryMutAct_9fa48("1008") ? "Stryker was here!" : (stryCov_9fa48("1008"), "")
            });
            return isScalar(entry.name) ? stryMutAct_9fa48("1009") ? {} : (stryCov_9fa48("1009"), {
              ...entry,
              name: String(entry.name)
            }) : entry;
          }
        });
      }
    }
    if (stryMutAct_9fa48("1012") ? typeof out.unit !== "string" : stryMutAct_9fa48("1011") ? false : stryMutAct_9fa48("1010") ? true : (stryCov_9fa48("1010", "1011", "1012"), typeof out.unit === (stryMutAct_9fa48("1013") ? "" : (stryCov_9fa48("1013"), "string")))) out.unit = stryMutAct_9fa48("1014") ? out.unit.toUpperCase() : (stryCov_9fa48("1014"), out.unit.toLowerCase());
    if (stryMutAct_9fa48("1017") ? out.unlimited === false && out.unlimited === null : stryMutAct_9fa48("1016") ? false : stryMutAct_9fa48("1015") ? true : (stryCov_9fa48("1015", "1016", "1017"), (stryMutAct_9fa48("1019") ? out.unlimited !== false : stryMutAct_9fa48("1018") ? false : (stryCov_9fa48("1018", "1019"), out.unlimited === (stryMutAct_9fa48("1020") ? true : (stryCov_9fa48("1020"), false)))) || (stryMutAct_9fa48("1022") ? out.unlimited !== null : stryMutAct_9fa48("1021") ? false : (stryCov_9fa48("1021", "1022"), out.unlimited === null)))) delete out.unlimited;
    if (stryMutAct_9fa48("1025") ? out.unlimited !== true : stryMutAct_9fa48("1024") ? false : stryMutAct_9fa48("1023") ? true : (stryCov_9fa48("1023", "1024", "1025"), out.unlimited === (stryMutAct_9fa48("1026") ? false : (stryCov_9fa48("1026"), true)))) {
      if (stryMutAct_9fa48("1027")) {
        {}
      } else {
        stryCov_9fa48("1027");
        if (stryMutAct_9fa48("1030") ? Object.hasOwn(out, "requests_per_unit") || !Object.hasOwn(out, "unit") : stryMutAct_9fa48("1029") ? false : stryMutAct_9fa48("1028") ? true : (stryCov_9fa48("1028", "1029", "1030"), Object.hasOwn(out, stryMutAct_9fa48("1031") ? "" : (stryCov_9fa48("1031"), "requests_per_unit")) && (stryMutAct_9fa48("1032") ? Object.hasOwn(out, "unit") : (stryCov_9fa48("1032"), !Object.hasOwn(out, stryMutAct_9fa48("1033") ? "" : (stryCov_9fa48("1033"), "unit")))))) {
          if (stryMutAct_9fa48("1034")) {
            {}
          } else {
            stryCov_9fa48("1034");
            delete out.requests_per_unit;
            notes.warnings.push(stryMutAct_9fa48("1036") ? {} : (stryCov_9fa48("1036"), {
              path: keyPath(path, stryMutAct_9fa48("1037") ? "" : (stryCov_9fa48("1037"), "requests_per_unit")),
              message: stryMutAct_9fa48("1038") ? "" : (stryCov_9fa48("1038"), "dropped: Envoy ignores requests_per_unit on an unlimited rate limit")
            }));
          }
        }
        return out;
      }
    }
    if (stryMutAct_9fa48("1041") ? !Object.hasOwn(out, "requests_per_unit") && out.requests_per_unit === null : stryMutAct_9fa48("1040") ? false : stryMutAct_9fa48("1039") ? true : (stryCov_9fa48("1039", "1040", "1041"), (stryMutAct_9fa48("1042") ? Object.hasOwn(out, "requests_per_unit") : (stryCov_9fa48("1042"), !Object.hasOwn(out, stryMutAct_9fa48("1043") ? "" : (stryCov_9fa48("1043"), "requests_per_unit")))) || (stryMutAct_9fa48("1045") ? out.requests_per_unit !== null : stryMutAct_9fa48("1044") ? false : (stryCov_9fa48("1044", "1045"), out.requests_per_unit === null)))) {
      if (stryMutAct_9fa48("1046")) {
        {}
      } else {
        stryCov_9fa48("1046");
        out.requests_per_unit = 0;
        notes.warnings.push(stryMutAct_9fa48("1048") ? {} : (stryCov_9fa48("1048"), {
          path: keyPath(path, stryMutAct_9fa48("1049") ? "" : (stryCov_9fa48("1049"), "requests_per_unit")),
          message: stryMutAct_9fa48("1050") ? "" : (stryCov_9fa48("1050"), "missing: Envoy reads it as 0, so every request is over this limit")
        }));
      }
    }
    if (stryMutAct_9fa48("1053") ? false : stryMutAct_9fa48("1052") ? true : stryMutAct_9fa48("1051") ? Object.hasOwn(out, "algorithm") : (stryCov_9fa48("1051", "1052", "1053"), !Object.hasOwn(out, stryMutAct_9fa48("1054") ? "" : (stryCov_9fa48("1054"), "algorithm")))) out.algorithm = stryMutAct_9fa48("1055") ? "" : (stryCov_9fa48("1055"), "fixed_window");
    return out;
  }
}

// YAML maps as Maps into plain objects; a key that is not a string is an error, as in Envoy.
function plain(value: unknown, path: string, notes: Notes): unknown {
  if (stryMutAct_9fa48("1056")) {
    {}
  } else {
    stryCov_9fa48("1056");
    if (stryMutAct_9fa48("1058") ? false : stryMutAct_9fa48("1057") ? true : (stryCov_9fa48("1057", "1058"), value instanceof Map)) {
      if (stryMutAct_9fa48("1059")) {
        {}
      } else {
        stryCov_9fa48("1059");
        const out: Obj = {};
        for (const [key, item] of value) {
          if (stryMutAct_9fa48("1060")) {
            {}
          } else {
            stryCov_9fa48("1060");
            if (stryMutAct_9fa48("1063") ? typeof key === "string" : stryMutAct_9fa48("1062") ? false : stryMutAct_9fa48("1061") ? true : (stryCov_9fa48("1061", "1062", "1063"), typeof key !== (stryMutAct_9fa48("1064") ? "" : (stryCov_9fa48("1064"), "string")))) {
              if (stryMutAct_9fa48("1065")) {
                {}
              } else {
                stryCov_9fa48("1065");
                notes.errors.push(stryMutAct_9fa48("1067") ? {} : (stryCov_9fa48("1067"), {
                  path,
                  message: stryMutAct_9fa48("1068") ? `` : (stryCov_9fa48("1068"), `key ${JSON.stringify(String(key))} is not a string (a ${(stryMutAct_9fa48("1071") ? key !== null : stryMutAct_9fa48("1070") ? false : stryMutAct_9fa48("1069") ? true : (stryCov_9fa48("1069", "1070", "1071"), key === null)) ? stryMutAct_9fa48("1072") ? "" : (stryCov_9fa48("1072"), "null") : typeof key}); quote it`)
                }));
                continue;
              }
            }
            out[key] = plain(item, keyPath(path, key), notes);
          }
        }
        return out;
      }
    }
    if (stryMutAct_9fa48("1074") ? false : stryMutAct_9fa48("1073") ? true : (stryCov_9fa48("1073", "1074"), Array.isArray(value))) return value.map(stryMutAct_9fa48("1075") ? () => undefined : (stryCov_9fa48("1075"), (item, i) => plain(item, indexPath(path, i), notes)));
    return value;
  }
}
function isObj(value: unknown): value is Obj {
  if (stryMutAct_9fa48("1076")) {
    {}
  } else {
    stryCov_9fa48("1076");
    return stryMutAct_9fa48("1079") ? typeof value === "object" && value !== null && !Array.isArray(value) || !(value instanceof Map) : stryMutAct_9fa48("1078") ? false : stryMutAct_9fa48("1077") ? true : (stryCov_9fa48("1077", "1078", "1079"), (stryMutAct_9fa48("1081") ? typeof value === "object" && value !== null || !Array.isArray(value) : stryMutAct_9fa48("1080") ? true : (stryCov_9fa48("1080", "1081"), (stryMutAct_9fa48("1083") ? typeof value === "object" || value !== null : stryMutAct_9fa48("1082") ? true : (stryCov_9fa48("1082", "1083"), (stryMutAct_9fa48("1085") ? typeof value !== "object" : stryMutAct_9fa48("1084") ? true : (stryCov_9fa48("1084", "1085"), typeof value === (stryMutAct_9fa48("1086") ? "" : (stryCov_9fa48("1086"), "object")))) && (stryMutAct_9fa48("1088") ? value === null : stryMutAct_9fa48("1087") ? true : (stryCov_9fa48("1087", "1088"), value !== null)))) && (stryMutAct_9fa48("1089") ? Array.isArray(value) : (stryCov_9fa48("1089"), !Array.isArray(value))))) && (stryMutAct_9fa48("1090") ? value instanceof Map : (stryCov_9fa48("1090"), !(value instanceof Map))));
  }
}
function isScalar(value: unknown): value is number | boolean | bigint {
  if (stryMutAct_9fa48("1091")) {
    {}
  } else {
    stryCov_9fa48("1091");
    return stryMutAct_9fa48("1094") ? (typeof value === "number" || typeof value === "boolean") && typeof value === "bigint" : stryMutAct_9fa48("1093") ? false : stryMutAct_9fa48("1092") ? true : (stryCov_9fa48("1092", "1093", "1094"), (stryMutAct_9fa48("1096") ? typeof value === "number" && typeof value === "boolean" : stryMutAct_9fa48("1095") ? false : (stryCov_9fa48("1095", "1096"), (stryMutAct_9fa48("1098") ? typeof value !== "number" : stryMutAct_9fa48("1097") ? false : (stryCov_9fa48("1097", "1098"), typeof value === (stryMutAct_9fa48("1099") ? "" : (stryCov_9fa48("1099"), "number")))) || (stryMutAct_9fa48("1101") ? typeof value !== "boolean" : stryMutAct_9fa48("1100") ? false : (stryCov_9fa48("1100", "1101"), typeof value === (stryMutAct_9fa48("1102") ? "" : (stryCov_9fa48("1102"), "boolean")))))) || (stryMutAct_9fa48("1104") ? typeof value !== "bigint" : stryMutAct_9fa48("1103") ? false : (stryCov_9fa48("1103", "1104"), typeof value === (stryMutAct_9fa48("1105") ? "" : (stryCov_9fa48("1105"), "bigint")))));
  }
}