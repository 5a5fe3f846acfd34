/**
 * `rules.json` (already parsed) into CompiledRules, or every error found.
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
import { domainContext } from "./context.ts";
import { readLevel, EMPTY_LEVEL } from "./descriptors.ts";
import { readEnum, readInt, readString, requireKey } from "./fields.ts";
import { BOUNDS, PLACEMENTS } from "./keys.ts";
import { asObject, checkKeys, Diagnostics, indexPath, jsonType, keyPath } from "./reader.ts";
import { readRoutes } from "./routes.ts";
import type { CompiledDomain, CompiledRules, CompileResult } from "./types.ts";
export interface CompileOptions {
  /** How the summary line names the input; default `rules.json`. */
  readonly source?: string;
}
interface Totals {
  descriptors: number;
  limits: number;
  routes: number;
}

/**
 * Validate and compile a parsed rules file: one domain document or an array
 * of them. Never throws on bad input; every problem is reported with its path.
 *
 * @example
 * const result = compileRules({ domain: "api", descriptors: [
 *   { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 60 } }] });
 * if (result.ok) result.summary; // "rules.json: 1 domain, 1 descriptor, 1 limit, 0 routes"
 * else result.errors;            // [{ path: "$.descriptors[0].rate_limit.unit", message: "..." }, ...]
 */
