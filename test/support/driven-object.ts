/**
 * Counter objects on a test's driven clock (docs/testing.md): workerd only,
 * apart from driven-time.ts so that plain tests can drive time in Node.
 */
import { runInDurableObject } from "cloudflare:test";
import type { CounterObject } from "../../src/durable/counter-object.ts";

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
