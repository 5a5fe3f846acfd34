/**
 * Golden tests of every stored format (docs/stored-formats.md): fixed
 * inputs give exactly the stored strings, ids, names, hashes, SQL text and
 * JSON they gave when the format was fixed. A failure here means a deploy
 * would change what an older deploy's isolates, objects or messages hold:
 * follow docs/stored-formats.md ("Changing a format") rather than update
 * the golden value.
 *
 * Breaks tried, each seen to fail here: `counterKey` joining its parts with
 * "/" instead of JSON; `limitId` with "-" between fields; the region
 * separator "#"; one HalfSipHash round less; `WITHOUT ROWID` dropped from the
 * counters table; `toWire` writing `retryAfterMs: null` for Infinity.
 */
import { describe, expect, it } from "vitest";
import { compileRules } from "../../src/rules/compile.ts";
import { longValueKey } from "../../src/rules/match/long-values.ts";
import {
  CONCURRENCY_ID,
  COUNT_WHEN_SUFFIX,
  COUNTER_IDS_VERSION,
  counterKey,
  IDENTIFIER_KEY,
  limitId,
  STORAGE_ID_SEPARATOR,
  storageId,
} from "../../src/stored/counter-ids.ts";
import { BLOCK_TABLES, COUNTER_TABLES, COUNTER_TABLES_VERSION, SLOT_TABLES } from "../../src/stored/counter-tables.ts";
import { inRegion, OBJECT_NAMES_VERSION, objectName, REGION_SEPARATOR } from "../../src/stored/object-names.ts";
import { asQueuedMessage, QUEUE_MESSAGE_VERSION, type QueuedMessage } from "../../src/stored/queue-message.ts";
import { BACKLOG_TABLE, QUEUE_TABLES_VERSION, STATUS_TABLE } from "../../src/stored/queue-tables.ts";
import { OVERRIDE_TABLES, OVERRIDES_VERSION } from "../../src/stored/override-tables.ts";
import { RULES_CHUNK, RULES_TABLES, RULES_TABLES_VERSION } from "../../src/stored/rules-tables.ts";
import { halfSipHash, SHARD_HASH_VERSION, shardKeyFrom } from "../../src/stored/shard-hash.ts";
import {
  METRICS_TABLES_VERSION,
  SAMPLES_SEEN_AT_COLUMN,
  SAMPLES_TABLE,
  SENDS_PER_FOLD,
  SENDS_TABLES,
  TRAFFIC_TABLES,
} from "../../src/stored/metrics-tables.ts";
import type { CounterCall, CounterVerdict } from "../../src/stored/wire-calls.ts";
import { fromWire, OLDEST_WIRE_VERSION, toWire, WIRE_VERSION } from "../../src/stored/wire.ts";

describe("every format's version", () => {
  it("is the one this suite's golden values belong to", () => {
    expect({
      COUNTER_IDS_VERSION,
      OBJECT_NAMES_VERSION,
      SHARD_HASH_VERSION,
      COUNTER_TABLES_VERSION,
      QUEUE_TABLES_VERSION,
      METRICS_TABLES_VERSION,
      RULES_TABLES_VERSION,
      QUEUE_MESSAGE_VERSION,
      WIRE_VERSION,
      OLDEST_WIRE_VERSION,
    }).toEqual({
      COUNTER_IDS_VERSION: 1,
      OBJECT_NAMES_VERSION: 1,
      SHARD_HASH_VERSION: 1,
      COUNTER_TABLES_VERSION: 3,
      QUEUE_TABLES_VERSION: 1,
      METRICS_TABLES_VERSION: 1,
      RULES_TABLES_VERSION: 1,
      QUEUE_MESSAGE_VERSION: 1,
      WIRE_VERSION: 1,
      OLDEST_WIRE_VERSION: 1,
    });
  });
});

