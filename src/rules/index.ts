/**
 * The rules engine: compile `rules.json` once, then look descriptors and
 * routes up in the immutable result on every request.
 */
export { compileOnce, compileRules, type CompileOptions } from "./compile.ts";
export { compileRulesText, parseRulesText, type ParsedText } from "./text.ts";
export { applyReplaces, matchDescriptor, matchRoute, type RouteRequest } from "./match/match.ts";
export { compileGlob, isGlob, type GlobMatcher } from "./match/glob.ts";
export { compilePathPattern, DEFAULT_PATH_OPTIONS, domainPath } from "./paths.ts";
export { boundedDescriptors, boundedEntries, isLongValue, longValueKey, MAX_VALUE_BYTES, READABLE_PREFIX_CHARS } from "./match/long-values.ts";
export {
  ALGORITHMS,
  BOUNDS,
  BUILTIN_KEYS,
  BURST_ALGORITHMS,
  DEFAULT_ALGORITHM,
  DELAY_ALGORITHMS,
  DUPLICATE_VALUES,
  ENVOY_ONLY_KEYS,
  IPV6_PREFIX,
  JWT_ALGORITHMS,
  JWT_BOUNDS,
  ON_LIMIT_ACTIONS,
  PATH_FORWARDS,
  PLACEMENTS,
  RULE_KEYS,
  UNIT_MS,
  UNITS,
  VALUE_SOURCES,
} from "./keys.ts";
export type * from "./types.ts";
