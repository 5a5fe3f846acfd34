/**
 * The drop-ins' input as descriptors: one identifier under a one-limit
 * domain (src/limiter/identifier.ts compiles the domain).
 */
import { IDENTIFIER_KEY } from "../limiter/identifier.ts";
import type { CompiledDomain, DomainDescriptors } from "../rules/types.ts";

/**
 * The request that decides `identifier` (already counted: see
 * `countedIdentifier`) under `domain`.
 *
 * @example
 * await admitDescriptors(isolate, identifierRequest(domain, "user-1"), { timeoutMs, defer }, defer);
 */
export function identifierRequest(domain: CompiledDomain, identifier: string): DomainDescriptors[] {
  return [{ domain, descriptors: [[{ key: IDENTIFIER_KEY, value: identifier }]] }];
}
