/**
 * Before any load: the bench rules floodgate runs (bench/rules/bench.json)
 * must enforce exactly the limit each scenario declares, which is also what
 * the peer is configured with, or the two limiters would not be compared
 * like for like; a baseline floodgate serves on a path of its own (strong
 * mode beside pre-counting) must have that same limit, differing only in
 * not pre-counting. Uses floodgate's own compiler and matcher.
 */
// @ts-nocheck

import { readFileSync } from "node:fs";
import { compileOnce, matchDescriptor, matchRoute } from "../../src/rules/index.ts";

const RULES = new URL("../rules/bench.json", import.meta.url);

/** The one limit floodgate applies to `path` with `x-api-key: apiKey` (undefined for none). */
function floodgateLimit(rules, path, apiKey) {
  for (const domain of rules.domains.values()) {
    if (!matchRoute(domain.routes, { method: "GET", path, host: "127.0.0.1" })) continue;
    const match = matchDescriptor(domain, [
      { key: "path", value: path },
      { key: "api_key", value: apiKey },
    ]);
    if (match?.limits.length !== 1) return undefined;
    const { limit, windowMs, algorithm, precount } = match.limits[0];
    return { limit, windowMs, algorithm, precount, placement: domain.placement };
  }
  return undefined;
}

/**
 * Throw, naming every mismatch, unless the rules agree with the scenarios.
 *
 * @example
 * checkBenchRules(SCENARIOS); // returns quietly when they agree
 */
export function checkBenchRules(scenarios) {
  const rules = compileOnce(JSON.parse(readFileSync(RULES, "utf8")), "bench/rules/bench.json")();
  const problems = [];
  const expect = (scenario, path, apiKey, want) => {
    const got = floodgateLimit(rules, path, apiKey);
    if (!got || got.limit !== want.limit || got.windowMs !== want.windowMs) {
      problems.push(
        `${scenario.id} (${path}, key ${apiKey}): scenario says ${want.limit}/${want.windowMs} ms, rules give ${got ? `${got.limit}/${got.windowMs} ms` : "no single limit"}`,
      );
    }
    const placement = path.startsWith("/per-key/") ? "per_key" : "sharded";
    if (got && got.placement !== placement) problems.push(`${scenario.id}: ${path} says ${placement}, rules place it ${got.placement}`);
    return got;
  };
  for (const scenario of scenarios) {
    const key = scenario.keys.kind === "zipf" ? "user-9999" : "r-1";
    const own = expect(scenario, scenario.path, key, scenario.limit);
    if (scenario.overLimit) expect(scenario, scenario.path, "over-1", scenario.overLimit);
    for (const baseline of scenario.baselines ?? []) {
      if (baseline.service !== "floodgate") continue;
      const got = expect(scenario, baseline.path, key, scenario.limit);
      if (got?.precount) problems.push(`${scenario.id}: baseline ${baseline.id} (${baseline.path}) pre-counts; it is there to show strong mode`);
      if (got && own && got.algorithm !== own.algorithm)
        problems.push(`${scenario.id}: baseline ${baseline.id} (${baseline.path}) uses ${got.algorithm}, ${scenario.path} ${own.algorithm}`);
    }
  }
  if (problems.length > 0) throw new Error(`bench/rules/bench.json disagrees with bench/scenarios.ts:\n${problems.join("\n")}`);
}
