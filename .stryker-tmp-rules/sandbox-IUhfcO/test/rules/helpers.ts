/**
 * Shared helpers for the rules tests.
 */
// @ts-nocheck

import { compileRules } from "../../src/rules/index.ts";
import type { CompiledDomain, CompiledRules, RuleError } from "../../src/rules/types.ts";

/** Compile rules that must be valid; fail with every error otherwise. */
export function compileOk(input: unknown): CompiledRules {
  const result = compileRules(input);
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join("\n"));
  return result.rules;
}

/** The single domain of a one-document rules file. */
export function domainOf(input: unknown): CompiledDomain {
  const rules = compileOk(input);
  const [domain] = rules.domains.values();
  return domain;
}

/** The errors of rules that must be invalid. */
export function errorsOf(input: unknown): readonly RuleError[] {
  const result = compileRules(input);
  if (result.ok) throw new Error(`expected errors, compiled: ${result.summary}`);
  return result.errors;
}
