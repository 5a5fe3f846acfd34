/**
 * Isolates of another deploy beside today's objects (docs/testing.md,
 * "test:platform"; docs/stored-formats.md): during a rollout old and new
 * isolates call the same objects. `PLATFORM_WIRE` makes a service's
 * isolate send its batches as one of another deploy would:
 *
 * - `unversioned`: as an isolate of a deploy before wire versions, which
 *   passes no version to `decideText` (the objects read it as version 1);
 * - `next`: as an isolate of a newer deploy (a rollback left the objects
 *   behind): a version past the newest the objects read, which they refuse
 *   (the edge gets a WireVersionError and its failure mode decides).
 *
 * Test-only, like faults.ts: production code has no such hook.
 */
import type { Env } from "../../../src/config.ts";
import { WIRE_VERSION } from "../../../src/stored/wire.ts";

/** How a service's isolate speaks to the objects. */
export type WireSpeech = "unversioned" | "next";

/**
 * The `PLATFORM_WIRE` of a service, or undefined (today's wire) when unset.
 *
 * @example
 * wireSpeech("next"); // "next"
 */
export function wireSpeech(text: string | undefined): WireSpeech | undefined {
  if (text === undefined || text === "") return undefined;
  if (text === "unversioned" || text === "next") return text;
  throw new Error(`PLATFORM_WIRE must be unversioned or next, not ${JSON.stringify(text)}`);
}

/**
 * `counters` whose `decideText` calls carry the wire version `speech` says.
 *
 * @example
 * const old = speaking(env.COUNTERS, "unversioned"); // decideText(text) with no version
 */
export function speaking(counters: Env["COUNTERS"], speech: WireSpeech): Env["COUNTERS"] {
  const version = speech === "next" ? WIRE_VERSION + 1 : undefined;
  const stub = <S extends object>(target: S): S =>
    new Proxy(target, {
      get(inner, property) {
        const member = Reflect.get(inner, property);
        if (property !== "decideText" || typeof member !== "function") return member;
        const remote = inner as unknown as { decideText(calls: string, version?: number): Promise<string> };
        // Called on the stub itself: an RPC method has no `call` or `apply` of its own (it would be taken for a remote method).
        return (calls: string) => (version === undefined ? remote.decideText(calls) : remote.decideText(calls, version));
      },
    });
  return new Proxy(counters, {
    get(target, property) {
      if (property === "getByName") return (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => stub(target.getByName(name, options));
      if (property === "get") return (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => stub(target.get(id, options));
      const member = Reflect.get(target, property);
      return typeof member === "function" ? member.bind(target) : member;
    },
  });
}
