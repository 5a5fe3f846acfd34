/**
 * The core of `RateLimiterBinding`, the entrypoint other Workers bind as a
 * service and call as Cloudflare's rate limiting binding
 * (docs/from-cloudflare-binding.md): `limit({ key })` → `{ success }`, the
 * limit and period from the binding's `props`, counted exactly in one
 * CounterObject per key whatever location the caller runs in.
 */
import { admitDescriptors, identifierRequest } from "../admission/index.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import type { Defer } from "../http/defer.ts";
import { countedIdentifier, identifierDomain } from "../limiter/identifier.ts";
import type { CompiledDomain } from "../rules/types.ts";

/** A binding's `props`: Cloudflare's `namespace_id` and `simple = { limit, period }` (or `limit` and `period` beside them). */
export interface BindingProps {
  /** Bindings with the same namespace share counters (with the same limit and period). Default `"default"`. */
  readonly namespace_id?: string | number;
  readonly simple?: { readonly limit: number; readonly period: number };
  readonly limit?: number;
  /** Seconds: any whole number (Cloudflare's binding takes 10 or 60). */
  readonly period?: number;
}

/** The answer, as Cloudflare's binding gives it. */
export interface BindingOutcome {
  readonly success: boolean;
}

const WHAT = "RateLimiterBinding";
const PROPS = ["namespace_id", "simple", "limit", "period"];
const EXAMPLE = 'props = { namespace_id = "1001", simple = { limit = 100, period = 60 } }';
/** Distinct binding configurations whose compiled limits an isolate keeps. */
const MAX_CONFIGURATIONS = 256;

/**
 * Compiled limits per binding configuration, kept per isolate (a Worker's
 * bindings are few and fixed, so this stays small).
 *
 * @example
 * const limits = new BindingLimits();
 * const domain = limits.domainOf({ simple: { limit: 100, period: 60 } });
 */
export class BindingLimits {
  private readonly domains = new Map<string, CompiledDomain>();

  /** The compiled limit of a binding's props; a TypeError naming what is wrong with them. */
  domainOf(props: unknown): CompiledDomain {
    const text = JSON.stringify(props ?? null);
    let domain = this.domains.get(text);
    if (domain === undefined) {
      domain = compileProps(props);
      if (this.domains.size >= MAX_CONFIGURATIONS) this.domains.delete(this.domains.keys().next().value as string);
      this.domains.set(text, domain);
    }
    return domain;
  }
}

function compileProps(props: unknown): CompiledDomain {
  if (typeof props !== "object" || props === null || Object.keys(props).length === 0) {
    throw new TypeError(`${WHAT}: the service binding has no props; give its [[services]] block ${EXAMPLE}`);
  }
  const given = props as BindingProps;
  for (const key of Object.keys(given)) {
    if (!PROPS.includes(key)) throw new TypeError(`${WHAT}: unknown prop "${key}"; the props are ${PROPS.join(", ")} (${EXAMPLE})`);
  }
  if (given.simple !== undefined && (given.limit !== undefined || given.period !== undefined)) {
    throw new TypeError(`${WHAT}: give the limit and period either in "simple" or beside it, not both`);
  }
  const simple = given.simple ?? { limit: given.limit, period: given.period };
  if (typeof simple !== "object" || simple === null) throw new TypeError(`${WHAT}: prop "simple" must be { limit, period }`);
  const limit = whole(simple.limit, "limit");
  const period = whole(simple.period, "period");
  const namespace = given.namespace_id ?? "default";
  if ((typeof namespace !== "string" && typeof namespace !== "number") || String(namespace) === "" || String(namespace).length > 64) {
    throw new TypeError(`${WHAT}: prop "namespace_id" must be a string of 1 to 64 characters, got ${JSON.stringify(namespace)}`);
  }
  return identifierDomain(`binding:${namespace}`, { algorithm: "sliding_window_counter", tokens: limit, windowMs: period * 1000 }, `${WHAT} props`);
}

function whole(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new TypeError(`${WHAT}: prop "${name}" must be a whole number of at least 1, got ${JSON.stringify(value)} (${EXAMPLE})`);
  }
  return value;
}

/**
 * Decide one `limit({ key })` call under `domain` (from BindingLimits).
 * A counter that cannot be reached in time answers by FAILURE_MODE: local
 * (the default) from the isolate's own counter, open `{ success: true }`,
 * closed `{ success: false }`.
 *
 * @example
 * const { success } = await bindingLimit(isolate, limits.domainOf(ctx.props), { key: "user-1" }, defer);
 */
export async function bindingLimit(isolate: Isolate<unknown>, domain: CompiledDomain, options: unknown, defer: Defer): Promise<BindingOutcome> {
  if (typeof options !== "object" || options === null)
    throw new TypeError(`${WHAT}.limit(): expected { key }, got ${options === null ? "null" : typeof options}`);
  for (const name of Object.keys(options)) if (name !== "key") throw new TypeError(`${WHAT}.limit(): unknown option "${name}"; it takes { key }`);
  const key = await countedIdentifier((options as { key?: unknown }).key, `${WHAT}.limit({ key })`);
  const where = () => ({ binding: domain.domain });
  const result = await admitDescriptors(
    isolate,
    identifierRequest(domain, key),
    { cost: 1, timeoutMs: isolate.settings.decisionTimeoutMs, defer, where },
    defer,
  );
  // FAILURE_MODE=local answers the isolate's own decision, open success (reason failure_open), closed a refusal.
  return { success: result.allowed };
}
