/**
 * Helpers for the Envoy decision API and the admin API: a gateway with an
 * ADMIN_TOKEN over test rules, and `/__ratelimit/json` calls in Envoy's shape.
 */
import type { Env } from "../../src/config.ts";
import type { IsolateOptions } from "../../src/admission/isolate-context.ts";
import type { LiveRulesOptions } from "../../src/isolate/live-rules.ts";
import { gateway } from "./app.ts";

export const TOKEN = "test-admin-token-0123456789abcdef";
export const auth = { authorization: `Bearer ${TOKEN}` };

/** One Envoy descriptor from [key, value] pairs. */
export function d(...entries: [string, string][]): { entries: { key: string; value: string }[] } {
  return { entries: entries.map(([key, value]) => ({ key, value })) };
}

export interface JsonAnswer {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

/**
 * A gateway over `rules` with ADMIN_TOKEN set; `json(body)` posts to
 * `/__ratelimit/json`, `admin(path, init)` calls any endpoint with the token.
 */
export function envoyApi(rules: unknown, vars: Partial<Env> = {}, options: LiveRulesOptions & IsolateOptions = {}) {
  const call = gateway(rules, { ADMIN_TOKEN: TOKEN, ...vars }, options);
  async function json(body: unknown): Promise<JsonAnswer> {
    const res = await call("/__ratelimit/json", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text), headers: res.headers };
  }
  async function admin(path: string, init: RequestInit = {}): Promise<Response> {
    return call(path, { ...init, headers: { ...auth, ...(init.headers as Record<string, string> | undefined) } });
  }
  return { call, json, admin };
}
