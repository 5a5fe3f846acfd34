/**
 * The namespace a counter object lives in, found without reading any binding
 * by name (docs/placement.md, "Global limits decided in the region"): a
 * regional copy calls its home in the namespace it lives in, and a user's
 * Worker may bind `CounterObject` under any name (`LIMITS`, `RATE`, …).
 * Among the Durable Object namespaces of `env` (then `ctx.exports`), it is
 * the one in which the object's own name gives the object's own id.
 */
import type { CounterNamespace } from "./regions.ts";

/** What is read of a namespace: a name's id, to compare with the object's own. */
interface Namespace extends CounterNamespace {
  idFromName(name: string): { equals(other: DurableObjectId): boolean };
  jurisdiction(jurisdiction: DurableObjectJurisdiction): Namespace;
}

/**
 * Whether `value` is a Durable Object namespace (or a wrapper of one that
 * keeps its `Symbol.toStringTag`). A service binding answers any property
 * with a remote method, so only the tag tells them apart.
 */
function isNamespace(value: unknown): value is Namespace {
  return typeof value === "object" && value !== null && Object.prototype.toString.call(value) === "[object DurableObjectNamespace]";
}

/**
 * The namespace among `env`'s bindings (then `exports`, the Worker's own
 * `ctx.exports`) in which `name` is the object `id`; undefined if none is.
 * `env` comes first so that a wrapper a subclass put in place of the
 * binding (a bench's delays) is the one used.
 *
 * @example
 * const counters = ownNamespace(ctx.id, "api/shard/3@weur", env, ctx.exports);
 * await counterStub(counters, "api/shard/3").decide(calls);
 */
export function ownNamespace(id: DurableObjectId, name: string, env: unknown, exports?: unknown): CounterNamespace | undefined {
  for (const bindings of [env, exports]) {
    if (typeof bindings !== "object" || bindings === null) continue;
    for (const value of Object.values(bindings)) {
      if (!isNamespace(value)) continue;
      // An object in a jurisdiction (COUNTERS_JURISDICTION) has its ids, and its home, in that jurisdiction's namespace.
      const namespace = id.jurisdiction ? value.jurisdiction(id.jurisdiction as DurableObjectJurisdiction) : value;
      if (namespace.idFromName(name).equals(id)) return namespace;
    }
  }
  return undefined;
}
