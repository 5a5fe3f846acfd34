/**
 * The rules engine: compile `rules.json` once, then look descriptors and
 * routes up in the immutable result on every request.
 */
// @ts-nocheck

export { compileOnce, compileRules, type CompileOptions } from "./compile.ts";
export { compileRulesText, parseRulesText, type ParsedText } from "./text.ts";
export { applyReplaces, matchDescriptor, matchRoute, type RouteRequest } from "./match.ts";
export { compileGlob, isGlob, type GlobMatcher } from "./glob.ts";
export { ALGORITHMS, BOUNDS, BUILTIN_KEYS, BURST_ALGORITHMS, DEFAULT_ALGORITHM, DELAY_ALGORITHMS, ENVOY_ONLY_KEYS, ON_LIMIT_ACTIONS, PLACEMENTS, RULE_KEYS, UNIT_MS, UNITS, VALUE_SOURCES } from "./keys.ts";
export type * from "./types.ts";