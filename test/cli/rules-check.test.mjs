// The rules:check CLI, run as users run it. Plain Node (node:test), since the
// CLI reads files and cannot run inside workerd:
//   ./node_modules/.bin/node --test test/cli/
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { defaultToml, enableQueues, repo } from "./wrangler-toml.mjs";

const dir = mkdtempSync(join(tmpdir(), "rules-check-"));

function check(args, entry = "tools/rules-check.ts") {
  const run = spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", entry, ...args], { cwd: repo, encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function file(name, content) {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

test("the default rules.json is valid: exit 0 and a one-line summary", () => {
  const { code, stdout, stderr } = check([]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^rules\.json: 1 domain, \d+ descriptors, \d+ limits, \d+ routes\n$/);
  assert.equal(stderr, "");
});

test("a valid file given as argument", () => {
  const path = file("ok.json", [{ domain: "a" }, { domain: "b", descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1 } }] }]);
  const { code, stdout } = check([path]);
  assert.equal(code, 0);
  assert.equal(stdout, `${path}: 2 domains, 1 descriptor, 1 limit, 0 routes\n`);
});

test("an invalid file: exit 1, every error with its path on stderr, then a count", () => {
  const path = file("bad.json", {
    domain: "",
    descriptors: [
      { key: "k", rate_limt: {} },
      { key: "k", rate_limit: { unit: "eon", requests_per_unit: 1 } },
    ],
  });
  const { code, stdout, stderr } = check([path]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    [
      "$.domain: must be a non-empty string",
      '$.descriptors[0].rate_limt: unknown key "rate_limt" (did you mean "rate_limit"?)',
      '$.descriptors[1]: duplicate descriptor: key "k" without a value is already defined at $.descriptors[0]',
      '$.descriptors[1].rate_limit.unit: unknown unit "eon" (expected one of: second, minute, hour, day, week, month, year)',
      `${path}: 4 errors, rules rejected`,
      "",
    ].join("\n"),
  );
});

test("a route path no request is matched in as written: exit 0, a warning naming its canonical form on stderr", () => {
  const path = file("paths.json", [
    {
      domain: "a",
      descriptors: [{ key: "path", value: "/Login/", descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 2 } }] }],
      routes: [
        { match: { methods: ["POST"], path: "/Login/" }, descriptors: [[{ key: "path" }, { key: "remote_address" }]] },
        { match: { path: "//api/./v1;x=*" }, descriptors: [] },
        { match: { path: "/%7euser/%2e%2e/docs" }, descriptors: [] },
        { match: { path: "/a%2fb" }, descriptors: [] },
        { match: { path: "/api/*" }, descriptors: [] },
      ],
    },
    {
      domain: "b",
      paths: { case_sensitive: true },
      routes: [
        { match: { path: "/Login" }, descriptors: [] },
        { match: { path: "/Login/" }, descriptors: [] },
      ],
    },
  ]);
  const { code, stdout, stderr } = check([path]);
  assert.equal(code, 0, stderr);
  assert.equal(stdout, `${path}: 2 domains, 2 descriptors, 1 limit, 7 routes\n`);
  const says = (canonical) => `requests are compared in canonical form; write "${canonical}" to say so`;
  assert.equal(
    stderr,
    [
      `$[0].routes[0].match.path: warning: matched as "/login" (letter case folded, trailing slash dropped): ${says("/login")}`,
      `$[0].routes[1].match.path: warning: matched as "/api/v1" (";" parameters dropped, and the "*" with them, dot segments resolved, repeated slashes merged): ${says("/api/v1")}`,
      `$[0].routes[2].match.path: warning: matched as "/docs" (dot segments resolved, escapes of unreserved characters decoded): ${says("/docs")}`,
      `$[0].routes[3].match.path: warning: matched as "/a/b" (encoded slashes read as "/"): ${says("/a/b")}`,
      '$[0].descriptors[0].value: warning: the built-in "path" key reads canonical paths, so it never gives "/Login/"; write "/login"',
      `$[1].routes[1].match.path: warning: matched as "/Login" (trailing slash dropped): ${says("/Login")}`,
      "",
    ].join("\n"),
  );
});

