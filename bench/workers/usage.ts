/**
 * The cost model's counts: every counter object of this bench build adds
 * what it did (calls, alarms, SQLite rows read and written, as
 * CounterObject.usage() counts them) to one tally per workerd process,
 * read by the bench at `GET /__bench/usage` before and after each load.
 * Objects and the gateway share one isolate in workerd, so the tally is
 * plain module state here; it exists only in the bench build.
 */
import { CounterObject as Counters } from "../../src/durable/counters/counter-object.ts";

type Usage = ReturnType<Counters["usage"]>;

const tally = { calls: 0, alarms: 0, rowsRead: 0, rowsWritten: 0, objects: 0 };

/** The counter object, counted. */
export class CountedCounterObject extends Counters {
  private seen: Usage = { calls: 0, alarms: 0, rowsRead: 0, rowsWritten: 0 };

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    tally.objects += 1;
    this.record();
  }

  override decide(...args: Parameters<Counters["decide"]>): ReturnType<Counters["decide"]> {
    try {
      return super.decide(...args);
    } finally {
      this.record();
    }
  }

  override async alarm(): Promise<void> {
    try {
      await super.alarm();
    } finally {
      this.record();
    }
  }

  private record(): void {
    const now = this.usage();
    for (const key of ["calls", "alarms", "rowsRead", "rowsWritten"] as const) tally[key] += now[key] - this.seen[key];
    this.seen = now;
  }
}

/**
 * The tally as JSON (`objects`: instances started), with `extra` counts beside it.
 *
 * @example
 * if (url.pathname === "/__bench/usage") return usageResponse(simulatedRoundTrips());
 */
export const usageResponse = (extra: Record<string, number> = {}) => Response.json({ ...tally, ...extra });
