/**
 * SlotHold, the gateway's side of a concurrency slot (docs/concurrency.md),
 * over the real CounterObject: a streaming response renews its slot past
 * its lease, and frees it when the body ends.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import type { DecideCall, LimitCall } from "../../src/stored/wire-calls.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { SlotHold } from "../../src/gateway/slots.ts";
import type { RateLimitResult } from "../../src/limiter/types.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";

const counters = (env as unknown as Env).COUNTERS;
const one: LimitCall = { id: "concurrency", algorithm: "fixed_window", limit: 1, windowMs: 1000, burst: 1, concurrency: true };

describe("SlotHold", () => {
  // One clock for the object and the renewal timer, moved by the test a millisecond at a time. Break tried: renewals
  // every 2 × the lease (RENEWALS_PER_LEASE 0.5): the slot was free to another before the body ended.
  it("renews the slot while the body streams, past its lease, and frees it when the body ends", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      const object = `slot-hold-${Date.now()}`;
      let clock = OBJECT_EPOCH;
      await driveObject(counters.getByName(object), () => clock);
      const take = async (holder: string, leaseMs: number) => {
        const call: DecideCall = { key: object, limits: [one], cost: 1, slot: { holder, leaseMs } };
        return { call, verdict: (await counters.getByName(object).decide([call]))[0] };
      };
      const { call, verdict } = await take("streaming", 600);
      expect(verdict.allowed).toBe(true);
      const result = {
        allowed: true,
        descriptors: [{ counter: { object, call }, cost: 1, policies: [{ decision: verdict.decisions[0] }] }],
      } as unknown as RateLimitResult;
      const pending: Promise<unknown>[] = [];
      const hold = SlotHold.of(new EdgeRuntime(counters, { now: () => clock, coalesce: false }), result, (work) => pending.push(work));
      expect(hold).toBeDefined();
      let release: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => (release = resolve));
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await ended;
          controller.enqueue(new TextEncoder().encode("done"));
          controller.close();
        },
      });
      const response = hold!.follow(new Response(body));
      // Twice the lease: without renewals the slot would be free by now. Each renewal is answered before time moves on.
      for (let ms = 0; ms < 1_200; ms++) {
        clock += 1;
        await vi.advanceTimersByTimeAsync(1);
        await Promise.all(pending);
      }
      expect((await take("other", 60_000)).verdict.allowed).toBe(false);
      release();
      expect(await response.text()).toBe("done");
      await Promise.all(pending);
      expect((await take("other", 60_000)).verdict.allowed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
