// The rule advisor's traffic sample (docs/advisor.md, "Sample") under
// `wrangler dev` with the bundled rules.json: traffic driven with a known
// pattern appears in GET /__ratelimit/sample, in order, with its decisions (at the default
// SAMPLE_KEY_RATE: a deployment with few active keys is sampled whole),
// and the client's address and API key only as digests keyed with the deployment's SHARD_KEY.
// Breaks tried: digestValue as the unkeyed SHA-256 of before (src/advisor/digest.ts): "an unkeyed
// digest in the sample", the first test failed; heldPath showing every segment (the raw path, as
// before: src/advisor/route-shape.ts): the route was "GET /search", and the first test failed.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { digestValue } from "../../src/advisor/digest.ts";
import { shardKeyFrom } from "../../src/stored/shard-hash.ts";
import { startDev } from "../browser/dev-server.mjs";

// At least 32 characters, as ADMIN_TOKEN must be.
const TOKEN = "dev-sample-test-token-0123456789abcdef";
const IP = "198.51.100.23";
const KEY = "devsample-SECRETKEY-8842";
const SHARD_KEY = "dev-sample-shard-key-0123456789abcdef";
const SHARD = shardKeyFrom(SHARD_KEY, undefined);

let dev;
before(async () => {
  dev = await startDev({ ADMIN_TOKEN: TOKEN, SHARD_KEY });
});
after(async () => {
  await dev?.stop();
});

const sample = async (query) => {
  const res = await fetch(`${dev.base}/__ratelimit/sample?${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
};

test("traffic with a known pattern appears in GET /__ratelimit/sample", async () => {
  const started = Date.now();
  // `GET /` is limited to 10 a minute per address ("demo"): 14 requests, 10 allowed then 4 refused.
  const statuses = [];
  for (let i = 0; i < 14; i++) statuses.push((await fetch(`${dev.base}/`, { headers: { "cf-connecting-ip": IP, "x-api-key": KEY } })).status);
  assert.deepEqual(statuses, [...Array(10).fill(200), ...Array(4).fill(429)]);
  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${dev.base}/search`, { headers: { "cf-connecting-ip": IP, "x-api-key": KEY } })).status, 200);

  const { status, type, text } = await sample(`domain=api&since=${started}`);
  assert.equal(status, 200);
  assert.equal(type, "application/x-ndjson");
  assert.ok(!text.includes(IP) && !text.includes("SECRETKEY"), "a raw address or key in the sample");
  // Not the unkeyed SHA-256 an address was once reversed from by trying every address (docs/advisor.md, "Values are digests").
  assert.ok(!text.includes(createHash("sha256").update(IP).digest("hex").slice(0, 16)), "an unkeyed digest in the sample");
  const rows = text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const address = await digestValue(IP, SHARD);
  const key = await digestValue(KEY, SHARD);
  const mine = rows.filter((row) => row.descriptors.some((d) => d.entries.some((e) => e.value === address)));
  // `/search` is matched by the catch-all route, which names no segment literally: the sample keeps its digest, never
  // the raw segment (docs/advisor.md, "The export"), the same digest each time.
  const searchRoute = mine[14]?.route;
  assert.match(searchRoute ?? "", /^GET \/~[0-9a-f]{16}$/);
  assert.deepEqual(
    mine.map((row) => `${row.route} ${row.decision}`),
    [...Array(10).fill("GET / allowed"), ...Array(4).fill("GET / refused"), ...Array(3).fill(`${searchRoute} allowed`)],
  );
  for (let i = 1; i < mine.length; i++) assert.ok(mine[i].t >= mine[i - 1].t, "rows out of order");
  assert.ok(mine.every((row) => row.v === 2 && row.domain === "api" && row.cost === 1 && row.t >= started && row.t <= Date.now()));
  // GET /'s descriptors in rule order: path + address ("demo" decided), the address alone, the API key.
  assert.deepEqual(mine[13].descriptors, [
    {
      entries: [
        { key: "path", value: "/" },
        { key: "remote_address", value: address },
      ],
      sampled: true,
      limit: "demo",
      allowed: false,
    },
    { entries: [{ key: "remote_address", value: address }], sampled: true, limit: "per-ip", allowed: true },
    { entries: [{ key: "api_key", value: key }], sampled: true, limit: mine[13].descriptors[2].limit, allowed: mine[13].descriptors[2].allowed },
  ]);

  assert.equal((await sample("domain=nowhere")).status, 400);
  assert.equal((await sample("domain=api&since=soon")).status, 400);
});

