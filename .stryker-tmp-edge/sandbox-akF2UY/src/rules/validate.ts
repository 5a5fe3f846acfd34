/**
 * Checking a rules document without keeping what it compiles to.
 */
// @ts-nocheck

import { compileRules } from "./compile.ts";
import type { RuleError } from "./types.ts";

/**
 * Every error in a parsed rules document, each with its JSON path; empty when it is valid.
 *
 * @example
 * validateRules({ domain: "api", descriptors: [{ key: "ip", rate_limit: { unit: "fortnight", requests_per_unit: 5 } }] });
 * // [{ path: "$.descriptors[0].rate_limit.unit", message: "..." }]
 */
export function validateRules(input: unknown): readonly RuleError[] {
  const result = compileRules(input);
  return result.ok ? [] : result.errors;
}
