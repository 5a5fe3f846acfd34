/**
 * Where a rules file asks for `on_limit: "queue"`. Such limits need the
 * Worker's Cloudflare Queue bindings, which the default wrangler.toml leaves
 * commented out; `rules:check` and `PUT /__ratelimit/rules` name each of
 * these paths when the bindings are missing (docs/on-limit.md, "Turning queues on").
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

/**
 * JSON paths of every `on_limit` whose value is `"queue"`, in file order.
 * Meant for rules that already compile: in those, `on_limit` only appears
 * inside a rate limit, so a plain walk over the parsed JSON finds them all.
 *
 * @example
 * queueLimitPaths({ domain: "api", descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1, on_limit: "queue" } }] });
 * // ["$.descriptors[0].rate_limit.on_limit"]
 */
export function queueLimitPaths(rules: unknown): string[] {
  if (stryMutAct_9fa48("2120")) {
    {}
  } else {
    stryCov_9fa48("2120");
    const found: string[] = stryMutAct_9fa48("2121") ? ["Stryker was here"] : (stryCov_9fa48("2121"), []);
    const walk = (value: unknown, path: string): void => {
      if (stryMutAct_9fa48("2122")) {
        {}
      } else {
        stryCov_9fa48("2122");
        if (stryMutAct_9fa48("2124") ? false : stryMutAct_9fa48("2123") ? true : (stryCov_9fa48("2123", "2124"), Array.isArray(value))) {
          if (stryMutAct_9fa48("2125")) {
            {}
          } else {
            stryCov_9fa48("2125");
            for (const [i, item] of value.entries()) if (stryMutAct_9fa48("2126")) {
              ;
            } else {
              stryCov_9fa48("2126");
              walk(item, indexPath(path, i));
            }
            return;
          }
        }
        if (stryMutAct_9fa48("2129") ? typeof value !== "object" && value === null : stryMutAct_9fa48("2128") ? false : stryMutAct_9fa48("2127") ? true : (stryCov_9fa48("2127", "2128", "2129"), (stryMutAct_9fa48("2131") ? typeof value === "object" : stryMutAct_9fa48("2130") ? false : (stryCov_9fa48("2130", "2131"), typeof value !== (stryMutAct_9fa48("2132") ? "" : (stryCov_9fa48("2132"), "object")))) || (stryMutAct_9fa48("2134") ? value !== null : stryMutAct_9fa48("2133") ? false : (stryCov_9fa48("2133", "2134"), value === null)))) return;
        for (const [key, child] of Object.entries(value)) {
          if (stryMutAct_9fa48("2135")) {
            {}
          } else {
            stryCov_9fa48("2135");
            const at = keyPath(path, key);
            if (stryMutAct_9fa48("2138") ? key === "on_limit" || child === "queue" : stryMutAct_9fa48("2137") ? false : stryMutAct_9fa48("2136") ? true : (stryCov_9fa48("2136", "2137", "2138"), (stryMutAct_9fa48("2140") ? key !== "on_limit" : stryMutAct_9fa48("2139") ? true : (stryCov_9fa48("2139", "2140"), key === (stryMutAct_9fa48("2141") ? "" : (stryCov_9fa48("2141"), "on_limit")))) && (stryMutAct_9fa48("2143") ? child !== "queue" : stryMutAct_9fa48("2142") ? true : (stryCov_9fa48("2142", "2143"), child === (stryMutAct_9fa48("2144") ? "" : (stryCov_9fa48("2144"), "queue")))))) {
              if (stryMutAct_9fa48("2145")) {
                ;
              } else {
                stryCov_9fa48("2145");
                found.push(at);
              }
            } else if (stryMutAct_9fa48("2146")) {
              ;
            } else {
              stryCov_9fa48("2146");
              walk(child, at);
            }
          }
        }
      }
    };
    walk(rules, stryMutAct_9fa48("2148") ? "" : (stryCov_9fa48("2148"), "$"));
    return found;
  }
}

/** The binding the queue producer must have (wrangler.toml `[[queues.producers]] binding`). */
export const QUEUE_BINDING = stryMutAct_9fa48("2149") ? "" : (stryCov_9fa48("2149"), "QUEUE");

/**
 * What to do about a queue limit without the `QUEUE` binding: one sentence,
 * the same from `rules:check` and from the admin API.
 *
 * @example
 * `${path}: ${missingQueueMessage("wrangler.toml")}`;
 */
export function missingQueueMessage(configName: string): string {
  if (stryMutAct_9fa48("2150")) {
    {}
  } else {
    stryCov_9fa48("2150");
    return (stryMutAct_9fa48("2151") ? `` : (stryCov_9fa48("2151"), `on_limit "queue" needs the ${QUEUE_BINDING} queue binding, which ${configName} does not have: `)) + (stryMutAct_9fa48("2152") ? "" : (stryCov_9fa48("2152"), 'uncomment the on_limit "queue" block in wrangler.toml and create the two queues ')) + (stryMutAct_9fa48("2153") ? "" : (stryCov_9fa48("2153"), "(npx wrangler queues create floodgate-queued && npx wrangler queues create floodgate-dead-letters), ")) + (stryMutAct_9fa48("2154") ? "" : (stryCov_9fa48("2154"), "or use another on_limit"));
  }
}