export function compileRules(input: unknown, options: CompileOptions = {}): CompileResult {
  if (stryMutAct_9fa48("273")) {
    {}
  } else {
    stryCov_9fa48("273");
    const d = new Diagnostics();
    const totals: Totals = stryMutAct_9fa48("274") ? {} : (stryCov_9fa48("274"), {
      descriptors: 0,
      limits: 0,
      routes: 0
    });
    const documents: {
      value: unknown;
      path: string;
    }[] = stryMutAct_9fa48("275") ? ["Stryker was here"] : (stryCov_9fa48("275"), []);
    if (stryMutAct_9fa48("277") ? false : stryMutAct_9fa48("276") ? true : (stryCov_9fa48("276", "277"), Array.isArray(input))) {
      if (stryMutAct_9fa48("278")) {
        {}
      } else {
        stryCov_9fa48("278");
        if (stryMutAct_9fa48("281") ? input.length !== 0 : stryMutAct_9fa48("280") ? false : stryMutAct_9fa48("279") ? true : (stryCov_9fa48("279", "280", "281"), input.length === 0)) d.add(stryMutAct_9fa48("283") ? "" : (stryCov_9fa48("283"), "$"), stryMutAct_9fa48("284") ? "" : (stryCov_9fa48("284"), "expected at least one domain document"));
        for (const [i, value] of input.entries()) documents.push(stryMutAct_9fa48("286") ? {} : (stryCov_9fa48("286"), {
          value,
          path: indexPath(stryMutAct_9fa48("287") ? "" : (stryCov_9fa48("287"), "$"), i)
        }));
      }
    } else if (stryMutAct_9fa48("290") ? typeof input === "object" || input !== null : stryMutAct_9fa48("289") ? false : stryMutAct_9fa48("288") ? true : (stryCov_9fa48("288", "289", "290"), (stryMutAct_9fa48("292") ? typeof input !== "object" : stryMutAct_9fa48("291") ? true : (stryCov_9fa48("291", "292"), typeof input === (stryMutAct_9fa48("293") ? "" : (stryCov_9fa48("293"), "object")))) && (stryMutAct_9fa48("295") ? input === null : stryMutAct_9fa48("294") ? true : (stryCov_9fa48("294", "295"), input !== null)))) {
      if (stryMutAct_9fa48("296")) {
        {}
      } else {
        stryCov_9fa48("296");
        documents.push(stryMutAct_9fa48("298") ? {} : (stryCov_9fa48("298"), {
          value: input,
          path: stryMutAct_9fa48("299") ? "" : (stryCov_9fa48("299"), "$")
        }));
      }
    } else {
      if (stryMutAct_9fa48("300")) {
        {}
      } else {
        stryCov_9fa48("300");
        d.add(stryMutAct_9fa48("302") ? "" : (stryCov_9fa48("302"), "$"), stryMutAct_9fa48("303") ? `` : (stryCov_9fa48("303"), `expected a domain document (an object) or an array of them, got ${jsonType(input)}`));
      }
    }
    const domains = new Map<string, CompiledDomain>();
    const domainPaths = new Map<string, string>();
    for (const {
      value,
      path
    } of documents) {
      if (stryMutAct_9fa48("304")) {
        {}
      } else {
        stryCov_9fa48("304");
        const {
          name,
          domain
        } = readDocument(d, value, path, totals);
        if (stryMutAct_9fa48("307") ? name !== undefined : stryMutAct_9fa48("306") ? false : stryMutAct_9fa48("305") ? true : (stryCov_9fa48("305", "306", "307"), name === undefined)) continue;
        const first = domainPaths.get(name);
        if (stryMutAct_9fa48("310") ? first === undefined : stryMutAct_9fa48("309") ? false : stryMutAct_9fa48("308") ? true : (stryCov_9fa48("308", "309", "310"), first !== undefined)) {
          if (stryMutAct_9fa48("311")) {
            {}
          } else {
            stryCov_9fa48("311");
            d.add(keyPath(path, stryMutAct_9fa48("313") ? "" : (stryCov_9fa48("313"), "domain")), stryMutAct_9fa48("314") ? `` : (stryCov_9fa48("314"), `duplicate domain "${name}" (already defined at ${first})`));
            continue;
          }
        }
        if (stryMutAct_9fa48("315")) {
          ;
        } else {
          stryCov_9fa48("315");
          domainPaths.set(name, path);
        }
        if (stryMutAct_9fa48("318") ? domain === undefined : stryMutAct_9fa48("317") ? false : stryMutAct_9fa48("316") ? true : (stryCov_9fa48("316", "317", "318"), domain !== undefined)) if (stryMutAct_9fa48("319")) {
          ;
        } else {
          stryCov_9fa48("319");
          domains.set(name, domain);
        }
      }
    }
    if (stryMutAct_9fa48("323") ? d.errors.length <= 0 : stryMutAct_9fa48("322") ? d.errors.length >= 0 : stryMutAct_9fa48("321") ? false : stryMutAct_9fa48("320") ? true : (stryCov_9fa48("320", "321", "322", "323"), d.errors.length > 0)) return stryMutAct_9fa48("324") ? {} : (stryCov_9fa48("324"), {
      ok: stryMutAct_9fa48("325") ? true : (stryCov_9fa48("325"), false),
      errors: d.errors
    });
    const source = stryMutAct_9fa48("326") ? options.source && "rules.json" : (stryCov_9fa48("326"), options.source ?? (stryMutAct_9fa48("327") ? "" : (stryCov_9fa48("327"), "rules.json")));
    const summary = (stryMutAct_9fa48("328") ? `` : (stryCov_9fa48("328"), `${source}: ${count(domains.size, stryMutAct_9fa48("329") ? "" : (stryCov_9fa48("329"), "domain"))}, ${count(totals.descriptors, stryMutAct_9fa48("330") ? "" : (stryCov_9fa48("330"), "descriptor"))}, `)) + (stryMutAct_9fa48("331") ? `` : (stryCov_9fa48("331"), `${count(totals.limits, stryMutAct_9fa48("332") ? "" : (stryCov_9fa48("332"), "limit"))}, ${count(totals.routes, stryMutAct_9fa48("333") ? "" : (stryCov_9fa48("333"), "route"))}`));
    return stryMutAct_9fa48("334") ? {} : (stryCov_9fa48("334"), {
      ok: stryMutAct_9fa48("335") ? false : (stryCov_9fa48("335"), true),
      rules: Object.freeze(stryMutAct_9fa48("336") ? {} : (stryCov_9fa48("336"), {
        domains
      })),
      summary
    });
  }
}