test("a missing file: exit 1 with a clear message", () => {
  const path = join(dir, "nope.json");
  const { code, stderr } = check([path]);
  assert.equal(code, 1);
  assert.equal(stderr, `${path}: cannot read rules file (no such file)\n`);
});

test("a directory: exit 1", () => {
  const { code, stderr } = check([dir]);
  assert.equal(code, 1);
  assert.equal(stderr, `${dir}: cannot read rules file (it is a directory)\n`);
});

test("bad JSON: exit 1 with line and column", () => {
  const path = file("syntax.json", '{\n  "domain": "api",\n  "descriptors": [ { "key": "a", } ]\n}\n');
  const { code, stderr } = check([path]);
  assert.equal(code, 1);
  assert.equal(stderr, `${path}:3:34: invalid JSON: trailing comma before '}'\n`);
});

test("usage: --help exits 0, two files exit 2", () => {
  assert.equal(check(["--help"]).code, 0);
  assert.equal(check(["a.json", "b.json"]).code, 2);
});

// on_limit "queue" needs the QUEUE producer that the default wrangler.toml leaves commented out.
const queueRules = {
  domain: "q",
  descriptors: [
    { key: "path", value: "/hooks", descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 12, on_limit: "queue" } }] },
    { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 60 } },
  ],
};
const queuePath = "$.descriptors[0].descriptors[0].rate_limit.on_limit";

test("queue limits against the default wrangler.toml (no QUEUE binding): exit 1, the path and the fix on one line", () => {
  const path = file("queue.json", queueRules);
  for (const args of [[path], [path, "--config", join(repo, "wrangler.toml")]]) {
    const { code, stdout, stderr } = check(args);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    const [line, summary, rest] = stderr.split("\n");
    assert.match(
      line,
      /^\$\.descriptors\[0\]\.descriptors\[0\]\.rate_limit\.on_limit: on_limit "queue" needs the QUEUE queue binding, which \S*wrangler\.toml does not have: uncomment the on_limit "queue" block in wrangler\.toml and create the two queues \(npx wrangler queues create floodgate-queued && npx wrangler queues create floodgate-dead-letters\)/,
    );
    assert.ok(line.startsWith(queuePath));
    assert.equal(summary, `${path}: 1 error, rules rejected`);
    assert.equal(rest, "");
  }
});

test("queue limits with the queue block uncommented: valid", () => {
  const path = file("queue-ok.json", queueRules);
  const config = file("wrangler.enabled.toml", enableQueues(defaultToml));
  const { code, stdout, stderr } = check([path, "--config", config]);
  assert.equal(code, 0, stderr);
  assert.equal(stdout, `${path}: 1 domain, 3 descriptors, 2 limits, 0 routes\n`);
});

test("the check reads the TOML itself: a QUEUE binding only in a comment, or on another producer name, does not count", () => {
  const path = file("queue2.json", queueRules);
  const commented = file("commented.toml", 'name = "x"\n# [[queues.producers]]\n# binding = "QUEUE"\n');
  const other = file("other.toml", 'name = "x"\n[[queues.producers]]\nbinding = "QUEUE_2"\nqueue = "q"\n');
  const inline = file("inline.toml", 'name = "x"\nqueues = { producers = [ { binding = "QUEUE", queue = "q" } ] }\n');
  assert.equal(check([path, "--config", commented]).code, 1);
  assert.equal(check([path, "--config", other]).code, 1);
  assert.equal(check([path, "--config", inline]).code, 0);
});

test("--config: a missing or broken file is an error naming it; rules without queue limits never need it", () => {
  const path = file("queue3.json", queueRules);
  const missing = join(dir, "none.toml");
  assert.deepEqual(check([path, "--config", missing]), { code: 1, stdout: "", stderr: `${missing}: cannot read the wrangler configuration (no such file)\n` });
  const broken = file("broken.toml", 'name = "x"\n[[queues.producers]\n');
  const answer = check([path, `--config=${broken}`]);
  assert.equal(answer.code, 1);
  assert.match(answer.stderr, /^.*broken\.toml: cannot read the wrangler configuration \(line 2, column \d+: .+\)\n$/);
  const plain = file("plain.json", { domain: "p" });
  assert.equal(check([plain, "--config", missing]).code, 0);
  assert.equal(check([path, "--config"]).code, 2);
  assert.equal(check([path, "--confg", "x"]).code, 2);
});

