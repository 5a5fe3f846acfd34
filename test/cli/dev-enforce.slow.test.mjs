// Gradual enforcement against `wrangler dev` (npm run dev), the "done when":
// enforce_percent 0 forwards everything tagged and counts it; a candidate limit's
// would-be refusals show in metrics (and on the dashboard's JSON) while the live limit
// decides (docs/rules.md, "Gradual and soft enforcement"; docs/metrics.md).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { DEV_TOKEN, startDev, putRules } from "../browser/dev-server.mjs";

// The dev tier's token: with it, this file runs on the tier's shared server.
const TOKEN = DEV_TOKEN;
const auth = { authorization: `Bearer ${TOKEN}` };

const RULES = {
  domain: "enforce",
  descriptors: [
    { key: "trial", rate_limit: { name: "trial", unit: "hour", requests_per_unit: 2, algorithm: "fixed_window", enforce_percent: 0 } },
    {
      key: "user",
      rate_limit: {
        name: "per-user",
        unit: "hour",
        requests_per_unit: 3,
        algorithm: "fixed_window",
        candidate: { name: "per-user-next", unit: "hour", requests_per_unit: 1, algorithm: "fixed_window" },
      },
    },
  ],
  routes: [
    { match: { path: "/trial" }, descriptors: [[{ key: "trial", header: "x-user" }]] },
    { match: { path: "/api/*" }, descriptors: [[{ key: "user", header: "x-user" }]] },
  ],
};

let dev;

before(async () => {
  dev = await startDev({ ADMIN_TOKEN: TOKEN });
  await putRules(dev, TOKEN, RULES);
});

after(async () => {
  await dev?.stop();
});

async function metric(name, labels) {
  const text = await (await fetch(`${dev.base}/__ratelimit/metrics`, { headers: auth })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("gradual enforcement against wrangler dev", { timeout: 240_000 }, () => {
  it("enforce_percent 0 forwards every request over the limit, tagged not-enforced, and counts them", async () => {
    const answers = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${dev.base}/trial`, { headers: { "x-user": "alice" } });
      await res.arrayBuffer();
      answers.push([res.status, res.headers.get("x-ratelimit-decision")]);
    }
    assert.deepEqual(answers, [
      [200, null],
      [200, null],
      [200, "not-enforced"],
      [200, "not-enforced"],
      [200, "not-enforced"],
    ]);
    const labels = 'domain="enforce",descriptor="trial",limit="trial"';
    assert.equal(await metric("ratelimit_service_rate_limit_shadow_mode", labels), 3);
    assert.equal(await metric("floodgate_enforcement_decisions_total", `${labels},decision="not-enforced"`), 3);
  });

  it("a candidate's would-be refusals show in metrics and on the dashboard while the live limit decides", async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${dev.base}/api/x`, { headers: { "x-user": "bob" } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    assert.equal(await metric("floodgate_candidate_refusals_total", 'domain="enforce",descriptor="user",limit="per-user",candidate="per-user-next"'), 4);
    const view = await (await fetch(`${dev.base}/__ratelimit/traffic`, { headers: auth })).json();
    const row = view.candidates.find((c) => c.domain === "enforce");
    assert.equal(row.limit, "per-user");
    assert.equal(row.live_limited, 2);
    assert.equal(row.candidate, "per-user-next");
    assert.equal(row.candidate_would_limit, 4);
  });

  it("docs/rules.md's example is accepted as written and decides (run last: it replaces the rules)", async () => {
    const page = readFileSync(new URL("../../docs/rules.md", import.meta.url), "utf8");
    const section = page.slice(page.indexOf("## Gradual and soft enforcement"));
    const example = JSON.parse(section.slice(section.indexOf("```json") + 7, section.indexOf("```", section.indexOf("```json") + 7)));
    await putRules(dev, TOKEN, example);
    const res = await fetch(`${dev.base}/anything`, { headers: { "x-user": "carol" } });
    await res.arrayBuffer();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-ratelimit-limit"), "100");
    assert.equal(res.headers.get("x-ratelimit-remaining"), "99");
  });
});
