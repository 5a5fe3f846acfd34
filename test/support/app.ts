/**
 * Test helpers: build the real gateway app over test rules and call it with
 * the real bindings (Durable Objects, storage, fetch) of the test runtime.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { type IsolateOptions, isolateContexts } from "../../src/admission/isolate-context.ts";
import { createApp } from "../../src/gateway/app.ts";
import { countersIn, type Env, readSettings } from "../../src/config.ts";
import { type LabelKey, labelKey } from "../../src/metrics/labels.ts";
import { shardKeyFrom } from "../../src/stored/shard-hash.ts";
import { LiveRules, type LiveRulesOptions } from "../../src/isolate/live-rules.ts";
import { compileOnce } from "../../src/rules/index.ts";
import type { CompiledRules } from "../../src/rules/types.ts";

export const testEnv = env as unknown as Env & { TEST_ORIGIN_URL: string };

/** Compile rules or fail the test with every error. */
export function compiled(rules: unknown): CompiledRules {
  return compileOnce(rules, "the test's rules")();
}

/**
 * A gateway over `rules` (the rules in force until some are uploaded to the
 * RulesObject `options.objectName`); `call` sends one request through it.
 */
export function gateway(rules: unknown, vars: Partial<Env> = {}, options: LiveRulesOptions & IsolateOptions = {}) {
  const rulesCompiled = compiled(rules);
  const { coalesce, now, ...liveOptions } = options;
  const app = createApp(isolateContexts(new LiveRules(() => rulesCompiled, { bundledJson: rules, ...liveOptions }), { coalesce, now }));
  // Without ORIGIN_URL unless a test passes one: the worker's own (vitest.config.ts) is for the queue consumer.
  const callEnv = { ...testEnv, ORIGIN_URL: undefined, ...vars };
  // `base`: the scheme and host the request was sent to (a `.test` name, as under wrangler dev, unless given).
  // `background`: answered without waiting for the request's background work (ctx.waitUntil), handed to it instead.
  return async function call(
    path: string,
    init: RequestInit & { ip?: string | null; base?: string; background?: (work: Promise<void>) => void } = {},
  ): Promise<Response> {
    const { ip, base = "http://gateway.test", background, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (ip !== null && !headers.has("cf-connecting-ip")) headers.set("cf-connecting-ip", ip ?? "192.0.2.1");
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request(`${base}${path}`, { ...rest, headers }), callEnv, ctx);
    if (background !== undefined) background(waitOnExecutionContext(ctx));
    else await waitOnExecutionContext(ctx);
    return response;
  };
}

/** A fresh address per call, so tests never share counters. */
let next = 1;
export function uniqueIp(): string {
  next += 1;
  return `198.51.${(next >> 8) & 255}.${next & 255}`;
}

/**
 * The key a worker over `vars` (on the test env) shows limited values with in
 * its metrics and dashboard: derived as its isolate does, from its shard key
 * (SHARD_KEY, else the counters namespace: docs/deploy.md, "Shard key").
 */
export function workerLabelKey(vars: Partial<Env> = {}): LabelKey {
  const env = { ...testEnv, ...vars };
  const settings = readSettings(env);
  return labelKey(shardKeyFrom(settings.shardKey, countersIn(env.COUNTERS, settings)));
}

/**
 * How many of `n` requests from `ip`, sent one after another through `call`, are allowed (answered 200).
 *
 * @example
 * expect(await allowedOf(gateway(rules), uniqueIp(), 80)).toBe(50);
 */
export async function allowedOf(call: ReturnType<typeof gateway>, ip: string, n: number, path = "/x"): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < n; i++) if ((await call(path, { ip })).status === 200) allowed += 1;
  return allowed;
}
