/**
 * The isolate a `rateLimit()` middleware decides with: one per env object
 * (the runtime passes the same one to every request of an isolate), made
 * from the middleware's options rather than floodgate's own `[vars]`.
 */
import type { Env, Settings } from "../config.ts";
import { EMPTY_ENV, Isolate, type IsolateOptions } from "../admission/isolate-context.ts";
import type { AnyContext } from "./options.ts";

// biome-ignore lint/suspicious/noExplicitAny: a namespace of the user's bindings, typed or not.
type Namespace = DurableObjectNamespace<any>;

const defaultCounters = (c: AnyContext) => c.env.COUNTERS;

// The namespace each middleware isolate decides with, for what reaches a counter directly (the store's resetKey).
const namespaces = new WeakMap<Isolate<null>, Namespace>();

/**
 * The CounterObject namespace `isolate` (made by middlewareIsolates) decides with.
 *
 * @example
 * await countersOf(isolate).getByName(object).reset(key);
 */
export function countersOf(isolate: Isolate<null>): Env["COUNTERS"] {
  const namespace = namespaces.get(isolate);
  if (namespace === undefined) throw new Error("countersOf(): not an isolate of a rateLimit() middleware");
  return namespace as Env["COUNTERS"];
}

/**
 * The isolate of a context's env, made on its first request. `options`
 * (the clock) only tests set: the public middleware passes none.
 *
 * @example
 * const isolateOf = middlewareIsolates(settings, options.counters, options.metrics);
 * const isolate = isolateOf(c);
 */
export function middlewareIsolates(
  settings: Settings,
  countersOf: ((c: AnyContext) => Namespace) | undefined,
  metricsOf: ((c: AnyContext) => Namespace | undefined) | undefined,
  options: IsolateOptions = {},
): (c: AnyContext) => Isolate<null> {
  const counters = countersOf ?? defaultCounters;
  const isolates = new WeakMap<object, Isolate<null>>();
  return (c) => {
    let isolate = isolates.get(c.env);
    if (isolate === undefined) {
      const namespace = counters(c);
      if (namespace === undefined || typeof namespace.getByName !== "function" || typeof namespace.idFromName !== "function") {
        throw new TypeError("rateLimit(): options.counters(c) did not return a Durable Object namespace bound to CounterObject (default: c.env.COUNTERS)");
      }
      // Only the rules' named secrets are read from the app's env: its other names (FAILURE_MODE, SAMPLE_*, QUEUE) are the app's, not ours.
      isolate = new Isolate({ env: EMPTY_ENV, secrets: c.env, settings, counters: namespace, metrics: metricsOf?.(c) }, null, options);
      namespaces.set(isolate, namespace);
      isolates.set(c.env, isolate);
    }
    return isolate;
  };
}
