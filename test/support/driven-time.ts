/**
 * Time a test drives, for the edge's background work (refresh chains,
 * coalescer holds): the clock handed to the code under test and the timers
 * it sets (vitest's fake setTimeout) move together, one millisecond at a
 * time, only when the test calls `advance`. The counter objects stay real
 * and keep their own clock; after every step `advance` waits until every
 * call to them that the step set off has been answered, so what happens at
 * a given instant no longer depends on how fast the machine is.
 */
import { runInDurableObject } from "cloudflare:test";
import { vi } from "vitest";
import type { CounterObject } from "../../src/durable/counter-object.ts";
import type { SendBatch } from "../../src/durable/protocol.ts";

type Send = SendBatch;

/**
 * Fake timers on until `stop`; `now` is the driven clock, `track` wraps a
 * transport so `advance` (and `settle`) can wait for its calls.
 *
 * @example
 * const time = drivenTime();
 * try { const table = new PrecountTable(time.track(send), time.now); await time.advance(50); } finally { time.stop(); }
 */
export function drivenTime(start = 1_000_000) {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  let clock = start;
  const inflight = new Set<Promise<unknown>>();
  /** Calls made through tracked transports, in order. */
  let calls = 0;

  function track(send: Send): Send {
    return (name, batch) => {
      calls += 1;
      const answer = send(name, batch);
      inflight.add(answer);
      const done = () => void inflight.delete(answer);
      answer.then(done, done);
      return answer;
    };
  }

  /** Wait until no tracked call is in flight and what their answers set off has run (timers due now included). */
  async function settle(): Promise<void> {
    for (;;) {
      await vi.advanceTimersByTimeAsync(0);
      if (inflight.size === 0) return;
      await Promise.allSettled([...inflight]);
    }
  }

  return {
    now: () => clock,
    track,
    settle,
    /** Calls made so far through tracked transports. */
    calls: () => calls,
    /**
     * Move the clock and the timers `ms` forward, settling after each
     * millisecond (or each `stepMs`, for long stretches: a timer then fires
     * up to `stepMs` - 1 late on the clock); with `clock: false` only the
     * timers move (a clock that stands still while timers fire, as when a
     * machine's clock is coarse).
     */
    async advance(ms: number, { clock: moveClock = true, stepMs = 1 } = {}): Promise<void> {
      await settle();
      for (let moved = 0; moved < ms; moved += stepMs) {
        const step = Math.min(stepMs, ms - moved);
        if (moveClock) clock += step;
        await vi.advanceTimersByTimeAsync(step);
        await settle();
      }
    },
    /** Move only the clock (no timer fires): what a long pause between two timer wake-ups looks like to the code. */
    jump(ms: number): void {
      clock += ms;
    },
    stop: () => vi.useRealTimers(),
  };
}

/**
 * A start for a driven clock that counter objects share: alarms they set on
 * it lie decades ahead of the machine's clock, so none fires on its own
 * during a test (a test that wants one runs it with `runDurableObjectAlarm`).
 */
export const OBJECT_EPOCH = 4_102_444_800_000;

/**
 * Put a counter object on the test's clock: from now on it decides, leases
 * and checkpoints at `now()` (docs: one clock per test). A restarted object
 * is back on its own clock until this is called again.
 *
 * @example
 * const time = drivenTime(); await driveObject(counters.getByName(name), time.now);
 */
export async function driveObject(stub: DurableObjectStub<CounterObject>, now: () => number): Promise<void> {
  await runInDurableObject(stub, (object: CounterObject) => {
    object.clock = now;
  });
}
