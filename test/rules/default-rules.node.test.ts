import { describe, expect, it } from "vitest";
import rules from "../../rules.json";
import { applyReplaces, compileRules, matchDescriptor, matchRoute } from "../../src/rules/index.ts";
import type { CompiledDomain, DescriptorEntry, RouteEntry } from "../../src/rules/types.ts";

const result = compileRules(rules);
const domain = (result.ok ? result.rules.domains.get("api") : undefined) as CompiledDomain;

/** What the gateway would derive for a request: route → descriptors → limits, after replaces. */
function policies(method: string, path: string, facts: { ip: string; apiKey?: string; claims?: Record<string, string> }): string[][] {
  const route = matchRoute(domain.routes, { method, path, host: "127.0.0.1" });
  if (!route) return [];
  const value = (e: RouteEntry): string | undefined => {
    const s = e.source;
    if (s.kind === "value") return s.value;
    if (s.kind === "remote_address") return facts.ip;
    if (s.kind === "path") return path;
    if (s.kind === "header" && s.name === "x-api-key") return facts.apiKey;
    if (s.kind === "jwt_claim") return facts.claims?.[s.name];
    return undefined;
  };
  const descriptors = route.descriptors
    .map((d) => d.map((e) => ({ key: e.key, value: value(e) })))
    .filter((d): d is DescriptorEntry[] => d.every((e) => e.value !== undefined));
  return applyReplaces(descriptors.map((d) => matchDescriptor(domain, d))).map((limits) => limits.map((l) => `${l.name} ${l.limit}/${l.windowMs}ms`));
}

describe("the default rules.json", () => {
  it("compiles", () => {
    expect(result.ok ? result.summary : result.errors).toBe("rules.json: 1 domain, 14 descriptors, 11 limits, 5 routes");
  });

  it("points editors at the schema", () => {
    expect(rules.$schema).toBe("./rules.schema.json");
  });

  it("limits GET / per IP to a demo-friendly 10 per minute, on top of 60 per minute", () => {
    expect(policies("GET", "/", { ip: "192.0.2.1" })).toEqual([["demo 10/60000ms"], ["per-ip 60/60000ms"]]);
  });

  it("limits every other path per IP", () => {
    expect(policies("GET", "/anything", { ip: "192.0.2.1" })).toEqual([["per-ip 60/60000ms"]]);
  });

  it("blocks the listed address outright", () => {
    expect(policies("GET", "/x", { ip: "203.0.113.7" })).toEqual([["remote_address=203.0.113.7:0/1s 0/1000ms"]]);
  });

  it("guards POST /login with a token bucket, a daily cap and a cap on failed logins", () => {
    expect(policies("POST", "/login", { ip: "192.0.2.1" })).toEqual([["login-burst 1/1000ms", "login-daily 100/86400000ms", "login-failures 5/900000ms"]]);
    const [burst] = matchDescriptor(domain, [
      { key: "path", value: "/login" },
      { key: "remote_address", value: "x" },
    ])!.limits;
    const [, , failures] = matchDescriptor(domain, [
      { key: "path", value: "/login" },
      { key: "remote_address", value: "x" },
    ])!.limits;
    expect(burst).toMatchObject({ algorithm: "token_bucket", burst: 5 });
    // Only answers 401 and 403 are charged: five wrong passwords in 15 minutes, however many right ones.
    expect(failures).toMatchObject({
      algorithm: "sliding_window_log",
      countWhen: {
        status: [
          [401, 401],
          [403, 403],
        ],
      },
    });
  });

  it("limits API keys, whatever their spelling, on top of the per-IP limit: no key a client can type drops it", () => {
    expect(policies("GET", "/v1", { ip: "192.0.2.1", apiKey: "k1" })).toEqual([["per-ip 60/60000ms"], ["per-key 1000/60000ms"]]);
    expect(policies("GET", "/v1", { ip: "192.0.2.1", apiKey: "partner-acme" })).toEqual([["per-ip 60/60000ms"], ["per-key 1000/60000ms"]]);
  });

  it("gives a verified partner (the plan claim of a token signed with JWT_SECRET) its own limit instead of the per-IP one", () => {
    expect(policies("GET", "/v1", { ip: "192.0.2.1", claims: { plan: "partner", sub: "acme" } })).toEqual([[], ["partner 10000/300000ms"]]);
    expect(policies("GET", "/v1", { ip: "192.0.2.1", claims: { plan: "free", sub: "bob" } })).toEqual([["per-ip 60/60000ms"], []]);
    expect(domain.jwt?.secret).toBe("JWT_SECRET");
  });

  it("shapes /shaped to 2 a second by delaying, and refuses POST /webhooks past 12 a minute", () => {
    expect(policies("GET", "/shaped", { ip: "192.0.2.1" })).toEqual([["shaped 2/1000ms"]]);
    const [shaped] = matchDescriptor(domain, [
      { key: "path", value: "/shaped" },
      { key: "remote_address", value: "x" },
    ])!.limits;
    expect(shaped).toMatchObject({ algorithm: "gcra", burst: 1, onLimit: "delay", maxDelayMs: 2000 });
    expect(policies("POST", "/webhooks", { ip: "192.0.2.1" })).toEqual([["webhooks 12/60000ms"]]);
    const [webhooks] = matchDescriptor(domain, [
      { key: "path", value: "/webhooks" },
      { key: "remote_address", value: "x" },
    ])!.limits;
    // Plain 429s: on_limit "queue" needs the queue bindings, which the default wrangler.toml leaves out.
    expect(webhooks).toMatchObject({ algorithm: "token_bucket", burst: 1, onLimit: "reject" });
    // Other methods on /webhooks fall through to the per-IP limit.
    expect(policies("GET", "/webhooks", { ip: "192.0.2.1" })).toEqual([["per-ip 60/60000ms"]]);
  });

  it("runs the trial limit in shadow mode", () => {
    expect(matchDescriptor(domain, [{ key: "api_key", value: "trial-1" }])?.shadowMode).toBe(true);
  });
});
