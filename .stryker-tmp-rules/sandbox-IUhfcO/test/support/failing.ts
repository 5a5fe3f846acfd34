/**
 * Namespaces of real Durable Objects that fail (test/support/failing-objects.mjs,
 * bound in vitest.config.ts), to put where a test's env names COUNTERS or RULES.
 */
// @ts-nocheck

import { env } from "cloudflare:workers";
import type { Env } from "../../src/config.ts";

const bindings = env as unknown as { THROWING_OBJECTS: DurableObjectNamespace; HANGING_OBJECTS: DurableObjectNamespace };

/** Counter objects whose every call throws. */
export const throwingCounters = bindings.THROWING_OBJECTS as unknown as Env["COUNTERS"];

/** Counter objects that never answer (for a minute). */
export const hangingCounters = bindings.HANGING_OBJECTS as unknown as Env["COUNTERS"];

/** A rules object namespace whose every call throws. */
export const throwingRules = bindings.THROWING_OBJECTS as unknown as Env["RULES"];
