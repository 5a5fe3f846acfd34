/**
 * The bound of docs/llm.md ("How far a budget can be overrun"), held with
 * concurrent streamed completions against the mock OpenAI API: with a
 * reservation that covers what is charged, the admitted requests never
 * spend more than the budget, and once every stream has ended the counter
 * holds exactly what they used (every unused token refunded). Without that
 * cover, the overrun is at most what the admitted requests used beyond
 * their reservations.
 */
import { describe, expect, it } from "vitest";
import { uniqueIp } from "../support/app.ts";
import { llmGateway } from "../support/llm.ts";

const BUDGET = 1000;
const RESERVED = 100;
let n = 0;

function rules(tokens: "output" | "total") {
  n += 1;
  const domain = `llm-accuracy-${tokens}-${n}`;
  return {
    domain,
    rules: {
      domain,
      descriptors: [{ key: "api_key", rate_limit: { name: "tokens", unit: "day", requests_per_unit: BUDGET, algorithm: "fixed_window" } }],
      routes: [
        {
          match: { path: "/llm/v1/*" },
          descriptors: [[{ key: "api_key", header: "x-api-key" }]],
          cost: { json_body: "max_tokens", default: RESERVED, max: RESERVED },
          cost_from_response: { usage: "openai", tokens },
        },
      ],
    },
  };
}

// 30 completions at once, each asking for 100 tokens and using 1 to 100 of them (a fixed, varied list).
const outputs = Array.from({ length: 30 }, (_, i) => ((i * 37) % 100) + 1);
const body = JSON.stringify({ model: "m", max_tokens: RESERVED, stream: true, stream_options: { include_usage: true } });

async function burst(tokens: "output" | "total", input: number) {
  const { domain, rules: doc } = rules(tokens);
  const llm = llmGateway(doc);
  const key = uniqueIp();
  const answers = await Promise.all(
    outputs.map((out) =>
      llm.send(`/llm/v1/chat/completions?in=${input}&out=${out}`, { headers: { "x-api-key": key }, body }).then(({ response }) => response.status),
    ),
  );
  const used = outputs.map((out) => (tokens === "output" ? out : out + input));
  const admitted = answers.flatMap((status, i) => (status === 200 ? [used[i]] : []));
  expect(answers.every((status) => status === 200 || status === 429)).toBe(true);
  const remaining = (await llm.remaining(domain, `api_key=${key}`)).tokens;
  return { admitted, remaining };
}

describe("concurrent streamed completions against a token budget", () => {
  it("charged tokens covered by the reservation: never over the budget, and exactly the used tokens stay", async () => {
    const { admitted, remaining } = await burst("output", 50);
    const spent = admitted.reduce((a, b) => a + b, 0);
    // At least the budget's worth of reservations fit at once.
    expect(admitted.length).toBeGreaterThanOrEqual(BUDGET / RESERVED);
    expect(spent).toBeLessThanOrEqual(BUDGET);
    expect(remaining).toBe(BUDGET - spent);
  });

  it("charged tokens beyond the reservation (input counted): overrun at most their excess, the counter never past the budget", async () => {
    const { admitted, remaining } = await burst("total", 30);
    const spent = admitted.reduce((a, b) => a + b, 0);
    const excess = admitted.reduce((a, b) => a + Math.max(0, b - RESERVED), 0);
    expect(spent).toBeLessThanOrEqual(BUDGET + excess);
    // A charge past the budget empties it and goes no further (docs/response-limits.md): never negative, never less than owed.
    expect(remaining).toBeGreaterThanOrEqual(Math.max(0, BUDGET - spent));
  });
});