// The name comes back even when the rest is invalid, so duplicates are still found.
function readDocument(d: Diagnostics, value: unknown, path: string, totals: Totals): {
  name?: string;
  domain?: CompiledDomain;
} {
  if (stryMutAct_9fa48("337")) {
    {}
  } else {
    stryCov_9fa48("337");
    const obj = asObject(d, value, path);
    if (stryMutAct_9fa48("340") ? obj !== undefined : stryMutAct_9fa48("339") ? false : stryMutAct_9fa48("338") ? true : (stryCov_9fa48("338", "339", "340"), obj === undefined)) return {};
    const before = d.errors.length;
    checkKeys(d, obj, path, stryMutAct_9fa48("342") ? "" : (stryCov_9fa48("342"), "document"));
    readString(d, obj, stryMutAct_9fa48("344") ? "" : (stryCov_9fa48("344"), "$schema"), path, null);
    requireKey(d, obj, stryMutAct_9fa48("346") ? "" : (stryCov_9fa48("346"), "domain"), path);
    const domain = readString(d, obj, stryMutAct_9fa48("347") ? "" : (stryCov_9fa48("347"), "domain"), path);
    const placement = stryMutAct_9fa48("348") ? readEnum(d, obj, "placement", path, PLACEMENTS, "placement") && "sharded" : (stryCov_9fa48("348"), readEnum(d, obj, stryMutAct_9fa48("349") ? "" : (stryCov_9fa48("349"), "placement"), path, PLACEMENTS, stryMutAct_9fa48("350") ? "" : (stryCov_9fa48("350"), "placement")) ?? (stryMutAct_9fa48("351") ? "" : (stryCov_9fa48("351"), "sharded")));
    const shards = readInt(d, obj, stryMutAct_9fa48("352") ? "" : (stryCov_9fa48("352"), "shards"), path, 1, BOUNDS.maxShards);
    if (stryMutAct_9fa48("355") ? shards !== undefined || obj.placement === "per_key" : stryMutAct_9fa48("354") ? false : stryMutAct_9fa48("353") ? true : (stryCov_9fa48("353", "354", "355"), (stryMutAct_9fa48("357") ? shards === undefined : stryMutAct_9fa48("356") ? true : (stryCov_9fa48("356", "357"), shards !== undefined)) && (stryMutAct_9fa48("359") ? obj.placement !== "per_key" : stryMutAct_9fa48("358") ? true : (stryCov_9fa48("358", "359"), obj.placement === (stryMutAct_9fa48("360") ? "" : (stryCov_9fa48("360"), "per_key")))))) {
      if (stryMutAct_9fa48("361")) {
        {}
      } else {
        stryCov_9fa48("361");
        d.add(keyPath(path, stryMutAct_9fa48("363") ? "" : (stryCov_9fa48("363"), "shards")), stryMutAct_9fa48("364") ? "" : (stryCov_9fa48("364"), '"shards" only applies to placement "sharded"'));
      }
    }
    const ctx = domainContext(d);
    const root = Object.hasOwn(obj, stryMutAct_9fa48("365") ? "" : (stryCov_9fa48("365"), "descriptors")) ? readLevel(ctx, obj.descriptors, keyPath(path, stryMutAct_9fa48("366") ? "" : (stryCov_9fa48("366"), "descriptors")), stryMutAct_9fa48("367") ? "Stryker was here!" : (stryCov_9fa48("367"), ""), 1) : EMPTY_LEVEL;
    const routes = Object.hasOwn(obj, stryMutAct_9fa48("368") ? "" : (stryCov_9fa48("368"), "routes")) ? readRoutes(d, obj.routes, keyPath(path, stryMutAct_9fa48("369") ? "" : (stryCov_9fa48("369"), "routes"))) : stryMutAct_9fa48("370") ? ["Stryker was here"] : (stryCov_9fa48("370"), []);
    for (const ref of ctx.replacesRefs) {
      if (stryMutAct_9fa48("371")) {
        {}
      } else {
        stryCov_9fa48("371");
        if (stryMutAct_9fa48("374") ? false : stryMutAct_9fa48("373") ? true : stryMutAct_9fa48("372") ? ctx.names.has(ref.name) : (stryCov_9fa48("372", "373", "374"), !ctx.names.has(ref.name))) {
          if (stryMutAct_9fa48("375")) {
            {}
          } else {
            stryCov_9fa48("375");
            const where = (stryMutAct_9fa48("378") ? domain !== undefined : stryMutAct_9fa48("377") ? false : stryMutAct_9fa48("376") ? true : (stryCov_9fa48("376", "377", "378"), domain === undefined)) ? stryMutAct_9fa48("379") ? "" : (stryCov_9fa48("379"), "this domain") : stryMutAct_9fa48("380") ? `` : (stryCov_9fa48("380"), `domain "${domain}"`);
            d.add(ref.path, stryMutAct_9fa48("382") ? `` : (stryCov_9fa48("382"), `no rate limit in ${where} is named "${ref.name}"`));
          }
        }
      }
    }
    if (stryMutAct_9fa48("385") ? domain === undefined && d.errors.length > before : stryMutAct_9fa48("384") ? false : stryMutAct_9fa48("383") ? true : (stryCov_9fa48("383", "384", "385"), (stryMutAct_9fa48("387") ? domain !== undefined : stryMutAct_9fa48("386") ? false : (stryCov_9fa48("386", "387"), domain === undefined)) || (stryMutAct_9fa48("390") ? d.errors.length <= before : stryMutAct_9fa48("389") ? d.errors.length >= before : stryMutAct_9fa48("388") ? false : (stryCov_9fa48("388", "389", "390"), d.errors.length > before)))) return stryMutAct_9fa48("391") ? {} : (stryCov_9fa48("391"), {
      name: domain
    });
    stryMutAct_9fa48("392") ? totals.descriptors -= ctx.counts.descriptors : (stryCov_9fa48("392"), totals.descriptors += ctx.counts.descriptors);
    stryMutAct_9fa48("393") ? totals.limits -= ctx.counts.limits : (stryCov_9fa48("393"), totals.limits += ctx.counts.limits);
    stryMutAct_9fa48("394") ? totals.routes -= routes.length : (stryCov_9fa48("394"), totals.routes += routes.length);
    const compiled: CompiledDomain = Object.freeze(stryMutAct_9fa48("395") ? {} : (stryCov_9fa48("395"), {
      domain,
      placement,
      shards: stryMutAct_9fa48("396") ? shards && BOUNDS.defaultShards : (stryCov_9fa48("396"), shards ?? BOUNDS.defaultShards),
      root,
      routes: Object.freeze(routes)
    }));
    return stryMutAct_9fa48("397") ? {} : (stryCov_9fa48("397"), {
      name: domain,
      domain: compiled
    });
  }
}
function count(n: number, noun: string): string {
  if (stryMutAct_9fa48("398")) {
    {}
  } else {
    stryCov_9fa48("398");
    return stryMutAct_9fa48("399") ? `` : (stryCov_9fa48("399"), `${n} ${noun}${(stryMutAct_9fa48("402") ? n !== 1 : stryMutAct_9fa48("401") ? false : stryMutAct_9fa48("400") ? true : (stryCov_9fa48("400", "401", "402"), n === 1)) ? stryMutAct_9fa48("403") ? "Stryker was here!" : (stryCov_9fa48("403"), "") : stryMutAct_9fa48("404") ? "" : (stryCov_9fa48("404"), "s")}`);
  }
}

