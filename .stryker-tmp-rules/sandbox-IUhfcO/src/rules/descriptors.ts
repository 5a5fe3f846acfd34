/**
 * The `descriptors` tree into indexed, frozen DescriptorLevels.
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
import { addRange, isRangeValue } from "./cidr-values.ts";
import { CidrTable } from "./cidr.ts";
import type { DomainContext } from "./context.ts";
import { readBool, readString, requireKey } from "./fields.ts";
import { readEnvoyModes } from "./envoy-modes.ts";
import { compileGlob, isGlob } from "./glob.ts";
import { BOUNDS } from "./keys.ts";
import { readRateLimit } from "./limit.ts";
import { checkConcurrencyMix } from "./concurrency.ts";
import { descriptorLabel } from "./names.ts";
import { asArray, asObject, checkKeys, indexPath, type JsonObject, keyPath } from "./reader.ts";
import type { CompiledLimit, CompiledNode, DescriptorLevel } from "./types.ts";
type Wildcard = {
  readonly matches: (value: string) => boolean;
  readonly node: CompiledNode;
};

/** The level of a node without nested `descriptors`; shared, never mutated. */
export const EMPTY_LEVEL: DescriptorLevel = Object.freeze(stryMutAct_9fa48("579") ? {} : (stryCov_9fa48("579"), {
  exact: new Map(),
  wildcards: new Map(),
  keyOnly: new Map()
}));

/**
 * Read one `descriptors` array at `path` (`depth` 1 is the domain's top level;
 * `parentStat` is the parent node's Envoy stat key, "" at the top).
 * Invalid nodes are left out of the result; their errors are recorded.
 *
 * @example
 * const root = readLevel(ctx, [{ key: "remote_address", rate_limit: { unit: "second", requests_per_unit: 5 } }], "$.descriptors", "", 1);
 * root.keyOnly.get("remote_address")?.limits[0].limit; // 5
 */
