/**
 * The decision timeout (src/limiter/timeout.ts) leaves no timer behind: an
 * answer in time clears its deadline, so a request decided quickly keeps
 * nothing pending in its isolate.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { CounterUnavailableError, withTimeout } from "../../src/limiter/timeout.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("decision timeout", () => {
  it("clears its deadline once the work answered or failed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    expect(await withTimeout(Promise.resolve(7), 1_000)).toBe(7);
    expect(vi.getTimerCount()).toBe(0);
    await expect(withTimeout(Promise.reject(new Error("gone")), 1_000)).rejects.toThrow(new CounterUnavailableError("Error: gone"));
    expect(vi.getTimerCount()).toBe(0);
  });
});
