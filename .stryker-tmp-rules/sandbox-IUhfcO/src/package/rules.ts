/**
 * `floodgate/rules`: validate and compile rules documents (docs/rules.md).
 *
 * @example
 * import { compileRules, validateRules } from "floodgate/rules";
 * const errors = validateRules(json); // [] when valid, else each error with its JSON path
 * const result = compileRules(json);  // { ok: true, rules, summary } or { ok: false, errors }
 */
// @ts-nocheck

export { compileRules, type CompileOptions } from "../rules/compile.ts";
export { validateRules } from "../rules/validate.ts";
export type { CompiledRules, CompileResult, RuleError } from "../rules/types.ts";
