/**
 * What the engine keeps of a compiled limit, in the holder the compiler
 * made with it (src/rules/types.ts, LimitKept): no module of src/limiter/
 * keeps anything between requests, so two rules sets never share an entry
 * and a replaced rules set takes its entries with it.
 */
import type { LimitCall } from "../stored/wire-calls.ts";
import type { HeaderDialect } from "../http/header-dialect.ts";

/** The header list a rule's last 429 was made of, and the `Headers` made from it. */
export interface Kept429Headers {
  readonly list: readonly [string, string][];
  readonly headers: Headers;
}

/** A 429 that is the same every time (a limit of 0), and what it was made for. */
export interface Fixed429 {
  readonly name: string;
  readonly windowMs: number;
  readonly unit: string | undefined;
  readonly keys: readonly string[];
  readonly headers: Headers;
  readonly body: string;
}

/** A 429 body with its retry seconds left out (`parts` joined around them), and what it was made for. */
export interface BodyTemplate {
  readonly limit: number;
  readonly unit: string | undefined;
  readonly violated: readonly string[];
  readonly keys: readonly string[];
  readonly parts: readonly string[];
}

declare module "../rules/types.ts" {
  interface LimitKept {
    /** The limit as the counter objects take it (calls.ts). */
    call?: LimitCall;
    /** Its last 429's headers (respond.ts): a blocked key's differ only when their seconds do. */
    headers429?: Kept429Headers;
    /** Its last 429's body, but for the retry seconds (respond.ts). */
    body429?: BodyTemplate;
    /** For a limit of 0: its 429 per header dialect, which no counter state changes (respond.ts). */
    zero429?: Partial<Record<HeaderDialect, Fixed429>>;
  }
}

/**
 * The holder of `rule` (a compiled limit, or what a test made by hand: then
 * nothing is kept).
 *
 * @example
 * const kept = keptOf(policy.rule);
 * if (kept?.headers429 !== undefined) ...
 */
export function keptOf(rule: object | undefined): import("../rules/types.ts").LimitKept | undefined {
  return (rule as { kept?: import("../rules/types.ts").LimitKept } | undefined)?.kept;
}
