/**
 * What the simulated distance really took (bench/workers/round-trip.ts):
 * its timers fire late, so the round trip the calls waited is longer than
 * twice `BENCH_RTT_MS`, and "p50 over bare + one round trip" is stated
 * against both.
 */

/**
 * Mean round trip, in ms, the simulated distance's calls of a target's
 * measured runs waited (both ways); undefined when none went through it.
 *
 * @example
 * realizedRoundTripMs([{ usage: { simulatedCalls: 10, simulatedRoundTripMs: 530 } }]); // 53
 */
export function realizedRoundTripMs(runs) {
  const counted = runs.filter((r) => r.usage?.simulatedCalls > 0);
  const calls = counted.reduce((n, r) => n + r.usage.simulatedCalls, 0);
  const ms = counted.reduce((n, r) => n + r.usage.simulatedRoundTripMs, 0);
  return calls > 0 ? ms / calls : undefined;
}
