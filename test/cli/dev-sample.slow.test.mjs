// The rule advisor's traffic sample (docs/advisor.md, "Sample") under
// `wrangler dev` with the bundled rules.json: traffic driven with a known
// pattern appears in GET /__ratelimit/sample, in order, with its decisions (at the default
// SAMPLE_KEY_RATE: a deployment with few active keys is sampled whole),
// and the client's address and API key only as digests keyed with the deployment's SHARD_KEY.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
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
