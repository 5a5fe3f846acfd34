/**
 * RateLimiterBinding, called as Cloudflare's rate limiting binding by another
 * Worker over real service bindings (the "binding-caller" Worker of
 * vitest.config.ts, bound to this Worker's entrypoint with props).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const caller = (env as unknown as { BINDING_CALLER: Fetcher }).BINDING_CALLER;
const key = (label: string) => `${label}-${Date.now()}-${Math.random()}`;

async function limit(binding: string, options: unknown): Promise<{ success?: boolean; error?: string }> {
  const response = await caller.fetch("http://caller/", { method: "POST", body: JSON.stringify({ binding, options }) });
  return response.json();
}

describe("RateLimiterBinding over a service binding", () => {
  it("limit({ key }) answers { success } as Cloudflare's binding: 3 per 60 s, then refused", async () => {
    const k = key("path");
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await limit("MY_RATE_LIMITER", { key: k }));
    expect(answers).toEqual([{ success: true }, { success: true }, { success: true }, { success: false }]);
    // Another key has its own count.
    expect(await limit("MY_RATE_LIMITER", { key: key("other") })).toEqual({ success: true });
  });

  it("bindings with the same namespace share counters; another namespace counts apart", async () => {
    const k = key("shared");
    for (let i = 0; i < 2; i++) expect(await limit("MY_RATE_LIMITER", { key: k })).toEqual({ success: true });
    expect(await limit("SAME_NAMESPACE", { key: k })).toEqual({ success: true });
    expect(await limit("SAME_NAMESPACE", { key: k })).toEqual({ success: false });
    expect(await limit("OTHER_NAMESPACE", { key: k })).toEqual({ success: true });
  });

  it("takes any period: one per hour", async () => {
    const k = key("hourly");
    expect(await limit("ONE_PER_HOUR", { key: k })).toEqual({ success: true });
    expect(await limit("ONE_PER_HOUR", { key: k })).toEqual({ success: false });
  });

  it("docs/from-cloudflare-binding.md's calling Worker, unchanged: 100 per minute per path, then its 429", async () => {
    const readmeCaller = (env as unknown as { README_BINDING_CALLER: Fetcher }).README_BINDING_CALLER;
    const path = `/${key("readme")}`;
    const answers: [number, string][] = [];
    for (let i = 0; i < 101; i++) {
      const response = await readmeCaller.fetch(`http://caller${path}`);
      answers.push([response.status, await response.text()]);
    }
    expect(answers.slice(0, 100).every(([status, body]) => status === 200 && body === "Success!")).toBe(true);
    expect(answers[100]).toEqual([429, `429 Failure – rate limit exceeded for ${path}`]);
    // Another path is another key.
    expect((await readmeCaller.fetch(`http://caller/${key("other")}`)).status).toBe(200);
  });

  it("errors name what is wrong: missing props, a bad period, an unknown prop, a key that is not a string", async () => {
    expect((await limit("NO_PROPS", { key: "k" })).error).toMatch(
      /^RateLimiterBinding: the service binding has no props; give its \[\[services\]\] block props = /,
    );
    expect((await limit("BAD_PERIOD", { key: "k" })).error).toMatch(/prop "period" must be a whole number of at least 1, got 1.5/);
    expect((await limit("UNKNOWN_PROP", { key: "k" })).error).toMatch(/unknown prop "algorithm"/);
    expect((await limit("MY_RATE_LIMITER", { key: 42 })).error).toBe("RateLimiterBinding.limit({ key }): the identifier must be a string, got number");
    expect((await limit("MY_RATE_LIMITER", { key: "k", cost: 2 })).error).toMatch(/unknown option "cost"; it takes \{ key \}/);
  });
});
