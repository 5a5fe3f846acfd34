/**
 * `floodgate/durable`: the Durable Object classes to export from your
 * Worker and bind in its wrangler.toml (docs/hono.md). `CounterObject` is
 * the one every app needs; the others serve metrics, uploaded rules and
 * queued requests.
 *
 * @example
 * export { CounterObject } from "floodgate/durable";
 */
export { CounterObject } from "../durable/counters/counter-object.ts";
export { MetricsObject } from "../durable/metrics/metrics-object.ts";
export { QueueStatusObject } from "../durable/queue/status-object.ts";
export { RulesObject } from "../durable/rules/rules-object.ts";
