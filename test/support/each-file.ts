/**
 * Run before every file of the workerd tier (vitest.config.ts `setupFiles`). Its workers run file after file
 * (`isolate: false`, docs/testing.md "Tiers"), so what one file left behind — fake timers, spies, stubbed
 * globals — is put back before the next one starts, as a fresh worker would have it.
 */
import { vi } from "vitest";

vi.useRealTimers();
vi.restoreAllMocks();
vi.unstubAllGlobals();
vi.unstubAllEnvs();
