/**
 * The edge's object calls failing as the platform fails them
 * (docs/testing.md, "test:platform"): a share of the calls made through the
 * `COUNTERS` binding throw before they reach the object, each with one of
 * the platform's error shapes. Test-only: the platform suite's entry puts it
 * around the real binding; production code has no fault hook.
 *
 * The share is spread evenly over the isolate's calls, failures first:
 * call n (from 0) fails when ⌈(n + 1) × share⌉ > ⌈n × share⌉, so an
 * isolate's first call fails (the platform does not spare it: an isolate
 * that has never heard from a key's object must decide without it), after
 * n calls exactly ⌈n × share⌉ have failed, and a run is repeatable.
 */
import type { Env } from "../../../src/config.ts";

/**
 * How a failed call fails: the platform's shapes, an unreachable object (no
 * flag); or how its answer goes wrong although the object applied it:
 * `lost` (the object ran the call, its answer was lost on the way back as a
 * reset: `retryable`, so the edge sends it again) and `late` (the object
 * applies it only after the caller's DECISION_TIMEOUT_MS: the platform
 * object's `platformLate`). A plan of `lost` alone loses only answers to
 * batches that carry a refund or a debt payment (an `absorb`), the calls
 * that must take effect once: a repeated decide only refuses sooner.
 */
export type FaultKind = "overloaded" | "retryable" | "unreachable" | "lost" | "late";

const MESSAGES: Record<FaultKind, string> = {
  overloaded: "Durable Object is overloaded. Requests queued for too long.",
  retryable: "Durable Object reset because its code was updated.",
  unreachable: "Network connection lost.",
  lost: "Network connection lost.",
  late: "",
};

/**
 * The error a platform call fails with: an Error with `overloaded` or
 * `retryable` set, as Cloudflare documents; a bare one for an object that cannot be reached.
 *
 * @example
 * platformError("retryable"); // Error("Durable Object reset …") with retryable: true
 */
export function platformError(kind: FaultKind): Error {
  const error = new Error(MESSAGES[kind]);
  if (kind === "lost") return Object.assign(error, { retryable: true });
  return kind === "unreachable" ? error : Object.assign(error, { [kind]: true });
}

/** What the faulty binding saw: object calls made, and those failed per kind. */
export interface FaultTally {
  calls: number;
  failed: Record<FaultKind, number>;
}

/** A share of calls to fail and the kinds they fail with, in turn. */
export interface FaultPlan {
  readonly share: number;
  readonly kinds: readonly FaultKind[];
  /** For `late`: how long after the call the object applies it (the service's DECISION_TIMEOUT_MS and more). */
  readonly lateMs?: number;
}

/** What the platform object offers a `late` call (platform-object.ts). */
interface LateStub {
  platformLate(calls: string, version: number | undefined, delayMs: number): Promise<string>;
}

const KINDS: ReadonlySet<string> = new Set(Object.keys(MESSAGES));

/** A batch (wire text) carrying a call that must take effect once: a refund or a debt payment. */
const ONCE_EFFECTS = /"kind":"(refund|absorb)"/;

/**
 * The plan in `PLATFORM_FAULTS`: `<share>:<kind>[+<kind>…]`, or none when unset.
 *
 * @example
 * faultPlan("0.3:overloaded+retryable"); // { share: 0.3, kinds: ["overloaded", "retryable"] }
 */
export function faultPlan(text: string | undefined, lateMs?: number): FaultPlan | undefined {
  if (text === undefined || text === "") return undefined;
  const [share, kinds = ""] = text.split(":");
  const plan = { share: Number(share), kinds: kinds.split("+") as FaultKind[], lateMs };
  if (!(plan.share >= 0 && plan.share <= 1) || plan.kinds.some((k) => !KINDS.has(k)))
    throw new Error(`PLATFORM_FAULTS must be <share 0..1>:<kind>[+<kind>…] with kinds ${[...KINDS].join(", ")}, not ${JSON.stringify(text)}`);
  return plan;
}

/**
 * `counters` with `plan().share` of its RPC calls failing (kinds taken in
 * turn), every call tallied in `tally` (under a plan of `lost` alone, only
 * the calls it may lose). Ids are made locally, never failed.
 * `plan` is read at each call (the suite may change it: entry.ts). A
 * `late` fault applies only to `decideText` (the others go through).
 *
 * @example
 * const tally = { calls: 0, failed: { overloaded: 0, retryable: 0, unreachable: 0, lost: 0, late: 0 } };
 * const flaky = faultyCounters(env.COUNTERS, () => ({ share: 0.3, kinds: ["overloaded"] }), tally);
 */
export function faultyCounters(counters: Env["COUNTERS"], plan: () => FaultPlan | undefined, tally: FaultTally): Env["COUNTERS"] {
  let failures = 0;
  const failing = <S extends object>(stub: S): S =>
    new Proxy(stub, {
      get(target, property) {
        const member = Reflect.get(target, property);
        if (typeof member !== "function") return member;
        // Called on the stub itself: an RPC method has no `apply` of its own (it would be taken for a remote method).
        const call = (...args: unknown[]) => (target as unknown as Record<PropertyKey, (...a: unknown[]) => Promise<unknown>>)[property](...args);
        return async (...args: unknown[]) => {
          const now = plan();
          if (now?.kinds.every((kind) => kind === "lost") && !(property === "decideText" && ONCE_EFFECTS.test(String(args[0])))) return call(...args);
          const n = tally.calls++;
          if (now === undefined || Math.ceil((n + 1) * now.share) <= Math.ceil(n * now.share)) return call(...args);
          const kind = now.kinds[failures++ % now.kinds.length];
          if (kind === "late" && property !== "decideText") return call(...args);
          tally.failed[kind] += 1;
          if (kind === "late") return (target as unknown as LateStub).platformLate(args[0] as string, args[1] as number | undefined, now.lateMs ?? 2_000);
          // Applied by the object, its answer lost: the edge sees a reset.
          if (kind === "lost") await call(...args);
          throw platformError(kind);
        };
      },
    });
  return new Proxy(counters, {
    get(target, property) {
      if (property === "getByName") return (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => failing(target.getByName(name, options));
      if (property === "get") return (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => failing(target.get(id, options));
      const member = Reflect.get(target, property);
      return typeof member === "function" ? member.bind(target) : member;
    },
  });
}
