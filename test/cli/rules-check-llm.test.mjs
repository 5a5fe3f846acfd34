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

test("more bad token-budget values: an unknown preset, two report sources, a body entry with two sources, a cost without default, each at its path", () => {
  const rules = docsRules();
  rules[0].routes[0].cost_from_response = { usage: "gemini" };
  rules[0].routes[1].cost_from_response = { usage: "openai", json: "a.b" };
  rules[0].routes[1].cost = { json_body: 5, default: 1 };
  rules[0].routes[0].cost = { json_body: "max_tokens" };
  rules[0].routes[0].descriptors[1][1] = { key: "model", json_body: "model", header: "x-model" };
  rules[1].routes[0].cost = { json_body: "max_tokens", default: 10, max: 5, allow_zero: "yes" };
  rules[1].routes[0].cost_from_response = { usge: "openai" };
  const { code, stderr } = check(rules);
  assert.equal(code, 1);
  const lines = stderr.trim().split("\n");
  assert.deepEqual(
    lines.slice(0, -1).sort(),
    [
      '$[0].routes[0].descriptors[1][1]: entry has 2 value sources ("header", "json_body"); set exactly one',
      '$[0].routes[0].cost: missing required key "default" (the cost of a request whose body does not give one)',
      '$[0].routes[0].cost_from_response.usage: unknown usage report "gemini" (expected one of: openai, anthropic)',
      "$[0].routes[1].cost.json_body: expected a string, got number",
      '$[0].routes[1].cost_from_response: set exactly one of "header", "usage" and "json"',
      "$[1].routes[0].cost.allow_zero: expected a boolean, got string",
      '$[1].routes[0].cost.default: must be at most "max" (5), got 10',
      '$[1].routes[0].cost_from_response.usge: unknown key "usge" (did you mean "usage"?)',
      '$[1].routes[0].cost_from_response: set exactly one of "header", "usage" and "json"',
    ].sort(),
  );
  assert.match(lines.at(-1), /: 9 errors, rules rejected$/);
});
