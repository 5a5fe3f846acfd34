/**
 * RateLimiterBinding's period, held on a driven clock (docs/testing.md):
 * `simple = { limit, period }` counts `limit` per `period` seconds, whatever
 * the period, decided by `bindingLimit` against real CounterObjects, and a
 * counter that cannot be asked answers by FAILURE_MODE.
 *
 * Breaks tried, each seen to fail here: the period read as `period * 100`
 * milliseconds in src/dropins/binding.ts (a minute became 6 s).
 */
import { describe, expect, it } from "vitest";
import { readSettings } from "../../src/config.ts";
import { Isolate } from "../../src/admission/isolate-context.ts";
import { BindingLimits, bindingLimit } from "../../src/dropins/binding.ts";
import { testEnv } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

const limits = new BindingLimits();
const defer = () => undefined;
let serial = 0;

function setup(start: number) {
  const clock = { at: start };
  const now = () => clock.at;
  const counters = drivenCounters(testEnv.COUNTERS, now);
  const isolate = new Isolate({ env: testEnv, settings: readSettings(testEnv), counters }, null, { now });
  const call = (props: unknown, key: string) => bindingLimit(isolate, limits.domainOf(props), { key }, defer);
  return { clock, call };
}

describe("RateLimiterBinding's period", () => {
  for (const period of [10, 60, 3600]) {
    it(`simple = { limit: 2, period: ${period} }: 2 per ${period} s, refused until the period has passed`, async () => {
      // At the start of an aligned window, so that the previous (empty) window weighs nothing.
      const start = (Math.floor(OBJECT_EPOCH / 3_600_000) + 10 * (serial + 1)) * 3_600_000;
      const { clock, call } = setup(start);
      const props = { namespace_id: `period-${period}-${serial++}`, simple: { limit: 2, period } };
      const key = "user-1";
      expect([await call(props, key), await call(props, key), await call(props, key)]).toEqual([{ success: true }, { success: true }, { success: false }]);
      // Most of the period later, still refused; two periods on, the window has slid past the hits.
      clock.at = start + period * 1000 * 0.9;
      expect(await call(props, key)).toEqual({ success: false });
      clock.at = start + period * 2000;
      expect(await call(props, key)).toEqual({ success: true });
    });
  }
});