describe("counter ids (src/stored/counter-ids.ts)", () => {
  it("names limits by algorithm code, limit, window and burst", () => {
    expect(
      (["token_bucket", "leaky_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "gcra"] as const).map((a) =>
        limitId(a, 60, 60_000, 90),
      ),
    ).toEqual(["tb:60:60000:90", "lb:60:60000:90", "fw:60:60000:90", "swl:60:60000:90", "swc:60:60000:90", "gcra:60:60000:90"]);
    expect([COUNT_WHEN_SUFFIX, CONCURRENCY_ID, IDENTIFIER_KEY, STORAGE_ID_SEPARATOR]).toEqual([":cw", "concurrency", "identifier", "\u0001"]);
  });

  it("gives compiled rules exactly these ids (count_when and concurrency included)", () => {
    const result = compileRules({
      domain: "golden",
      descriptors: [
        { key: "a", rate_limit: { unit: "minute", requests_per_unit: 10 } },
        { key: "b", rate_limit: { unit: "hour", unit_multiplier: 2, requests_per_unit: 5, algorithm: "token_bucket", burst: 7 } },
        { key: "c", rate_limit: { unit: "second", requests_per_unit: 3, count_when: { status: ["5xx"] } } },
        { key: "d", rate_limit: { concurrency: 4 } },
      ],
    });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    // Every compiled limit's id, wherever the compiled tree keeps it.
    const ids = new Set<string>();
    const seen = new Set<unknown>();
    const walk = (value: unknown): void => {
      if (typeof value !== "object" || value === null || seen.has(value)) return;
      seen.add(value);
      const record = value as Record<string, unknown>;
      if (typeof record.id === "string" && typeof record.name === "string" && typeof record.limit === "number") ids.add(record.id);
      for (const child of value instanceof Map ? value.values() : Object.values(record)) walk(child);
    };
    walk(result.rules.domains.get("golden"));
    expect([...ids].sort()).toEqual(["concurrency", "swc:10:60000:10", "swc:3:1000:3:cw", "tb:5:7200000:7"]);
  });

  it("keys counters by JSON text, whatever the values hold, and stores windows under key U+0001 limit id", () => {
    const entries = [
      { key: "remote_address", value: "203.0.113.7" },
      { key: "path", value: '/a,b=c:d/"e"\u0000' },
    ];
    expect(counterKey("api", entries)).toBe('["api",["remote_address","203.0.113.7","path","/a,b=c:d/\\"e\\"\\u0000"]]');
    expect(counterKey("api", [])).toBe('["api",[]]');
    expect(storageId('["api",["user","u1"]]', "fw:10:60000:10")).toBe('["api",["user","u1"]]\u0001fw:10:60000:10');
  });

  it("keys a value too long to keep whole by its first 32 characters and its SHA-256", async () => {
    expect(await longValueKey("k".repeat(1000))).toBe(`${"k".repeat(32)}…sha256:27fed049cf80e0eff71ab837c82a50327b7677ebda22305d3f353f0989488669`);
  });
});

describe("object names and the shard hash (src/stored/object-names.ts, shard-hash.ts)", () => {
  const key = { k0: 0x03020100, k1: 0x07060504 };

  it("HalfSipHash-2-4 gives the reference vectors and these values", () => {
    // The reference implementation's 32-bit vectors for messages 00, 00 01, … under the key 00 01 … 07.
    expect(halfSipHash(key, "")).toBe(0x5b9f35a9);
    expect(["a", "ab", "abc", '["api",["user","u1"]]', "\u{1F600}"].map((t) => halfSipHash(key, t))).toEqual([
      0x546e0e00, 0xe7acbb32, 0xce415cc4, 0xd73633cf, 0xeedfd97b,
    ]);
  });

  it("stretches a secret, or the namespace's id of a fixed name, into the same key on every deploy", () => {
    const ids: string[] = [];
    const namespace = {
      idFromName: (name: string) => {
        ids.push(name);
        return { toString: () => "0123abcd" };
      },
    };
    expect(shardKeyFrom("a secret of the deployment", namespace)).toEqual({ k0: 2966966692, k1: 3549456715 });
    expect(shardKeyFrom(undefined, namespace)).toEqual({ k0: 3067808885, k1: 3517808933 });
    expect(ids).toEqual(["floodgate/shard-key"]);
  });

  it("names objects per shard, per key and per region", () => {
    const counter = '["api",["user","u1"]]';
    expect(objectName("api", "sharded", 64, counter, key)).toBe("api/shard/15");
    expect(objectName("api", "sharded", 1, counter, key)).toBe("api/shard/0");
    expect(objectName("api", "per_key", 64, counter, key)).toBe('api/key/["api",["user","u1"]]');
    expect(REGION_SEPARATOR).toBe("@");
    expect(inRegion("api/shard/17", "weur")).toBe("api/shard/17@weur");
    expect(inRegion(counter, "local")).toBe('["api",["user","u1"]]@local');
  });
});

describe("SQLite tables (src/stored/*-tables.ts)", () => {
  it("are created by exactly these statements", () => {
    expect([
      ...COUNTER_TABLES,
      ...SLOT_TABLES,
      ...BLOCK_TABLES,
      BACKLOG_TABLE,
      STATUS_TABLE,
      SAMPLES_TABLE,
      SAMPLES_SEEN_AT_COLUMN,
      ...TRAFFIC_TABLES,
      ...RULES_TABLES,
    ]).toEqual([
      "CREATE TABLE IF NOT EXISTS counters (id TEXT PRIMARY KEY, state TEXT NOT NULL, idle_at INTEGER NOT NULL) WITHOUT ROWID",
      "CREATE INDEX IF NOT EXISTS counters_idle_at ON counters (idle_at)",
      "CREATE TABLE IF NOT EXISTS unwritten (part INTEGER PRIMARY KEY, body TEXT NOT NULL)",
      "CREATE TABLE IF NOT EXISTS journal (part INTEGER PRIMARY KEY, body TEXT NOT NULL)",
      "CREATE TABLE IF NOT EXISTS slots (id TEXT NOT NULL, holder TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (id, holder))",
      // Version 2: penalty blocks, a table of their own (the version 1 tables unchanged).
      "CREATE TABLE IF NOT EXISTS blocks (id TEXT PRIMARY KEY, until INTEGER NOT NULL, length_ms INTEGER NOT NULL) WITHOUT ROWID",
      "CREATE TABLE IF NOT EXISTS backlog (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)",
      "CREATE TABLE IF NOT EXISTS status (id TEXT PRIMARY KEY, record TEXT NOT NULL)",
      "CREATE TABLE IF NOT EXISTS samples (id TEXT PRIMARY KEY, name TEXT NOT NULL, labels TEXT NOT NULL, value REAL NOT NULL, seen_at INTEGER NOT NULL DEFAULT 0)",
      "ALTER TABLE samples ADD COLUMN seen_at INTEGER NOT NULL DEFAULT 0",
      "CREATE TABLE IF NOT EXISTS traffic_policies (id TEXT PRIMARY KEY, ref TEXT NOT NULL)",
      "CREATE TABLE IF NOT EXISTS traffic_buckets (policy TEXT, slot INTEGER, bucket INTEGER, counts TEXT, PRIMARY KEY (policy, slot))",
      "CREATE TABLE IF NOT EXISTS traffic_sketches (policy TEXT, span TEXT, slot INTEGER, period INTEGER, data TEXT, PRIMARY KEY (policy, span, slot))",
      "CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY CHECK (id = 0), version INTEGER NOT NULL, source TEXT NOT NULL, updated_at TEXT NOT NULL)",
      "CREATE TABLE IF NOT EXISTS chunks (seq INTEGER PRIMARY KEY, text TEXT NOT NULL)",
    ]);
    expect(RULES_CHUNK).toBe(500_000);
  });

  it("log a MetricsObject's sends with exactly these statements, in this many slots (added later, beside the tables above)", () => {
    expect(SENDS_TABLES).toEqual([
      "CREATE TABLE IF NOT EXISTS sends (slot INTEGER PRIMARY KEY, seq INTEGER NOT NULL, at INTEGER NOT NULL, samples TEXT NOT NULL, traffic TEXT)",
      "CREATE TABLE IF NOT EXISTS sends_folded (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL)",
    ]);
    expect(SENDS_PER_FOLD).toBe(64);
  });

  it("keep overrides in the RulesObject with exactly these statements (added later, beside the rules' tables)", () => {
    expect(OVERRIDES_VERSION).toBe(1);
    expect(OVERRIDE_TABLES).toEqual([
      "CREATE TABLE IF NOT EXISTS overrides_head (id INTEGER PRIMARY KEY CHECK (id = 0), version INTEGER NOT NULL)",
      "CREATE TABLE IF NOT EXISTS overrides (domain TEXT NOT NULL, descriptor TEXT NOT NULL, rate_limit TEXT NOT NULL, expires_at TEXT, note TEXT, updated_at TEXT NOT NULL, PRIMARY KEY (domain, descriptor))",
    ]);
  });
});

describe("queue messages (src/stored/queue-message.ts)", () => {
  const message: QueuedMessage = {
    v: 1,
    id: "00000000-0000-4000-8000-000000000000",
    queuedAt: 1_700_000_000_000,
    request: { method: "POST", path: "/api/x?y=1", target: "https://origin.test/api/x?y=1", headers: [["content-type", "text/plain"]], body: "aGk=" },
    pace: [
      {
        object: "api/shard/3",
        call: {
          key: '["api",["user","u1"]]',
          cost: 1,
          limits: [{ id: "tb:1:1000:5", algorithm: "token_bucket", limit: 1, windowMs: 1000, burst: 5, reserve: true }],
        },
      },
    ],
    expiresAt: 1_700_000_600_000,
    backlog: ['queue/["api",["user","u1"]]'],
    credentials: { iv: "aXY=", data: "ZGF0YQ==" },
  };
  const golden =
    '{"v":1,"id":"00000000-0000-4000-8000-000000000000","queuedAt":1700000000000,"request":{"method":"POST","path":"/api/x?y=1","target":"https://origin.test/api/x?y=1","headers":[["content-type","text/plain"]],"body":"aGk="},"pace":[{"object":"api/shard/3","call":{"key":"[\\"api\\",[\\"user\\",\\"u1\\"]]","cost":1,"limits":[{"id":"tb:1:1000:5","algorithm":"token_bucket","limit":1,"windowMs":1000,"burst":5,"reserve":true}]}}],"expiresAt":1700000600000,"backlog":["queue/[\\"api\\",[\\"user\\",\\"u1\\"]]"],"credentials":{"iv":"aXY=","data":"ZGF0YQ=="}}';

  it("is this JSON, and a stored one is read back as it was", () => {
    expect(JSON.stringify(message)).toBe(golden);
    expect(asQueuedMessage(JSON.parse(golden))).toEqual(message);
  });

  it("reads a version-1 message without the members added later, and no other version", () => {
    const minimal = '{"v":1,"id":"i","queuedAt":1,"request":{"method":"GET","path":"/","target":null,"headers":[],"body":null},"pace":[]}';
    expect(asQueuedMessage(JSON.parse(minimal))?.id).toBe("i");
    expect(asQueuedMessage({ ...JSON.parse(minimal), v: 2 })).toBeUndefined();
  });
});

describe("the RPC wire format (src/stored/wire.ts, wire-calls.ts)", () => {
  it("writes a batch of calls and their verdicts as exactly this JSON text", () => {
    const calls: CounterCall[] = [
      { key: '["api",["user","u1"]]', cost: 1, limits: [{ id: "fw:10:60000:10", algorithm: "fixed_window", limit: 10, windowMs: 60_000, burst: 10 }] },
      { kind: "absorb", key: "k", cost: 2, limits: [], lease: { holder: "h", want: 4, release: 0, ttlMs: 1200 } },
      { kind: "relay", key: "k", cost: 3, limits: [], object: "api/shard/3@weur" },
    ];
    expect(toWire(calls)).toBe(
      '[{"key":"[\\"api\\",[\\"user\\",\\"u1\\"]]","cost":1,"limits":[{"id":"fw:10:60000:10","algorithm":"fixed_window","limit":10,"windowMs":60000,"burst":10}]},{"kind":"absorb","key":"k","cost":2,"limits":[],"lease":{"holder":"h","want":4,"release":0,"ttlMs":1200}},{"kind":"relay","key":"k","cost":3,"limits":[],"object":"api/shard/3@weur"}]',
    );
    const verdicts: CounterVerdict[] = [
      { allowed: false, decisions: [{ allowed: false, limit: 1, remaining: 0, resetAfterMs: 5, retryAfterMs: Infinity, effectiveWindowMs: 1000 }] },
    ];
    const text =
      '[{"allowed":false,"decisions":[{"allowed":false,"limit":1,"remaining":0,"resetAfterMs":5,"retryAfterMs":"\\u0000num:Infinity","effectiveWindowMs":1000}]}]';
    expect(toWire(verdicts)).toBe(text);
    expect(fromWire(text)).toEqual(verdicts);
  });
});
