/**
 * Run before every file of the workerd tier (vitest.config.ts `setupFiles`). Its workers run file after file
 * (`isolate: false`, docs/testing.md "Tiers"), so what one file left behind is put back before the next one
 * starts, as a fresh worker would have it: fake timers, spies and stubbed globals at once; and after the file,
 * every Durable Object instance it left running (a held call, a timer in an object), so that the next file's
 * `evictAllDurableObjects()` waits for nothing of its. Stored data stays: each file names its own keys.
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { afterAll, vi } from "vitest";

vi.useRealTimers();
vi.restoreAllMocks();
vi.unstubAllGlobals();
vi.unstubAllEnvs();

afterAll(async () => {
  await abortAllDurableObjects();
});
