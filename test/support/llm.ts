/**
 * The gateway in front of the mock LLM API (test/support/llm-origin.mjs,
 * served under /llm/ by the test origin): a request's answer read to its
 * end before its background work is awaited, so the usage it reported is
 * settled; counters read through the admin API.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { isolateContexts } from "../../src/admission/isolate-context.ts";
import type { Env } from "../../src/config.ts";
import { createApp } from "../../src/gateway/app.ts";
import { LiveRules } from "../../src/isolate/live-rules.ts";
import { compiled, testEnv } from "./app.ts";

const ADMIN_TOKEN = "llm-tests-admin-token-0123456789abcdef";

/** One request as sent: its body bytes and headers. */
export interface LlmInit {
  readonly body?: string | Uint8Array | ReadableStream<Uint8Array>;
  readonly headers?: Record<string, string>;
  readonly method?: string;
  /** `request.cf`, as the edge sets it (where the request arrived: docs/placement.md). */
  readonly cf?: RequestInit["cf"];
}

/**
 * A gateway over `rules` forwarding to the test origin.
 *
 * @example
 * const llm = llmGateway(rules);
 * const { response, text } = await llm.send("/llm/v1/chat/completions?in=5&out=7", { body: JSON.stringify({ model: "m" }) });
 */
export function llmGateway(rules: unknown, vars: Partial<Env> = {}) {
  const rulesCompiled = compiled(rules);
  const isolateOf = isolateContexts(new LiveRules(() => rulesCompiled, { bundledJson: rules }));
  const app = createApp(isolateOf);
  const env = { ...testEnv, ORIGIN_URL: testEnv.TEST_ORIGIN_URL, ADMIN_TOKEN, ...vars };
  const request = (path: string, init: LlmInit) =>
    new Request(`http://gateway.test${path}`, {
      method: init.method ?? "POST",
      headers: { "cf-connecting-ip": "192.0.2.1", "content-type": "application/json", ...init.headers },
      body: init.body,
      ...(init.body instanceof ReadableStream ? { duplex: "half" } : {}),
      ...(init.cf !== undefined ? { cf: init.cf } : {}),
    } as RequestInit);
  return {
    /** The gateway's isolate's edge (its RPCs: `edge().coalescer.rpcs`). */
    edge: () => isolateOf(env).edge,
    /** Send, read the whole answer, then wait for the request's background work (its settlement). */
    async send(path: string, init: LlmInit = {}): Promise<{ response: Response; text: string }> {
      const ctx = createExecutionContext();
      const response = await app.fetch(request(path, init), env, ctx);
      const text = await response.text();
      await waitOnExecutionContext(ctx);
      return { response, text };
    },
    /** Send and hand the answer back unread; `settled` waits for its background work once the test is done with it. */
    async open(path: string, init: LlmInit = {}): Promise<{ response: Response; settled: () => Promise<void> }> {
      const ctx = createExecutionContext();
      const response = await app.fetch(request(path, init), env, ctx);
      return { response, settled: () => waitOnExecutionContext(ctx) };
    },
    /** GET an admin endpoint (`/__ratelimit/metrics`, `/__ratelimit/traffic`) with the token. */
    async admin(path: string): Promise<Response> {
      const ctx = createExecutionContext();
      const response = await app.fetch(new Request(`http://gateway.test${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }), env, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    },
    /** The `remaining` of every window of `descriptor` (`k=v,k2=v2`) in `domain`, by limit name. */
    async remaining(domain: string, descriptor: string): Promise<Record<string, number>> {
      const ctx = createExecutionContext();
      const query = `domain=${encodeURIComponent(domain)}&descriptor=${descriptor}`;
      const response = await app.fetch(
        new Request(`http://gateway.test/__ratelimit/counters?${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
        env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      if (response.status !== 200) throw new Error(`counters answered ${response.status}: ${await response.text()}`);
      const body = await response.json<{ limits: { name: string; remaining: number }[] }>();
      return Object.fromEntries(body.limits.map((limit) => [limit.name, limit.remaining]));
    },
  };
}

/**
 * Rules of one token-budget domain, as docs/llm.md sets one up: `key-tokens`
 * per API key (`x-api-key`) and `model-tokens` per (key, model from the body),
 * a day each, fixed windows; `POST /llm/v1/*` reserves the body's `max_tokens`
 * (100 when absent, at most `max`) and charges the OpenAI usage the answer reports.
 *
 * @example
 * const llm = llmGateway([tokenBudgets("d", { key: 1000, model: 600, max: 500 })]);
 */
export function tokenBudgets(domain: string, budgets: { key: number; model: number; max: number }) {
  const keyed = { key: "api_key", header: "x-api-key" };
  return {
    domain,
    descriptors: [
      {
        key: "api_key",
        rate_limit: { name: "key-tokens", unit: "day", requests_per_unit: budgets.key, algorithm: "fixed_window" },
        descriptors: [{ key: "model", rate_limit: { name: "model-tokens", unit: "day", requests_per_unit: budgets.model, algorithm: "fixed_window" } }],
      },
    ],
    routes: [
      {
        match: { methods: ["POST"], path: "/llm/v1/*" },
        descriptors: [[keyed], [keyed, { key: "model", json_body: "model" }]],
        cost: { json_body: "max_tokens", default: 100, max: budgets.max },
        cost_from_response: { usage: "openai" },
      },
    ],
  };
}

/** The SHA-256 of `bytes` in hex, as the mock origin reports what it received. */
export async function sha256(bytes: string | Uint8Array): Promise<string> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The mock origin's progress on a stalled stream: how many events it has sent. */
export async function originSent(tag: string): Promise<number> {
  const response = await fetch(`${testEnv.TEST_ORIGIN_URL}/__llm/state?tag=${encodeURIComponent(tag)}`);
  return (await response.json<{ sent: number }>()).sent;
}

/** Let a stalled stream of the mock origin go on. */
export async function releaseOrigin(tag: string): Promise<void> {
  await fetch(`${testEnv.TEST_ORIGIN_URL}/__llm/release?tag=${encodeURIComponent(tag)}`, { method: "POST" });
}
