// rules:check with the token-budget fields (docs/llm.md), run as users run it: the page's own rules
// pass, and bad values of json_body, a json_body cost and cost_from_response are each named at their path.
//   ./node_modules/.bin/node --test test/cli/rules-check-llm.test.mjs
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { repo } from "./wrangler-toml.mjs";

const dir = mkdtempSync(join(tmpdir(), "rules-check-llm-"));

function check(rules) {
  const path = join(dir, "rules.json");
  writeFileSync(path, JSON.stringify(rules, null, 2));
  const run = spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", "tools/rules-check.ts", path], { cwd: repo, encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, path };
}

function docsRules() {
  const page = readFileSync(join(repo, "docs", "llm.md"), "utf8");
  return JSON.parse(/```json\n([\s\S]*?)\n```/.exec(page)[1]);
}

test("the rules of docs/llm.md are valid", () => {
  const { code, stdout, stderr, path } = check(docsRules());
  assert.equal(code, 0, stderr);
  assert.equal(stdout, `${path}: 2 domains, 3 descriptors, 4 limits, 3 routes\n`);
});

test("bad token-budget values: exit 1, each at its path", () => {
  const rules = docsRules();
  rules[0].routes[0].cost.max = "lots";
  rules[0].routes[0].cost.default = -5;
  rules[0].routes[1].cost_from_response = { usage: "openai", tokens: "prompt" };
  rules[0].routes[1].descriptors[1][1].json_body = "a..b";
  rules[1].routes[0].cost_from_response = { json: "usage.", tokens: "total" };
  const { code, stderr } = check(rules);
  assert.equal(code, 1);
  const lines = stderr.trim().split("\n");
  assert.deepEqual(
    lines.slice(0, -1).sort(),
    [
      '$[0].routes[1].cost_from_response.tokens: unknown tokens "prompt" (expected one of: total, input, output)',
      '$[0].routes[1].descriptors[1][1].json_body: "a..b" is not a dotted path: member names separated by single dots, e.g. "usage.total_tokens"',
      "$[0].routes[0].cost.default: must be at least 0, got -5",
      "$[0].routes[0].cost.max: expected an integer, got string",
      '$[1].routes[0].cost_from_response.json: "usage." is not a dotted path: member names separated by single dots, e.g. "usage.total_tokens"',
      '$[1].routes[0].cost_from_response.tokens: only applies beside "usage" (a "json" path names its number itself)',
    ].sort(),
  );
  assert.match(lines.at(-1), /: 6 errors, rules rejected$/);
});