/**
 * Rules fixed when the Worker is built (the bundled `rules.json`, a bench's
 * rules), compiled on first use and kept. Invalid rules throw an error that
 * names every problem, `<path>: <message>` a line.
 *
 * @example
 * export const bundledRules = compileOnce(rulesJson, "rules.json");
 * bundledRules().domains.get("api");
 */
export function compileOnce(input: unknown, source: string): () => CompiledRules {
  if (stryMutAct_9fa48("405")) {
    {}
  } else {
    stryCov_9fa48("405");
    let compiled: CompiledRules | undefined;
    return () => {
      if (stryMutAct_9fa48("406")) {
        {}
      } else {
        stryCov_9fa48("406");
        if (stryMutAct_9fa48("409") ? compiled === undefined : stryMutAct_9fa48("408") ? false : stryMutAct_9fa48("407") ? true : (stryCov_9fa48("407", "408", "409"), compiled !== undefined)) return compiled;
        const result = compileRules(input, stryMutAct_9fa48("410") ? {} : (stryCov_9fa48("410"), {
          source
        }));
        if (stryMutAct_9fa48("413") ? false : stryMutAct_9fa48("412") ? true : stryMutAct_9fa48("411") ? result.ok : (stryCov_9fa48("411", "412", "413"), !result.ok)) throw new Error(stryMutAct_9fa48("415") ? `` : (stryCov_9fa48("415"), `${source} is invalid:\n${result.errors.map(stryMutAct_9fa48("416") ? () => undefined : (stryCov_9fa48("416"), e => stryMutAct_9fa48("417") ? `` : (stryCov_9fa48("417"), `${e.path}: ${e.message}`))).join(stryMutAct_9fa48("418") ? "" : (stryCov_9fa48("418"), "\n"))}`));
        return compiled = result.rules;
      }
    };
  }
}