// @ts-nocheck
// The rules:import CLI (Envoy YAML → floodgate rules), run as users run it.
// The example outputs are the JSON fixtures the workerd tests decide with
// (test/envoy/examples.test.ts), so this ties YAML to behaviour.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const fixtures = "test/fixtures/envoy";
const dir = mkdtempSync(join(tmpdir(), "rules-import-"));

function run(entry, args) {
  const result = spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", entry, ...args], { cwd: repo, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
const importYaml = (...files) => run("tools/rules-import.ts", files);

function file(name, content) {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const examples = readdirSync(join(repo, fixtures))
  .filter((f) => /^example.*\.yaml$/.test(f))
  .sort();

test("the fixtures hold Envoy's README examples 1 to 9 and 11, and its quota_mode example", () => {
  assert.deepEqual(
    examples.map((f) => f.replace(/^example-?(\d+|[a-z]+).*$/, "$1")).filter((v, i, a) => a.indexOf(v) === i),
    ["quota", "1", "11", "2", "3", "4", "5", "6", "7", "8", "9"],
  );
});

test("quota_mode and share_threshold survive the import (false ones are dropped as Envoy's default)", () => {
  const quota = JSON.parse(importYaml(join(fixtures, "example-quota.yaml")).stdout);
  assert.deepEqual(
    quota.descriptors.map((d) => d.quota_mode),
    [true, true, undefined],
  );
  const shared = JSON.parse(importYaml(join(fixtures, "example11.yaml")).stdout);
  assert.deepEqual(
    shared.descriptors.map((d) => d.share_threshold),
    [true, undefined],
  );
});

for (const example of examples) {
  test(`${example} converts to rules that rules:check accepts`, () => {
    const { code, stdout, stderr } = importYaml(join(fixtures, example));
    assert.equal(code, 0, stderr);
    assert.equal(stderr, "");
    const golden = join(fixtures, example.replace(/\.yaml$/, ".json"));
    assert.equal(stdout, readFileSync(join(repo, golden), "utf8"), `${golden} is stale: regenerate it with npm run rules:import`);
    const out = file(example.replace(/\.yaml$/, ".json"), stdout);
    const check = run("tools/rules-check.ts", [out]);
    assert.equal(check.code, 0, check.stderr);
  });
}

test("pins fixed_window (Envoy's algorithm) on every counting limit, not on unlimited ones", () => {
  const rules = JSON.parse(importYaml(join(fixtures, "example5.yaml")).stdout);
  assert.deepEqual(
    rules.descriptors.map((d) => d.rate_limit),
    [{ unlimited: true }, { unit: "minute", requests_per_unit: 100, algorithm: "fixed_window" }],
  );
});

test("several files become an array of domain documents, which rules:check accepts", () => {
  const { code, stdout, stderr } = importYaml(join(fixtures, "example1.yaml"), join(fixtures, "example2.yaml"));
  assert.equal(code, 0, stderr);
  const rules = JSON.parse(stdout);
  assert.deepEqual(
    rules.map((r) => r.domain),
    ["mongo_cps", "messaging"],
  );
  assert.equal(run("tools/rules-check.ts", [file("two.json", stdout)]).code, 0);
});

test("YAML numbers and booleans used as keys, values and names become strings with their source text", () => {
  const path = file(
    "scalars.yaml",
    [
      "domain: 2024",
      "descriptors:",
      "  - key: 123",
      "    value: 0.10",
      "    rate_limit: { unit: SECOND, requests_per_unit: 5, name: 42 }",
      "  - key: flag",
      "    value: true",
      "",
    ].join("\n"),
  );
  const { code, stdout, stderr } = importYaml(path);
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout), {
    domain: "2024",
    descriptors: [
      { key: "123", value: "0.10", rate_limit: { unit: "second", requests_per_unit: 5, name: "42", algorithm: "fixed_window" } },
      { key: "flag", value: "true" },
    ],
  });
});

test("Envoy-only options that shape only metrics or metadata are dropped with a warning", () => {
  const path = file(
    "metadata.yaml",
    [
      "domain: d",
      "descriptors:",
      "  - key: k",
      "    value_to_metric: true",
      "    metadata: { name: service_1 }",
      "    share_threshold: false",
      "    rate_limit: { unit: minute }",
      "",
    ].join("\n"),
  );
  const { code, stdout, stderr } = importYaml(path);
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout).descriptors[0], { key: "k", rate_limit: { unit: "minute", requests_per_unit: 0, algorithm: "fixed_window" } });
  assert.match(stderr, /\$\.descriptors\[0\]\.value_to_metric: warning: dropped/);
  assert.match(stderr, /\$\.descriptors\[0\]\.metadata: warning: dropped/);
  assert.match(stderr, /\$\.descriptors\[0\]\.rate_limit\.requests_per_unit: warning: missing: Envoy reads it as 0/);
});

// Every invalid config of envoyproxy/ratelimit's test/config, rewritten, with the message floodgate gives.
const invalid = {
  "bad_limit_unit.yaml": '$.descriptors[0].rate_limit.unit: unknown unit "fortnight" (expected one of: second, minute, hour, day, week, month, year)',
  "bad_yaml.yaml": "$: invalid YAML at line 2, column 1: Missing closing 'quote",
  "duplicate_key.yaml": '$.descriptors[1]: duplicate descriptor: key "key1" with value "value1" is already defined at $.descriptors[0]',
  "empty_domain.yaml": '$: missing required key "domain"',
  "empty_key.yaml": '$.descriptors[0]: missing required key "key"',
  "misspelled_key.yaml": '$.descriptors[0].ratelimit: unknown key "ratelimit" (did you mean "rate_limit"?)',
  "misspelled_key2.yaml": '$.descriptors[0].rate_limit.requestsperunit: unknown key "requestsperunit" (did you mean "requests_per_unit"?)',
  "non_map_list.yaml": "$.descriptors[0]: expected an object, got string",
  "non_string_key.yaml": '$: key "0.5" is not a string (a number); quote it',
  "replaces_empty.yaml": "$.descriptors[0].rate_limit.replaces[0].name: must be a non-empty string",
  "replaces_self.yaml": '$.descriptors[0].rate_limit.replaces[0].name: a rate limit cannot replace itself ("mine")',
  "unlimited_with_unit.yaml": '$.descriptors[0].rate_limit.unit: "unit" must not be set when "unlimited" is true',
  "share_threshold.yaml": '$.descriptors[0].share_threshold: only applies to a wildcard value (containing "*") or an address range; "files" matches one value',
};

for (const [name, message] of Object.entries(invalid)) {
  test(`rejects ${name} with a clear message and writes nothing`, () => {
    const path = join(fixtures, "invalid", name);
    const { code, stdout, stderr } = importYaml(path);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.ok(stderr.split("\n").includes(`${path}: ${message}`), stderr);
    assert.match(stderr, /errors?, nothing written\n$/);
  });
}

test("rejects the same domain in two files, as Envoy does without MERGE_DOMAIN_CONFIG", () => {
  const a = join(fixtures, "invalid", "duplicate_domain_a.yaml");
  const b = join(fixtures, "invalid", "duplicate_domain_b.yaml");
  const { code, stdout, stderr } = importYaml(a, b);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.match(stderr, new RegExp(`^${b.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: \\$\\.domain: duplicate domain "test-domain" \\(already defined in `));
});

test("a missing file, no arguments, --help", () => {
  const missing = importYaml(join(dir, "nope.yaml"));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read file \(no such file\)/);
  assert.equal(importYaml().code, 2);
  assert.equal(importYaml("--help").code, 0);
});
