/**
 * The counter object of the platform suite's build: the real CounterObject,
 * plus what the suite needs to do to it what the platform does
 * (docs/testing.md, "test:platform"): `platformAbort()` ends the instance
 * as an eviction or a reset does (its memory discarded; the next call
 * finds a new instance), and `platformState()` says which instance
 * answered and how many calls it has decided, so the suite can see that
 * an eviction really happened and what call rate an object saw.
 * Test-only: production objects have neither.
 */
import { CounterObject } from "../../../src/durable/counters/counter-object.ts";

/** Objects started in this isolate, by name: the suite lists and evicts them by name. */
const started = new Set<string>();

/**
 * Names of the counter objects started in this process (workerd runs every
 * object of the namespace in the isolate of the service that declares it).
 *
 * @example
 * for (const name of startedObjects()) await env.COUNTERS.getByName(name).platformAbort();
 */
export const startedObjects = (): string[] => [...started];

/** The counter object, with the suite's two handles on it. */
export class PlatformCounterObject extends CounterObject {
  private readonly instance = crypto.randomUUID();

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    if (ctx.id.name !== undefined) started.add(ctx.id.name);
  }

  /** Which instance this is (a new one after every eviction), the calls it has decided, and when its alarm is set for (null: none). */
  async platformState(): Promise<{ instance: string; calls: number; alarmAt: number | null }> {
    return { instance: this.instance, calls: this.usage().calls, alarmAt: await this.ctx.storage.getAlarm() };
  }

  /** End this instance as the runtime does on an eviction or a reset: nothing in memory survives. */
  platformAbort(): void {
    if (this.ctx.id.name !== undefined) started.delete(this.ctx.id.name);
    this.ctx.abort("platform test: object evicted");
  }
}
