/**
 * Metrics and the dashboard's traffic count a token budget's tokens as
 * settled, not as reserved (docs/llm.md, "Costs and limits"): a JSON answer
 * that used less than its reservation, a stream that used more, one cut
 * short (its reservation kept), a reservation refused by the model's budget
 * (counted over the limit there, nothing on the key's, whose share was given
 * back), and the policy marked `unit: "tokens"` in GET /__ratelimit/traffic.
 * Against the mock OpenAI API of test/support/llm-origin.mjs.
 */
import { describe, expect, it } from "vitest";
import { uniqueIp } from "../support/app.ts";
import { llmGateway, tokenBudgets } from "../support/llm.ts";

const domain = `metrics-tokens-${Date.now()}`;
const rules = tokenBudgets(domain, { key: 1000, model: 600, max: 500 });

function value(text: string, stat: string, descriptor: string, limit: string): number {
  const series = `ratelimit_service_rate_limit_${stat}{domain="${domain}",descriptor="${descriptor}",limit="${limit}"}`;
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

interface PolicyView {
  domain: string;
  limit: string;
  unit?: string;
  totals: { allowed: number; limited: number };
}

describe("a token budget's metrics", () => {
  it("count the tokens settled after the answer, not those reserved", async () => {
    const llm = llmGateway(rules);
    const headers = { "x-api-key": uniqueIp() };
    const stream = { stream: true, stream_options: { include_usage: true } };
    // Reserved 400, used 30: 370 refunded.
    expect((await llm.send("/llm/v1/chat/completions?in=10&out=20", { headers, body: JSON.stringify({ model: "m", max_tokens: 400 }) })).response.status).toBe(
      200,
    );
    // Reserved 100, used 200: 100 more charged.
    const more = await llm.send("/llm/v1/chat/completions?in=50&out=150", { headers, body: JSON.stringify({ model: "m", max_tokens: 100, ...stream }) });
    expect(more.response.status).toBe(200);
    // Reserved 70, cut short before its usage: the reservation is the charge.
    expect(
      (await llm.send("/llm/v1/chat/completions?mode=early", { headers, body: JSON.stringify({ model: "m", max_tokens: 70, ...stream }) })).response.status,
    ).toBe(200);
    // 300 used of the model's 600: a reservation of 400 does not fit it, so the key's 400 taken at once are given back.
    expect((await llm.send("/llm/v1/chat/completions", { headers, body: JSON.stringify({ model: "m", max_tokens: 400 }) })).response.status).toBe(429);
    expect(await llm.remaining(domain, `api_key=${headers["x-api-key"]}`)).toEqual({ "key-tokens": 1000 - 300 });

    const text = await (await llm.admin("/__ratelimit/metrics")).text();
    expect(value(text, "within_limit", "api_key", "key-tokens")).toBe(30 + 200 + 70);
    expect(value(text, "total_hits", "api_key", "key-tokens")).toBe(300);
    expect(value(text, "over_limit", "api_key", "key-tokens")).toBe(0);
    expect(value(text, "within_limit", "api_key.model", "model-tokens")).toBe(300);
    // Envoy's arithmetic: of the 400 refused, the 100 past the budget are over it (src/metrics/stats.ts).
    expect(value(text, "over_limit", "api_key.model", "model-tokens")).toBe(100);
    expect(value(text, "total_hits", "api_key.model", "model-tokens")).toBe(700);

    const view = await (await llm.admin("/__ratelimit/traffic")).json<{ policies: PolicyView[] }>();
    const mine = view.policies.filter((p) => p.domain === domain);
    const byLimit = Object.fromEntries(mine.map((p) => [p.limit, p]));
    expect(byLimit["key-tokens"]).toMatchObject({ unit: "tokens", totals: { allowed: 300, limited: 0 } });
    expect(byLimit["model-tokens"]).toMatchObject({ unit: "tokens", totals: { allowed: 300, limited: 100 } });
  });

  it("count a request limit beside it in requests, at admission", async () => {
    const requests = `${domain}-requests`;
    const llm = llmGateway([
      rules,
      {
        domain: requests,
        descriptors: [{ key: "api_key", rate_limit: { name: "key-requests", unit: "minute", requests_per_unit: 100 } }],
        routes: [{ match: { path: "/llm/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
      },
    ]);
    const headers = { "x-api-key": uniqueIp() };
    await llm.send("/llm/v1/chat/completions?in=1&out=2", { headers, body: JSON.stringify({ model: "m", max_tokens: 50 }) });
    const view = await (await llm.admin("/__ratelimit/traffic")).json<{ policies: PolicyView[] }>();
    const policy = view.policies.find((p) => p.domain === requests);
    expect(policy?.totals.allowed).toBe(1);
    expect(policy?.unit).toBeUndefined();
  });
});
