/**
 * A token budget's refunds ride with the key's next request (docs/llm.md,
 * "Costs and limits"; src/isolate/carried-refunds.ts), through the gateway
 * and real counter objects: a streamed answer's refunds on the key's and
 * the (key, model)'s objects go first in the next request's calls to them,
 * which see the tokens given back; no RPC of their own. A refund no request
 * takes is sent alone, so the counters end exact either way.
 * Break tried: carrying turned off (`send` attaching no refunds): the second request saw
 * the model budget before the refund (r=3000, not 3930).
 */
import { describe, expect, it } from "vitest";
import { llmGateway, tokenBudgets } from "../support/llm.ts";

const rules = (domain: string) => [tokenBudgets(domain, { key: 10_000, model: 5_000, max: 2_000 })];

const body = JSON.stringify({ model: "m", max_tokens: 1_000, stream: true, stream_options: { include_usage: true } });

describe("refunds riding with the next request", () => {
  it("the key's next request carries the refunds to both objects, sees them, and no RPC is their own", async () => {
    const domain = `llm-carry-${crypto.randomUUID()}`;
    const llm = llmGateway(rules(domain));
    const key = { "x-api-key": "carry-key" };
    // 30 + 40 = 70 used of 1,000 reserved: 930 back on each budget.
    const first = await llm.open("/llm/v1/chat/completions?in=30&out=40", { body, headers: key });
    expect(await first.response.text()).toContain("[DONE]");
    const rpcs = llm.edge().coalescer.rpcs;
    const second = await llm.open("/llm/v1/chat/completions?in=5&out=5", { body, headers: key });
    // Decided after the refunds: 10,000 − 70 − 1,000 reserved on the key, 5,000 − 70 − 1,000 on the model.
    expect(second.response.headers.get("ratelimit")).toMatch(/"model-tokens";r=3930;.*"key-tokens";r=8930;|"key-tokens";r=8930;.*"model-tokens";r=3930;/);
    await second.response.text();
    await Promise.all([first.settled(), second.settled()]);
    // The second request's two calls, nothing more: the first's refunds rode with them; the second's were sent alone.
    expect(llm.edge().coalescer.rpcs - rpcs).toBe(4);
    expect(await llm.remaining(domain, "api_key=carry-key")).toEqual({ "key-tokens": 10_000 - 80 });
    expect(await llm.remaining(domain, "api_key=carry-key,model=m")).toEqual({ "model-tokens": 5_000 - 80 });
  });
});
