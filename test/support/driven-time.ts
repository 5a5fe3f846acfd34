/**
 * Time a test drives, for the edge's background work (refresh chains,
 * coalescer holds): the clock handed to the code under test and the timers
 * it sets (vitest's fake setTimeout) move together, one millisecond at a
 * time, only when the test calls `advance`. The counter objects stay real
 * and keep their own clock; after every step `advance` waits until every
 * call to them that the step set off has been answered, so what happens at
 * a given instant no longer depends on how fast the machine is.
 */
import { vi } from "vitest";
import type { SendBatch } from "../../src/stored/wire-calls.ts";

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
 * A request's waitUntil for tests: `settled` once all the work it was given has ended.
 *
 * @example
 * const first = trackedRequest(); await table.decide(call, now, first.defer); expect(first.settled()).toBe(true);
 */
export function trackedRequest() {
  const work: Promise<unknown>[] = [];
  let running = 0;
  const defer = (p: Promise<unknown>) => {
    work.push(p);
    running += 1;
    const end = () => void (running -= 1);
    p.then(end, end);
  };
  return { work, defer, settled: () => work.length > 0 && running === 0 };
}
