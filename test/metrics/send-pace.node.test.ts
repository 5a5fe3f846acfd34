/**
 * An isolate's metrics send pace (src/metrics/send-pace.ts) on a driven
 * clock: the first batch at once, then one per METRICS_FLUSH_MS of a steady
 * stream or per SEND_EVERY_REQUESTS requests, a tail timer that sends what a
 * stopped stream left within the flush time, and nothing when idle.
 */
import { describe, expect, it } from "vitest";
import { SEND_EVERY_REQUESTS, SendPace, TAIL_MAX_MS } from "../../src/metrics/send-pace.ts";

/** Requests every `everyMs` from 0 to `untilMs`; tails fire when due. Returns the send times. */
function drive(pace: SendPace, everyMs: number, untilMs: number, endMs = untilMs + 60_000) {
  const sends: number[] = [];
  let tail: { at: number; gen: number } | undefined;
  for (let now = 0; now <= endMs; now += 100) {
    if (tail !== undefined && tail.at <= now) {
      if (pace.tailDue(tail.gen)) {
        pace.sent();
        sends.push(now);
      }
      tail = undefined;
    }
    if (now > untilMs || now % everyMs !== 0) continue;
    const step = pace.request(now);
    if (step !== undefined && "send" in step) {
      pace.sent();
      sends.push(now);
    } else if (step !== undefined) tail = { at: now + step.tailInMs, gen: step.gen };
  }
  return sends;
}

describe("SendPace", () => {
  // Breaks tried, each failed here: a send per request; the tail armed once per batch (it sent 22 s in); no tail
  // (the stream's last counts never sent); SEND_EVERY_REQUESTS ignored (the busy case).
  it("sends the first batch at once, then once per flush time of a steady stream, and the tail once it stops", () => {
    expect([SEND_EVERY_REQUESTS, TAIL_MAX_MS]).toEqual([1_000, 20_000]);
    const sends = drive(new SendPace(30_000), 2_000, 300_000);
    expect(sends[0]).toBe(0);
    const gaps = sends.slice(1).map((at, i) => at - sends[i]);
    // One batch per 30 s of requests 2 s apart (the first request after the batch turns 30 s old sends it).
    for (const gap of gaps.slice(0, -1)) expect(gap).toBeGreaterThanOrEqual(30_000);
    for (const gap of gaps.slice(0, -1)) expect(gap).toBeLessThanOrEqual(32_000);
    // The stream stopped at 300 s: its last counts went within the flush time, by the tail.
    expect(sends.at(-1)).toBeGreaterThan(300_000);
    expect((sends.at(-1) as number) - 300_000).toBeLessThanOrEqual(30_000);
  });

  it("sends a busy isolate's batch per SEND_EVERY_REQUESTS requests, and nothing while idle", () => {
    const sends = drive(new SendPace(30_000), 1, 2_000, 2_000);
    // drive() steps 100 ms: 21 requests, so the age rule only (the 1,000 of a busy isolate is below).
    expect(sends).toEqual([0]);
    const pace = new SendPace(30_000);
    pace.request(0);
    pace.sent();
    let at = 1;
    for (let n = 1; n < SEND_EVERY_REQUESTS; n++) expect(pace.request(at++)).not.toEqual({ send: true });
    expect(pace.request(at)).toEqual({ send: true });
    // Idle: no request, no step, no send.
    expect(drive(new SendPace(30_000), 2_000, -1, 600_000)).toEqual([]);
  });
});