test("per-key placement on a client-chosen value, and a rule value written as a long value's stored key: exit 0, a warning each (break: drop valueWarnings from rules-check.ts)", () => {
  const digest = `${"k".repeat(32)}…sha256:${"a".repeat(64)}`;
  const path = file("values.json", {
    domain: "v",
    placement: "per_key",
    descriptors: [
      { key: "api_key", rate_limit: { unit: "minute", requests_per_unit: 2 } },
      { key: "token", value: digest, rate_limit: { unit: "minute", requests_per_unit: 2 } },
      { key: "file", value: "*.png", rate_limit: { unit: "minute", requests_per_unit: 2 } },
      { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 2 } },
    ],
    routes: [
      { match: { path: "/k" }, descriptors: [[{ key: "api_key", header: "x-api-key" }], [{ key: "remote_address" }]] },
      { match: { path: "/t" }, descriptors: [[{ key: "token", cookie: "t" }]] },
    ],
  });
  const { code, stderr } = check([path]);
  assert.equal(code, 0, stderr);
  const lines = stderr.trim().split("\n");
  assert.equal(lines.length, 3, stderr);
  assert.match(lines[0], /^\$\.descriptors\[1\]\.value: warning: is written as the stored key of a long value, but rules match a request's full value/);
  assert.match(
    lines[1],
    /^\$\.routes\[0\]\.descriptors\[0\]\[0\]: warning: placement "per_key" makes one Durable Object per value of header "x-api-key", which the client chooses/,
  );
  assert.match(lines[2], /^\$\.routes\[1\]\.descriptors\[0\]\[0\]: warning: placement "per_key" makes one Durable Object per value of cookie "t"/);
});

test("warns when a client-chosen value of a pattern reaches a limit that replaces another, not for a verified claim or an exact key", () => {
  const tier = (value) => ({
    key: "api_key",
    ...(value === undefined ? {} : { value }),
    rate_limit: { name: "partner", replaces: [{ name: "per-ip" }], unit: "minute", requests_per_unit: 10000 },
  });
  const doc = (node, entry) => ({
    domain: "api",
    jwt: { secret: "JWT_SECRET" },
    descriptors: [{ key: "remote_address", rate_limit: { name: "per-ip", unit: "minute", requests_per_unit: 60 } }, node],
    routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }], [entry]] }],
  });
  // The bundled rules.json before: `X-API-Key: partner-anything` dropped the per-IP limit.
  for (const [what, node, entry, source] of [
    ["a header and a prefix", tier("partner-*"), { key: "api_key", header: "x-api-key" }, 'header "x-api-key" matching "partner-*"'],
    ["a query parameter and any value", tier(undefined), { key: "api_key", query: "key" }, 'query "key" of any value'],
    ["a cookie and a suffix", tier("*-vip"), { key: "api_key", cookie: "k" }, 'cookie "k" matching "*-vip"'],
  ]) {
    const { code, stderr } = check([file("replaces.json", doc(node, entry))]);
    assert.equal(code, 0, what);
    assert.equal(
      stderr,
      `$.descriptors[1].rate_limit.replaces: warning: any client sending ${source} drops "per-ip": the client chooses that value by typing it. ` +
        "Key the tier on a verified claim (jwt_claim) or on exact values you issued, not on a pattern\n",
      what,
    );
  }
  for (const [what, node, entry] of [
    ["a verified claim", tier("partner-*"), { key: "api_key", jwt_claim: "plan" }],
    ["an exact key you issued", tier("k_8f2c0e5a"), { key: "api_key", header: "x-api-key" }],
  ]) {
    const { code, stderr } = check([file("replaces-ok.json", doc(node, entry))]);
    assert.equal(code, 0, what);
    assert.equal(stderr, "", what);
  }
});
