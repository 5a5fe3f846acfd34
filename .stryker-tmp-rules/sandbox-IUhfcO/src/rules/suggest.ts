/**
 * "Did you mean" suggestions for misspelled keys and enum values.
 */
// @ts-nocheck


/**
 * Edit distance counting an adjacent swap as one edit, since swapped letters
 * (`rate_lmiit`) are the most common typo in hand-written config.
 *
 * @example
 * editDistance("rate_limt", "rate_limit"); // 1
 * editDistance("uint", "unit");            // 1 (swap)
 */function stryNS_9fa48() {
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
export function editDistance(a: string, b: string): number {
  if (stryMutAct_9fa48("2536")) {
    {}
  } else {
    stryCov_9fa48("2536");
    const rows = stryMutAct_9fa48("2537") ? a.length - 1 : (stryCov_9fa48("2537"), a.length + 1);
    const cols = stryMutAct_9fa48("2538") ? b.length - 1 : (stryCov_9fa48("2538"), b.length + 1);
    const d: number[] = stryMutAct_9fa48("2539") ? new Array() : (stryCov_9fa48("2539"), new Array(stryMutAct_9fa48("2540") ? rows / cols : (stryCov_9fa48("2540"), rows * cols)));
    for (let i = 0; stryMutAct_9fa48("2543") ? i >= rows : stryMutAct_9fa48("2542") ? i <= rows : stryMutAct_9fa48("2541") ? false : (stryCov_9fa48("2541", "2542", "2543"), i < rows); stryMutAct_9fa48("2544") ? i-- : (stryCov_9fa48("2544"), i++)) d[stryMutAct_9fa48("2545") ? i / cols : (stryCov_9fa48("2545"), i * cols)] = i;
    for (let j = 0; stryMutAct_9fa48("2548") ? j >= cols : stryMutAct_9fa48("2547") ? j <= cols : stryMutAct_9fa48("2546") ? false : (stryCov_9fa48("2546", "2547", "2548"), j < cols); stryMutAct_9fa48("2549") ? j-- : (stryCov_9fa48("2549"), j++)) d[j] = j;
    for (let i = 1; stryMutAct_9fa48("2552") ? i >= rows : stryMutAct_9fa48("2551") ? i <= rows : stryMutAct_9fa48("2550") ? false : (stryCov_9fa48("2550", "2551", "2552"), i < rows); stryMutAct_9fa48("2553") ? i-- : (stryCov_9fa48("2553"), i++)) {
      if (stryMutAct_9fa48("2554")) {
        {}
      } else {
        stryCov_9fa48("2554");
        for (let j = 1; stryMutAct_9fa48("2557") ? j >= cols : stryMutAct_9fa48("2556") ? j <= cols : stryMutAct_9fa48("2555") ? false : (stryCov_9fa48("2555", "2556", "2557"), j < cols); stryMutAct_9fa48("2558") ? j-- : (stryCov_9fa48("2558"), j++)) {
          if (stryMutAct_9fa48("2559")) {
            {}
          } else {
            stryCov_9fa48("2559");
            const cost = (stryMutAct_9fa48("2562") ? a[i - 1] !== b[j - 1] : stryMutAct_9fa48("2561") ? false : stryMutAct_9fa48("2560") ? true : (stryCov_9fa48("2560", "2561", "2562"), a[stryMutAct_9fa48("2563") ? i + 1 : (stryCov_9fa48("2563"), i - 1)] === b[stryMutAct_9fa48("2564") ? j + 1 : (stryCov_9fa48("2564"), j - 1)])) ? 0 : 1;
            let best = stryMutAct_9fa48("2565") ? Math.max(d[(i - 1) * cols + j] + 1, d[i * cols + j - 1] + 1, d[(i - 1) * cols + j - 1] + cost) : (stryCov_9fa48("2565"), Math.min(stryMutAct_9fa48("2566") ? d[(i - 1) * cols + j] - 1 : (stryCov_9fa48("2566"), d[stryMutAct_9fa48("2567") ? (i - 1) * cols - j : (stryCov_9fa48("2567"), (stryMutAct_9fa48("2568") ? (i - 1) / cols : (stryCov_9fa48("2568"), (stryMutAct_9fa48("2569") ? i + 1 : (stryCov_9fa48("2569"), i - 1)) * cols)) + j)] + 1), stryMutAct_9fa48("2570") ? d[i * cols + j - 1] - 1 : (stryCov_9fa48("2570"), d[stryMutAct_9fa48("2571") ? i * cols + j + 1 : (stryCov_9fa48("2571"), (stryMutAct_9fa48("2572") ? i * cols - j : (stryCov_9fa48("2572"), (stryMutAct_9fa48("2573") ? i / cols : (stryCov_9fa48("2573"), i * cols)) + j)) - 1)] + 1), stryMutAct_9fa48("2574") ? d[(i - 1) * cols + j - 1] - cost : (stryCov_9fa48("2574"), d[stryMutAct_9fa48("2575") ? (i - 1) * cols + j + 1 : (stryCov_9fa48("2575"), (stryMutAct_9fa48("2576") ? (i - 1) * cols - j : (stryCov_9fa48("2576"), (stryMutAct_9fa48("2577") ? (i - 1) / cols : (stryCov_9fa48("2577"), (stryMutAct_9fa48("2578") ? i + 1 : (stryCov_9fa48("2578"), i - 1)) * cols)) + j)) - 1)] + cost)));
            if (stryMutAct_9fa48("2581") ? i > 1 && j > 1 && a[i - 1] === b[j - 2] || a[i - 2] === b[j - 1] : stryMutAct_9fa48("2580") ? false : stryMutAct_9fa48("2579") ? true : (stryCov_9fa48("2579", "2580", "2581"), (stryMutAct_9fa48("2583") ? i > 1 && j > 1 || a[i - 1] === b[j - 2] : stryMutAct_9fa48("2582") ? true : (stryCov_9fa48("2582", "2583"), (stryMutAct_9fa48("2585") ? i > 1 || j > 1 : stryMutAct_9fa48("2584") ? true : (stryCov_9fa48("2584", "2585"), (stryMutAct_9fa48("2588") ? i <= 1 : stryMutAct_9fa48("2587") ? i >= 1 : stryMutAct_9fa48("2586") ? true : (stryCov_9fa48("2586", "2587", "2588"), i > 1)) && (stryMutAct_9fa48("2591") ? j <= 1 : stryMutAct_9fa48("2590") ? j >= 1 : stryMutAct_9fa48("2589") ? true : (stryCov_9fa48("2589", "2590", "2591"), j > 1)))) && (stryMutAct_9fa48("2593") ? a[i - 1] !== b[j - 2] : stryMutAct_9fa48("2592") ? true : (stryCov_9fa48("2592", "2593"), a[stryMutAct_9fa48("2594") ? i + 1 : (stryCov_9fa48("2594"), i - 1)] === b[stryMutAct_9fa48("2595") ? j + 2 : (stryCov_9fa48("2595"), j - 2)])))) && (stryMutAct_9fa48("2597") ? a[i - 2] !== b[j - 1] : stryMutAct_9fa48("2596") ? true : (stryCov_9fa48("2596", "2597"), a[stryMutAct_9fa48("2598") ? i + 2 : (stryCov_9fa48("2598"), i - 2)] === b[stryMutAct_9fa48("2599") ? j + 1 : (stryCov_9fa48("2599"), j - 1)])))) {
              if (stryMutAct_9fa48("2600")) {
                {}
              } else {
                stryCov_9fa48("2600");
                best = stryMutAct_9fa48("2601") ? Math.max(best, d[(i - 2) * cols + j - 2] + 1) : (stryCov_9fa48("2601"), Math.min(best, stryMutAct_9fa48("2602") ? d[(i - 2) * cols + j - 2] - 1 : (stryCov_9fa48("2602"), d[stryMutAct_9fa48("2603") ? (i - 2) * cols + j + 2 : (stryCov_9fa48("2603"), (stryMutAct_9fa48("2604") ? (i - 2) * cols - j : (stryCov_9fa48("2604"), (stryMutAct_9fa48("2605") ? (i - 2) / cols : (stryCov_9fa48("2605"), (stryMutAct_9fa48("2606") ? i + 2 : (stryCov_9fa48("2606"), i - 2)) * cols)) + j)) - 2)] + 1)));
              }
            }
            d[stryMutAct_9fa48("2607") ? i * cols - j : (stryCov_9fa48("2607"), (stryMutAct_9fa48("2608") ? i / cols : (stryCov_9fa48("2608"), i * cols)) + j)] = best;
          }
        }
      }
    }
    return d[stryMutAct_9fa48("2609") ? rows * cols + 1 : (stryCov_9fa48("2609"), (stryMutAct_9fa48("2610") ? rows / cols : (stryCov_9fa48("2610"), rows * cols)) - 1)];
  }
}

/**
 * The candidate closest to `input`, if it is close enough to be a plausible
 * typo (at most a third of the word's length, and at least one edit allowed).
 * Case differences alone always qualify, and so does a truncation of at
 * least three characters (`shard` for `sharded`).
 *
 * @example
 * closest("rate_limt", ["rate_limit", "rate_limits", "key"]); // "rate_limit"
 * closest("shard", ["sharded", "per_key"]);                  // "sharded"
 * closest("zzz", ["key", "value"]);                            // undefined
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  if (stryMutAct_9fa48("2611")) {
    {}
  } else {
    stryCov_9fa48("2611");
    const lower = stryMutAct_9fa48("2612") ? input.toUpperCase() : (stryCov_9fa48("2612"), input.toLowerCase());
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const candidate of candidates) {
      if (stryMutAct_9fa48("2613")) {
        {}
      } else {
        stryCov_9fa48("2613");
        if (stryMutAct_9fa48("2616") ? candidate.toLowerCase() !== lower : stryMutAct_9fa48("2615") ? false : stryMutAct_9fa48("2614") ? true : (stryCov_9fa48("2614", "2615", "2616"), (stryMutAct_9fa48("2617") ? candidate.toUpperCase() : (stryCov_9fa48("2617"), candidate.toLowerCase())) === lower)) return candidate;
        const distance = editDistance(lower, stryMutAct_9fa48("2618") ? candidate.toUpperCase() : (stryCov_9fa48("2618"), candidate.toLowerCase()));
        if (stryMutAct_9fa48("2622") ? distance >= bestDistance : stryMutAct_9fa48("2621") ? distance <= bestDistance : stryMutAct_9fa48("2620") ? false : stryMutAct_9fa48("2619") ? true : (stryCov_9fa48("2619", "2620", "2621", "2622"), distance < bestDistance)) {
          if (stryMutAct_9fa48("2623")) {
            {}
          } else {
            stryCov_9fa48("2623");
            best = candidate;
            bestDistance = distance;
          }
        }
      }
    }
    const allowed = stryMutAct_9fa48("2624") ? Math.min(1, Math.floor(input.length / 3)) : (stryCov_9fa48("2624"), Math.max(1, Math.floor(stryMutAct_9fa48("2625") ? input.length * 3 : (stryCov_9fa48("2625"), input.length / 3))));
    if (stryMutAct_9fa48("2629") ? bestDistance > allowed : stryMutAct_9fa48("2628") ? bestDistance < allowed : stryMutAct_9fa48("2627") ? false : stryMutAct_9fa48("2626") ? true : (stryCov_9fa48("2626", "2627", "2628", "2629"), bestDistance <= allowed)) return best;
    return (stryMutAct_9fa48("2633") ? lower.length < 3 : stryMutAct_9fa48("2632") ? lower.length > 3 : stryMutAct_9fa48("2631") ? false : stryMutAct_9fa48("2630") ? true : (stryCov_9fa48("2630", "2631", "2632", "2633"), lower.length >= 3)) ? candidates.find(stryMutAct_9fa48("2634") ? () => undefined : (stryCov_9fa48("2634"), c => stryMutAct_9fa48("2636") ? c.toUpperCase().startsWith(lower) : stryMutAct_9fa48("2635") ? c.toLowerCase().endsWith(lower) : (stryCov_9fa48("2635", "2636"), c.toLowerCase().startsWith(lower)))) : undefined;
  }
}