/**
 * The queued-status limit takes the admission pipeline like any face
 * (docs/on-limit.md, "Status"; docs/reliability.md, "Failure mode"): a
 * counter out of reach is logged and counted, and `closed` answers the
 * gateway's own 503. Break tried: the limit catching the error itself
 * (as it did before the pipeline), answering a 503 without the decision
 * header and neither logging nor counting: all three expectations failed.
 */
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import { Isolate, partsFromEnv } from "../../src/admission/isolate-context.ts";
import { PROBLEM_TYPES } from "../../src/http/problem.ts";
import { limitStatusReads } from "../../src/queue/status-limit.ts";
import { testEnv, uniqueIp } from "../support/app.ts";
import { hangingCounters } from "../support/failing.ts";

function isolateWith(vars: Partial<Env>): Isolate<undefined> {
  return new Isolate(partsFromEnv({ ...testEnv, COUNTERS: hangingCounters, DECISION_TIMEOUT_MS: "50", ...vars }), undefined);
}

const read = () => new Request("http://gw.test/__ratelimit/queued/some-id", { headers: { "cf-connecting-ip": uniqueIp() } });

describe("the queued-status limit when its counters cannot be reached", () => {
  for (const mode of ["open", "closed"] as const) {
    it(`${mode}: logged once, counted once, answered by the mode`, async () => {
      const isolate = isolateWith({ FAILURE_MODE: mode });
      const counted = vi.spyOn(isolate.metrics, "recordFailureMode");
      const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const background: Promise<unknown>[] = [];
      const refused = await limitStatusReads(isolate, read(), (p) => background.push(p));
      const lines = errors.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("counter_unavailable"));
      errors.mockRestore();
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0])).toMatchObject({ event: "ratelimit.counter_unavailable", failure_mode: mode, path: "/__ratelimit/queued/some-id" });
      expect(counted.mock.calls).toEqual([[mode]]);
      if (mode === "open") {
        expect(refused).toBeUndefined();
        return;
      }
      expect(refused?.status).toBe(503);
      expect(refused?.headers.get("Retry-After")).toBe("1");
      expect(refused?.headers.get("X-RateLimit-Decision")).toBe("failure-closed");
      expect(await refused?.json()).toMatchObject({ type: PROBLEM_TYPES.countersUnreachable, status: 503 });
    });
  }
});