// Break tried: sampleRate returning the floor whatever the count (whole-key sampling at 10 %, as the finding saw): 2 of 19 keys.
test("a 19-key deployment is sampled whole at the default SAMPLE_KEY_RATE", async () => {
  const started = Date.now();
  const keys = Array.from({ length: 19 }, (_, i) => `small-deployment-key-${i}`);
  for (let round = 0; round < 2; round++)
    for (const [i, key] of keys.entries()) {
      const res = await fetch(`${dev.base}/search`, { headers: { "cf-connecting-ip": `198.51.100.${100 + i}`, "x-api-key": key } });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
  const { status, text } = await sample(`domain=api&since=${started}`);
  assert.equal(status, 200);
  const rows = text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const perKey = new Map();
  for (const row of rows)
    for (const d of row.descriptors) if (d.entries[0].key === "api_key") perKey.set(d.entries[0].value, (perKey.get(d.entries[0].value) ?? 0) + 1);
  const kept = [];
  for (const key of keys) if (perKey.get(await digestValue(key, SHARD)) === 2) kept.push(key);
  assert.equal(kept.length, 19, `kept ${kept.length} of 19 keys`);
});

// The finding: a proposed domain not in force answered 502 (from the sample export).
// Break tried: postReplay's check of unknown domains removed (src/admin/replay.ts): a 502, and the test failed.
test("a replay that proposes a domain not in force is a 400 naming it", async () => {
  const proposed = JSON.stringify([
    { ...JSON.parse(readFileSync(new URL("../../rules.json", import.meta.url), "utf8")) },
    { domain: "nowhere-else", descriptors: [] },
  ]);
  const res = await fetch(`${dev.base}/__ratelimit/replay`, { method: "POST", body: proposed, headers: { authorization: `Bearer ${TOKEN}` } });
  const body = await res.json();
  assert.equal(res.status, 400, JSON.stringify(body));
  assert.deepEqual(body.domains, ["nowhere-else"]);
  assert.match(body.detail, /not in force, "nowhere-else"/);
});

// The finding: a key a literal gives on one route and a header on another was kept raw, so an API key sent in
// the header reached the export. Run last: it replaces the bundled rules.
// Break tried: formsOf keeping the first route's form (src/advisor/entry-sources.ts): the sk_live key was in the export.
test("a key a literal gives on one route and a header on another is only ever a digest in the sample", async () => {
  const SECRET = `sk_live_${Math.random().toString(16).slice(2)}`;
  const rules = {
    domain: "mix",
    descriptors: [{ key: "api_key", rate_limit: { unit: "minute", requests_per_unit: 100 } }],
    routes: [
      { match: { path: "/public/*" }, descriptors: [[{ key: "api_key", value: "public" }]] },
      { match: { path: "/private/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] },
    ],
  };
  const put = await fetch(`${dev.base}/__ratelimit/rules`, { method: "PUT", body: JSON.stringify(rules), headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(put.status, 200, await put.text());
  const started = Date.now();
  // The isolate picks the uploaded rules up within its poll: send until the sample holds the domain's rows.
  const deadline = Date.now() + 30_000;
  let text = "";
  for (;;) {
    for (const path of ["/public/x", "/private/x"]) {
      const res = await fetch(`${dev.base}${path}`, { headers: { "cf-connecting-ip": IP, "x-api-key": SECRET } });
      await res.arrayBuffer();
    }
    const answer = await sample(`domain=mix&since=${started}`);
    text = answer.status === 200 ? answer.text : "";
    if (text.includes('"route":"GET /private/')) break;
    assert.ok(Date.now() < deadline, `the uploaded rules never applied: ${answer.status} ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.ok(!text.includes(SECRET) && !text.includes("sk_live"), `the API key in the export: ${text}`);
  const values = text
    .trimEnd()
    .split("\n")
    .flatMap((line) => JSON.parse(line).descriptors.flatMap((d) => d.entries.map((e) => e.value)));
  assert.ok(values.includes(await digestValue(SECRET, SHARD)), "the header's key kept as its digest");
});
