/**
 * Token budgets exact through the regional relay (docs/llm.md, "How far a
 * budget can be overrun"; docs/placement.md): requests arrive with
 * `request.cf` from Frankfurt, as in production, so the gateway reads their
 * region and relays what it may. A request limit beside the token budgets
 * is relayed to the region's copy once warm; the token budgets (a usage
 * report settles them, so they are refundable) are decided at their home,
 * where a reservation is taken and its refund given back. 30 concurrent
 * streamed completions over two models: per key and per (key, model), what
 * the admitted requests used never passes the budget, and once every
 * stream has ended each counter holds exactly what they used.
 *
 * Breaks tried: `relayRegion` in src/limiter/plan.ts relaying refundable
 * calls too (the token budgets went to the region's copy, whose settled
 * refunds and charges the home did not see: remaining left short of the
 * exact figure); the refund of a settled stream dropped
 * (src/limiter/reconcile.ts settlementCalls skipping negative deltas:
 * remaining = budget − reserved, not budget − used); the JSON body's
 * forwarded request made without the original's `cf`
 * (src/request/json-body.ts: no region read, nothing relayed).
 */
import { describe, expect, it } from "vitest";
import { WARM_HITS } from "../../src/durable/counters/warm-keys.ts";
import { uniqueIp } from "../support/app.ts";
import { llmGateway } from "../support/llm.ts";
import { recordingCounters } from "../support/recording-counters.ts";

const FRANKFURT = { colo: "FRA", continent: "EU", country: "DE" } as unknown as RequestInit["cf"]; // weur
const KEY_BUDGET = 1500;
const MODEL_BUDGETS: Record<string, number> = { m1: 700, m2: 500 };
const RESERVED = 100;

function llmRules(n: string) {
  const tokens = `llm-relay-tokens-${n}`;
  const requests = `llm-relay-requests-${n}`;
  const keyed = { key: "api_key", header: "x-api-key" };
  return {
    tokens,
    requests,
    rules: [
      {
        domain: tokens,
        descriptors: [
          {
            key: "api_key",
            rate_limit: { name: "key-tokens", unit: "day", requests_per_unit: KEY_BUDGET, algorithm: "fixed_window" },
            descriptors: Object.entries(MODEL_BUDGETS).map(([model, budget]) => ({
              key: "model",
              value: model,
              rate_limit: { name: `${model}-tokens`, unit: "day", requests_per_unit: budget, algorithm: "fixed_window" },
            })),
          },
        ],
        routes: [
          {
            match: { methods: ["POST"], path: "/llm/v1/*" },
            descriptors: [[keyed], [keyed, { key: "model", json_body: "model" }]],
            cost: { json_body: "max_tokens", default: RESERVED, max: RESERVED },
            cost_from_response: { usage: "openai", tokens: "output" },
          },
        ],
      },
      {
        domain: requests,
        descriptors: [{ key: "api_key", rate_limit: { name: "key-requests", unit: "hour", requests_per_unit: 10_000 } }],
        routes: [{ match: { path: "/llm/*" }, descriptors: [[keyed]] }],
      },
    ],
  };
}

const completion = (model: string) => JSON.stringify({ model, max_tokens: RESERVED, stream: true, stream_options: { include_usage: true } });
// 30 completions at once, alternating models, each using 1 to 100 of its 100 reserved tokens (a fixed, varied list).
const burst = Array.from({ length: 30 }, (_, i) => ({ model: i % 2 === 0 ? "m1" : "m2", out: ((i * 37) % 100) + 1 }));

describe("token budgets through the regional relay", () => {
  it("concurrent streamed completions from a region: never past any budget, and exactly the used tokens stay", async () => {
    const { tokens, rules } = llmRules(`${Date.now()}`);
    const { addressed, counters } = recordingCounters();
    const llm = llmGateway(rules, { COUNTERS: counters });
    const key = uniqueIp();
    const headers = { "x-api-key": key };
    const used: Record<string, number> = { m1: 0, m2: 0 };
    // Warm the key in weur (WARM_HITS to the home), so the request limit's calls are relayed from here on.
    for (let i = 0; i <= WARM_HITS; i++) {
      const { response } = await llm.send("/llm/v1/chat/completions?out=5", { headers, body: completion("m1"), cf: FRANKFURT });
      expect(response.status).toBe(200);
      used.m1 += 5;
    }
    const answers = await Promise.all(
      burst.map(({ model, out }) =>
        llm.send(`/llm/v1/chat/completions?in=40&out=${out}`, { headers, body: completion(model), cf: FRANKFURT }).then(({ response, text }) => {
          expect([200, 429]).toContain(response.status);
          if (response.status === 200) {
            expect(text).toContain("[DONE]");
            used[model] += out;
          }
          return response.status;
        }),
      ),
    );
    // The relay was in use: the request limit asked the region's copy.
    expect(addressed.some((a) => a.name.includes("@weur") && a.hint === "weur")).toBe(true);
    // Reservations of 100 fit as long as every budget had room: at least the smallest budget's worth were admitted.
    expect(answers.filter((status) => status === 200).length).toBeGreaterThanOrEqual(MODEL_BUDGETS.m2 / RESERVED);
    for (const [model, budget] of Object.entries(MODEL_BUDGETS)) {
      expect(used[model]).toBeLessThanOrEqual(budget);
      expect(await llm.remaining(tokens, `api_key=${key},model=${model}`)).toEqual({ [`${model}-tokens`]: budget - used[model] });
    }
    expect(used.m1 + used.m2).toBeLessThanOrEqual(KEY_BUDGET);
    expect(await llm.remaining(tokens, `api_key=${key}`)).toEqual({ "key-tokens": KEY_BUDGET - used.m1 - used.m2 });
  });
});
