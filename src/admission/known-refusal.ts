/**
 * A refusal this isolate can give without asking any object (a cached
 * certain block), for a face that must answer before it decides: the admin
 * throttle refuses a throttled client before comparing its token.
 */
import type { Defer } from "../http/defer.ts";
import { plan } from "../limiter/plan.ts";
import type { DomainDescriptors } from "../rules/types.ts";
import type { Engine } from "./pipeline.ts";

/**
 * Milliseconds until `descriptors` may pass again when this isolate already
 * knows they are refused; undefined when it does not (then decide them).
 * Counts nothing and asks no object. Only a request whose calls all go to
 * one object can be answered here.
 *
 * @example
 * const retryMs = knownRefusalMs(isolate, descriptors, defer);
 * if (retryMs !== undefined) return throttled(retryMs);
 */
export function knownRefusalMs(engine: Engine, descriptors: readonly DomainDescriptors[], defer: Defer): number | undefined {
  const { byObject } = plan(descriptors, {}, false, engine.edge.shardKey, engine.edge.now());
  if (byObject.size !== 1) return undefined;
  const [calls] = byObject.values();
  const verdict = engine.edge.localVerdicts(calls, defer)?.[0];
  if (verdict === undefined || verdict.allowed) return undefined;
  return Math.max(...verdict.decisions.filter((d) => !d.allowed).map((d) => d.retryAfterMs));
}