export function readLevel(ctx: DomainContext, value: unknown, path: string, parentLabel: string, depth: number, parentStat = stryMutAct_9fa48("580") ? "Stryker was here!" : (stryCov_9fa48("580"), "")): DescriptorLevel {
  if (stryMutAct_9fa48("581")) {
    {}
  } else {
    stryCov_9fa48("581");
    const list = asArray(ctx.d, value, path);
    if (stryMutAct_9fa48("584") ? list === undefined && list.length === 0 : stryMutAct_9fa48("583") ? false : stryMutAct_9fa48("582") ? true : (stryCov_9fa48("582", "583", "584"), (stryMutAct_9fa48("586") ? list !== undefined : stryMutAct_9fa48("585") ? false : (stryCov_9fa48("585", "586"), list === undefined)) || (stryMutAct_9fa48("588") ? list.length !== 0 : stryMutAct_9fa48("587") ? false : (stryCov_9fa48("587", "588"), list.length === 0)))) return EMPTY_LEVEL;
    const exact = new Map<string, CompiledNode>();
    const wildcards = new Map<string, Wildcard[]>();
    const keyOnly = new Map<string, CompiledNode>();
    let ranges: CidrTable<CompiledNode> | undefined;
    const seen = new Map<string, string>();
    // Claims a key/value slot at this level; false (with an error) when already taken.
    const claim = (key: string, val: string | undefined, at: string): boolean => {
      if (stryMutAct_9fa48("589")) {
        {}
      } else {
        stryCov_9fa48("589");
        const slot = (stryMutAct_9fa48("592") ? val !== undefined : stryMutAct_9fa48("591") ? false : stryMutAct_9fa48("590") ? true : (stryCov_9fa48("590", "591", "592"), val === undefined)) ? key : stryMutAct_9fa48("593") ? `` : (stryCov_9fa48("593"), `${key}\u0000${val}`);
        const first = seen.get(slot);
        if (stryMutAct_9fa48("596") ? first !== undefined : stryMutAct_9fa48("595") ? false : stryMutAct_9fa48("594") ? true : (stryCov_9fa48("594", "595", "596"), first === undefined)) {
          if (stryMutAct_9fa48("597")) {
            {}
          } else {
            stryCov_9fa48("597");
            if (stryMutAct_9fa48("598")) {
              ;
            } else {
              stryCov_9fa48("598");
              seen.set(slot, at);
            }
            return stryMutAct_9fa48("599") ? false : (stryCov_9fa48("599"), true);
          }
        }
        const what = (stryMutAct_9fa48("602") ? val !== undefined : stryMutAct_9fa48("601") ? false : stryMutAct_9fa48("600") ? true : (stryCov_9fa48("600", "601", "602"), val === undefined)) ? stryMutAct_9fa48("603") ? `` : (stryCov_9fa48("603"), `key "${key}" without a value`) : stryMutAct_9fa48("604") ? `` : (stryCov_9fa48("604"), `key "${key}" with value ${JSON.stringify(val)}`);
        ctx.d.add(at, stryMutAct_9fa48("606") ? `` : (stryCov_9fa48("606"), `duplicate descriptor: ${what} is already defined at ${first}`));
        return stryMutAct_9fa48("607") ? true : (stryCov_9fa48("607"), false);
      }
    };
    list.forEach((item, i) => {
      if (stryMutAct_9fa48("609")) {
        {}
      } else {
        stryCov_9fa48("609");
        const node = readNode(ctx, item, indexPath(path, i), stryMutAct_9fa48("610") ? {} : (stryCov_9fa48("610"), {
          label: parentLabel,
          stat: parentStat
        }), depth, claim);
        if (stryMutAct_9fa48("613") ? node !== undefined : stryMutAct_9fa48("612") ? false : stryMutAct_9fa48("611") ? true : (stryCov_9fa48("611", "612", "613"), node === undefined)) return;
        if (stryMutAct_9fa48("616") ? node.value !== undefined : stryMutAct_9fa48("615") ? false : stryMutAct_9fa48("614") ? true : (stryCov_9fa48("614", "615", "616"), node.value === undefined)) {
          if (stryMutAct_9fa48("617")) {
            {}
          } else {
            stryCov_9fa48("617");
            if (stryMutAct_9fa48("618")) {
              ;
            } else {
              stryCov_9fa48("618");
              keyOnly.set(node.key, node);
            }
          }
        } else if (stryMutAct_9fa48("620") ? false : stryMutAct_9fa48("619") ? true : (stryCov_9fa48("619", "620"), isRangeValue(node.key, node.value))) {
          if (stryMutAct_9fa48("621")) {
            {}
          } else {
            stryCov_9fa48("621");
            addRange(ctx.d, stryMutAct_9fa48("623") ? ranges &&= new CidrTable() : (stryCov_9fa48("623"), ranges ??= new CidrTable()), node, keyPath(indexPath(path, i), stryMutAct_9fa48("624") ? "" : (stryCov_9fa48("624"), "value")));
          }
        } else if (stryMutAct_9fa48("626") ? false : stryMutAct_9fa48("625") ? true : (stryCov_9fa48("625", "626"), isGlob(node.value))) {
          if (stryMutAct_9fa48("627")) {
            {}
          } else {
            stryCov_9fa48("627");
            const entries = stryMutAct_9fa48("628") ? wildcards.get(node.key) && [] : (stryCov_9fa48("628"), wildcards.get(node.key) ?? (stryMutAct_9fa48("629") ? ["Stryker was here"] : (stryCov_9fa48("629"), [])));
            entries.push(Object.freeze(stryMutAct_9fa48("631") ? {} : (stryCov_9fa48("631"), {
              matches: compileGlob(node.value),
              node
            })));
            if (stryMutAct_9fa48("632")) {
              ;
            } else {
              stryCov_9fa48("632");
              wildcards.set(node.key, entries);
            }
          }
        } else {
          if (stryMutAct_9fa48("633")) {
            {}
          } else {
            stryCov_9fa48("633");
            exact.set(stryMutAct_9fa48("635") ? `` : (stryCov_9fa48("635"), `${node.key}\u0000${node.value}`), node);
          }
        }
      }
    });
    return Object.freeze((stryMutAct_9fa48("638") ? ranges !== undefined : stryMutAct_9fa48("637") ? false : stryMutAct_9fa48("636") ? true : (stryCov_9fa48("636", "637", "638"), ranges === undefined)) ? stryMutAct_9fa48("639") ? {} : (stryCov_9fa48("639"), {
      exact,
      wildcards,
      keyOnly
    }) : stryMutAct_9fa48("640") ? {} : (stryCov_9fa48("640"), {
      exact,
      wildcards,
      keyOnly,
      ranges
    }));
  }
}
function readNode(ctx: DomainContext, item: unknown, path: string, parent: {
  label: string;
  stat: string;
}, depth: number, claim: (key: string, value: string | undefined, at: string) => boolean): CompiledNode | undefined {
  if (stryMutAct_9fa48("641")) {
    {}
  } else {
    stryCov_9fa48("641");
    const {
      d
    } = ctx;
    const obj = asObject(d, item, path);
    if (stryMutAct_9fa48("644") ? obj !== undefined : stryMutAct_9fa48("643") ? false : stryMutAct_9fa48("642") ? true : (stryCov_9fa48("642", "643", "644"), obj === undefined)) return undefined;
    checkKeys(d, obj, path, stryMutAct_9fa48("646") ? "" : (stryCov_9fa48("646"), "descriptor"));
    requireKey(d, obj, stryMutAct_9fa48("648") ? "" : (stryCov_9fa48("648"), "key"), path);
    let key = readString(d, obj, stryMutAct_9fa48("649") ? "" : (stryCov_9fa48("649"), "key"), path);
    if (stryMutAct_9fa48("652") ? key.includes("\u0000") : stryMutAct_9fa48("651") ? false : stryMutAct_9fa48("650") ? true : (stryCov_9fa48("650", "651", "652"), key?.includes(stryMutAct_9fa48("653") ? "" : (stryCov_9fa48("653"), "\u0000")))) {
      if (stryMutAct_9fa48("654")) {
        {}
      } else {
        stryCov_9fa48("654");
        d.add(keyPath(path, stryMutAct_9fa48("656") ? "" : (stryCov_9fa48("656"), "key")), stryMutAct_9fa48("657") ? "" : (stryCov_9fa48("657"), "must not contain the NUL character"));
        key = undefined;
      }
    }
    const value = readString(d, obj, stryMutAct_9fa48("658") ? "" : (stryCov_9fa48("658"), "value"), path, stryMutAct_9fa48("659") ? "" : (stryCov_9fa48("659"), 'must be a non-empty string (omit "value" to match any value)'));
    const valueOk = stryMutAct_9fa48("662") ? value !== undefined && !Object.hasOwn(obj, "value") : stryMutAct_9fa48("661") ? false : stryMutAct_9fa48("660") ? true : (stryCov_9fa48("660", "661", "662"), (stryMutAct_9fa48("664") ? value === undefined : stryMutAct_9fa48("663") ? false : (stryCov_9fa48("663", "664"), value !== undefined)) || (stryMutAct_9fa48("665") ? Object.hasOwn(obj, "value") : (stryCov_9fa48("665"), !Object.hasOwn(obj, stryMutAct_9fa48("666") ? "" : (stryCov_9fa48("666"), "value")))));
    const unique = stryMutAct_9fa48("669") ? key !== undefined && valueOk || claim(key, value, path) : stryMutAct_9fa48("668") ? false : stryMutAct_9fa48("667") ? true : (stryCov_9fa48("667", "668", "669"), (stryMutAct_9fa48("671") ? key !== undefined || valueOk : stryMutAct_9fa48("670") ? true : (stryCov_9fa48("670", "671"), (stryMutAct_9fa48("673") ? key === undefined : stryMutAct_9fa48("672") ? true : (stryCov_9fa48("672", "673"), key !== undefined)) && valueOk)) && claim(key, value, path));
    const label = descriptorLabel(parent.label, stryMutAct_9fa48("674") ? key && "?" : (stryCov_9fa48("674"), key ?? (stryMutAct_9fa48("675") ? "" : (stryCov_9fa48("675"), "?"))), value);
    // Envoy's stat path: `key` or `key_value` per level, dot-joined.
    const ownStat = (stryMutAct_9fa48("678") ? value !== undefined : stryMutAct_9fa48("677") ? false : stryMutAct_9fa48("676") ? true : (stryCov_9fa48("676", "677", "678"), value === undefined)) ? stryMutAct_9fa48("679") ? key && "?" : (stryCov_9fa48("679"), key ?? (stryMutAct_9fa48("680") ? "" : (stryCov_9fa48("680"), "?"))) : stryMutAct_9fa48("681") ? `` : (stryCov_9fa48("681"), `${stryMutAct_9fa48("682") ? key && "?" : (stryCov_9fa48("682"), key ?? (stryMutAct_9fa48("683") ? "" : (stryCov_9fa48("683"), "?")))}_${value}`);
    const statKey = (stryMutAct_9fa48("686") ? parent.stat !== "" : stryMutAct_9fa48("685") ? false : stryMutAct_9fa48("684") ? true : (stryCov_9fa48("684", "685", "686"), parent.stat === (stryMutAct_9fa48("687") ? "Stryker was here!" : (stryCov_9fa48("687"), "")))) ? ownStat : stryMutAct_9fa48("688") ? `` : (stryCov_9fa48("688"), `${parent.stat}.${ownStat}`);
    const {
      limits,
      unlimited,
      unlimitedReplaces
    } = readLimits(ctx, obj, path, label);
    const shadowMode = stryMutAct_9fa48("689") ? readBool(d, obj, "shadow_mode", path) && false : (stryCov_9fa48("689"), readBool(d, obj, stryMutAct_9fa48("690") ? "" : (stryCov_9fa48("690"), "shadow_mode"), path) ?? (stryMutAct_9fa48("691") ? true : (stryCov_9fa48("691"), false)));
    const detailedMetric = stryMutAct_9fa48("692") ? readBool(d, obj, "detailed_metric", path) && false : (stryCov_9fa48("692"), readBool(d, obj, stryMutAct_9fa48("693") ? "" : (stryCov_9fa48("693"), "detailed_metric"), path) ?? (stryMutAct_9fa48("694") ? true : (stryCov_9fa48("694"), false)));
    const {
      quotaMode,
      shareThreshold
    } = readEnvoyModes(d, obj, path, key, value);
    let children = EMPTY_LEVEL;
    if (stryMutAct_9fa48("696") ? false : stryMutAct_9fa48("695") ? true : (stryCov_9fa48("695", "696"), Object.hasOwn(obj, stryMutAct_9fa48("697") ? "" : (stryCov_9fa48("697"), "descriptors")))) {
      if (stryMutAct_9fa48("698")) {
        {}
      } else {
        stryCov_9fa48("698");
        if (stryMutAct_9fa48("702") ? depth < BOUNDS.maxDepth : stryMutAct_9fa48("701") ? depth > BOUNDS.maxDepth : stryMutAct_9fa48("700") ? false : stryMutAct_9fa48("699") ? true : (stryCov_9fa48("699", "700", "701", "702"), depth >= BOUNDS.maxDepth)) {
          if (stryMutAct_9fa48("703")) {
            {}
          } else {
            stryCov_9fa48("703");
            d.add(keyPath(path, stryMutAct_9fa48("705") ? "" : (stryCov_9fa48("705"), "descriptors")), stryMutAct_9fa48("706") ? `` : (stryCov_9fa48("706"), `descriptors may be nested at most ${BOUNDS.maxDepth} levels deep`));
          }
        } else {
          if (stryMutAct_9fa48("707")) {
            {}
          } else {
            stryCov_9fa48("707");
            children = readLevel(ctx, obj.descriptors, keyPath(path, stryMutAct_9fa48("708") ? "" : (stryCov_9fa48("708"), "descriptors")), label, stryMutAct_9fa48("709") ? depth - 1 : (stryCov_9fa48("709"), depth + 1), statKey);
          }
        }
      }
    }
    stryMutAct_9fa48("710") ? ctx.counts.descriptors -= 1 : (stryCov_9fa48("710"), ctx.counts.descriptors += 1);
    if (stryMutAct_9fa48("713") ? key === undefined && !unique : stryMutAct_9fa48("712") ? false : stryMutAct_9fa48("711") ? true : (stryCov_9fa48("711", "712", "713"), (stryMutAct_9fa48("715") ? key !== undefined : stryMutAct_9fa48("714") ? false : (stryCov_9fa48("714", "715"), key === undefined)) || (stryMutAct_9fa48("716") ? unique : (stryCov_9fa48("716"), !unique)))) return undefined;
    return Object.freeze(stryMutAct_9fa48("717") ? {} : (stryCov_9fa48("717"), {
      key,
      ...((stryMutAct_9fa48("720") ? value === undefined : stryMutAct_9fa48("719") ? false : stryMutAct_9fa48("718") ? true : (stryCov_9fa48("718", "719", "720"), value !== undefined)) ? stryMutAct_9fa48("721") ? {} : (stryCov_9fa48("721"), {
        value
      }) : {}),
      limits,
      unlimited,
      ...((stryMutAct_9fa48("724") ? unlimitedReplaces === undefined : stryMutAct_9fa48("723") ? false : stryMutAct_9fa48("722") ? true : (stryCov_9fa48("722", "723", "724"), unlimitedReplaces !== undefined)) ? stryMutAct_9fa48("725") ? {} : (stryCov_9fa48("725"), {
        unlimitedReplaces
      }) : {}),
      shadowMode,
      detailedMetric,
      ...(quotaMode ? stryMutAct_9fa48("726") ? {} : (stryCov_9fa48("726"), {
        quotaMode
      }) : {}),
      ...(shareThreshold ? stryMutAct_9fa48("727") ? {} : (stryCov_9fa48("727"), {
        shareThreshold
      }) : {}),
      statKey,
      children
    }));
  }
}
interface NodeLimits {
  readonly limits: readonly CompiledLimit[];
  readonly unlimited: boolean;
  readonly unlimitedReplaces?: readonly string[];
}
function readLimits(ctx: DomainContext, obj: JsonObject, path: string, label: string): NodeLimits {
  if (stryMutAct_9fa48("728")) {
    {}
  } else {
    stryCov_9fa48("728");
    const single = Object.hasOwn(obj, stryMutAct_9fa48("729") ? "" : (stryCov_9fa48("729"), "rate_limit"));
    const multiple = Object.hasOwn(obj, stryMutAct_9fa48("730") ? "" : (stryCov_9fa48("730"), "rate_limits"));
    if (stryMutAct_9fa48("733") ? single || multiple : stryMutAct_9fa48("732") ? false : stryMutAct_9fa48("731") ? true : (stryCov_9fa48("731", "732", "733"), single && multiple)) ctx.d.add(path, stryMutAct_9fa48("735") ? "" : (stryCov_9fa48("735"), 'set either "rate_limit" or "rate_limits", not both'));
    if (stryMutAct_9fa48("737") ? false : stryMutAct_9fa48("736") ? true : (stryCov_9fa48("736", "737"), single)) {
      if (stryMutAct_9fa48("738")) {
        {}
      } else {
        stryCov_9fa48("738");
        const result = readRateLimit(ctx, obj.rate_limit, keyPath(path, stryMutAct_9fa48("739") ? "" : (stryCov_9fa48("739"), "rate_limit")), label, stryMutAct_9fa48("740") ? true : (stryCov_9fa48("740"), false));
        if (stryMutAct_9fa48("743") ? result?.kind !== "unlimited" : stryMutAct_9fa48("742") ? false : stryMutAct_9fa48("741") ? true : (stryCov_9fa48("741", "742", "743"), (stryMutAct_9fa48("744") ? result.kind : (stryCov_9fa48("744"), result?.kind)) === (stryMutAct_9fa48("745") ? "" : (stryCov_9fa48("745"), "unlimited")))) return stryMutAct_9fa48("746") ? {} : (stryCov_9fa48("746"), {
          limits: stryMutAct_9fa48("747") ? ["Stryker was here"] : (stryCov_9fa48("747"), []),
          unlimited: stryMutAct_9fa48("748") ? false : (stryCov_9fa48("748"), true),
          unlimitedReplaces: result.replaces
        });
        return stryMutAct_9fa48("749") ? {} : (stryCov_9fa48("749"), {
          limits: Object.freeze(result ? stryMutAct_9fa48("750") ? [] : (stryCov_9fa48("750"), [result.limit]) : stryMutAct_9fa48("751") ? ["Stryker was here"] : (stryCov_9fa48("751"), [])),
          unlimited: stryMutAct_9fa48("752") ? true : (stryCov_9fa48("752"), false)
        });
      }
    }
    if (stryMutAct_9fa48("755") ? false : stryMutAct_9fa48("754") ? true : stryMutAct_9fa48("753") ? multiple : (stryCov_9fa48("753", "754", "755"), !multiple)) return stryMutAct_9fa48("756") ? {} : (stryCov_9fa48("756"), {
      limits: Object.freeze(stryMutAct_9fa48("757") ? ["Stryker was here"] : (stryCov_9fa48("757"), [])),
      unlimited: stryMutAct_9fa48("758") ? true : (stryCov_9fa48("758"), false)
    });
    const at = keyPath(path, stryMutAct_9fa48("759") ? "" : (stryCov_9fa48("759"), "rate_limits"));
    const list = asArray(ctx.d, obj.rate_limits, at);
    if (stryMutAct_9fa48("762") ? list !== undefined : stryMutAct_9fa48("761") ? false : stryMutAct_9fa48("760") ? true : (stryCov_9fa48("760", "761", "762"), list === undefined)) return stryMutAct_9fa48("763") ? {} : (stryCov_9fa48("763"), {
      limits: stryMutAct_9fa48("764") ? ["Stryker was here"] : (stryCov_9fa48("764"), []),
      unlimited: stryMutAct_9fa48("765") ? true : (stryCov_9fa48("765"), false)
    });
    if (stryMutAct_9fa48("768") ? list.length !== 0 : stryMutAct_9fa48("767") ? false : stryMutAct_9fa48("766") ? true : (stryCov_9fa48("766", "767", "768"), list.length === 0)) ctx.d.add(at, stryMutAct_9fa48("770") ? "" : (stryCov_9fa48("770"), 'must not be empty (omit "rate_limits" for a node without limits)'));
    const limits: CompiledLimit[] = stryMutAct_9fa48("771") ? ["Stryker was here"] : (stryCov_9fa48("771"), []);
    const ids = new Map<string, number>();
    list.forEach((item, i) => {
      if (stryMutAct_9fa48("773")) {
        {}
      } else {
        stryCov_9fa48("773");
        const result = readRateLimit(ctx, item, indexPath(at, i), label, stryMutAct_9fa48("774") ? false : (stryCov_9fa48("774"), true));
        if (stryMutAct_9fa48("777") ? result?.kind === "limit" : stryMutAct_9fa48("776") ? false : stryMutAct_9fa48("775") ? true : (stryCov_9fa48("775", "776", "777"), (stryMutAct_9fa48("778") ? result.kind : (stryCov_9fa48("778"), result?.kind)) !== (stryMutAct_9fa48("779") ? "" : (stryCov_9fa48("779"), "limit")))) return;
        const twin = ids.get(result.limit.id);
        if (stryMutAct_9fa48("782") ? twin === undefined : stryMutAct_9fa48("781") ? false : stryMutAct_9fa48("780") ? true : (stryCov_9fa48("780", "781", "782"), twin !== undefined)) {
          if (stryMutAct_9fa48("783")) {
            {}
          } else {
            stryCov_9fa48("783");
            ctx.d.add(indexPath(at, i), stryMutAct_9fa48("785") ? `` : (stryCov_9fa48("785"), `counts exactly like rate_limits[${twin}] (same algorithm, requests_per_unit, window and burst)`));
            return;
          }
        }
        if (stryMutAct_9fa48("786")) {
          ;
        } else {
          stryCov_9fa48("786");
          ids.set(result.limit.id, i);
        }
        if (stryMutAct_9fa48("787")) {
          ;
        } else {
          stryCov_9fa48("787");
          limits.push(result.limit);
        }
      }
    });
    if (stryMutAct_9fa48("788")) {
      ;
    } else {
      stryCov_9fa48("788");
      checkConcurrencyMix(ctx, limits, at);
    }
    return stryMutAct_9fa48("789") ? {} : (stryCov_9fa48("789"), {
      limits: Object.freeze(limits),
      unlimited: stryMutAct_9fa48("790") ? true : (stryCov_9fa48("790"), false)
    });
  }
}