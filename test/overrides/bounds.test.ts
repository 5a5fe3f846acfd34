/**
 * Overrides are bounded so that every rules poll can carry them all
 * (docs/admin-api.md, "Overrides"; docs/reliability.md): a descriptor of at
 * most 1,024 bytes, a rate limit of at most 2,048, and 8 MiB of stored text
 * in all. A table filled to that bound with the costliest rows RPC can be
 * sent (two-byte strings: each character two bytes on the wire) still
 * crosses RPC in one poll, and isolates decide with it; one more override
 * is a 409 naming the bound. Before, 2,300 overrides of ~16 KB made every
 * poll fail ("Serialized RPC … limited to 32MiB") and isolates froze.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { OverridesOverlay } from "../../src/overrides/overlay.ts";
import { MAX_OVERRIDES_BYTES, overrideBytes } from "../../src/durable/rules/override-store.ts";
import { MAX_DESCRIPTOR_BYTES, MAX_LIMIT_BYTES } from "../../src/overrides/validate.ts";
import { testEnv } from "../support/app.ts";
import { d, envoyApi } from "../support/envoy.ts";

const RULES = { domain: "ob", descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 5 } }] };
const START = Date.parse("2026-11-27T12:00:00Z");
let objects = 0;

function api() {
  const objectName = `overrides-bounds-${++objects}`;
  const gateway = envoyApi(RULES, {}, { objectName, overlay: new OverridesOverlay(), now: () => START });
  const put = async (body: unknown) => {
    const response = await gateway.admin("/__ratelimit/overrides", {
      method: "PUT",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });
    return { status: response.status, body: await response.json<any>() };
  };
  const limitOf = async (value: string) =>
    (await gateway.json({ domain: "ob", descriptors: [d(["user", value])], hits_addend: 0 })).body.statuses[0].currentLimit?.requestsPerUnit ?? "none";
  return { objectName, put, limitOf };
}

describe("override bounds", () => {
  it("refuses a descriptor or a rate limit past its bound with a 400 naming it", async () => {
    const a = api();
    // The finding's shape: 32 entries whose keys make ~16 KB.
    const long = Array.from({ length: 32 }, (_, i) => `${"k".repeat(500)}${i}=v`).join(",");
    const descriptor = await a.put({ domain: "ob", descriptor: long, rate_limit: { unit: "minute", requests_per_unit: 1 } });
    expect(descriptor.status).toBe(400);
    expect(descriptor.body.errors).toContainEqual({
      path: "$.descriptor",
      message: `must be at most ${MAX_DESCRIPTOR_BYTES} bytes of UTF-8, got ${long.length}`,
    });
    const limit = { unit: "minute", requests_per_unit: 1, name: "n".repeat(MAX_LIMIT_BYTES) };
    const named = await a.put({ domain: "ob", descriptor: "user=acme", rate_limit: limit });
    expect(named.status).toBe(400);
    expect(named.body.errors).toContainEqual({
      path: "$.rate_limit",
      message: `must be at most ${MAX_LIMIT_BYTES} bytes of UTF-8 as JSON, got ${JSON.stringify(limit).length}`,
    });
    expect(await a.limitOf("acme")).toBe(5);
  });

  it("carries a table filled to the total bound in one poll, and refuses one more override with a 409", async () => {
    const a = api();
    const stub = testEnv.RULES.getByName(a.objectName);
    // The costliest rows per stored byte: mostly ASCII with one "€", so the string is two bytes a character on the wire
    // (a limit's name must be printable ASCII: that one stays one byte a character).
    const row = (i: number) => ({
      domain: "ob",
      descriptor: `user=${"u".repeat(240)}€${i}`,
      rate_limit: JSON.stringify({ unit: "minute", requests_per_unit: 7, name: `${"n".repeat(MAX_LIMIT_BYTES - 80)}${i}` }),
      expires_at: null,
      note: `${"x".repeat(490)}€`,
      updated_at: "2026-11-27T00:00:00.000Z",
    });
    // Rows up to 700 bytes short of the bound, a padding row's note taking the rest but for those 700.
    const pad = { ...row(0), descriptor: "user=pad", rate_limit: JSON.stringify({ unit: "minute", requests_per_unit: 7 }), note: "" };
    const room = MAX_OVERRIDES_BYTES - 700 - overrideBytes(pad);
    const filled: (typeof pad)[] = [];
    let used = 0;
    for (let i = 0; used + overrideBytes(row(i)) <= room; i++) {
      filled.push(row(i));
      used += overrideBytes(row(i));
    }
    filled.push({ ...pad, note: "p".repeat(room - used) });
    const rows = filled.length;
    await runInDurableObject(stub, (_instance, state) => {
      for (const r of filled) {
        state.storage.sql.exec(
          "INSERT INTO overrides (domain, descriptor, rate_limit, expires_at, note, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
          r.domain,
          r.descriptor,
          r.rate_limit,
          r.expires_at,
          r.note,
          r.updated_at,
        );
      }
      state.storage.sql.exec("INSERT OR REPLACE INTO overrides_head (id, version) VALUES (0, 1)");
    });
    // The poll an isolate makes, across RPC: every row arrives.
    const record = await stub.since(-1, 0);
    expect(record?.overrides?.rows.length).toBe(rows);
    // One more fits in what is left; then the bound is reached.
    expect((await a.put({ domain: "ob", descriptor: "user=acme", rate_limit: { unit: "minute", requests_per_unit: 50 } })).status).toBe(200);
    expect([await a.limitOf("acme"), await a.limitOf(`${"u".repeat(240)}€3`)]).toEqual([50, 7]);
    // 700 bytes were left: "acme" took about 80, an override of about 580 fits, the next is a 409 naming the bound.
    const more = (i: number) =>
      a.put({ domain: "ob", descriptor: `user=more-${i}`, rate_limit: { unit: "minute", requests_per_unit: 1 }, note: "y".repeat(500) });
    expect((await more(1)).status).toBe(200);
    const over = await more(2);
    expect(over.status).toBe(409);
    expect(over.body.errors[0].message).toMatch(new RegExp(`past the ${MAX_OVERRIDES_BYTES} every poll may carry; delete some first$`));
    const stored = await runInDurableObject(
      stub,
      (_instance, state) =>
        state.storage.sql
          .exec<{ n: number }>(
            "SELECT sum(length(CAST(domain AS BLOB)) + length(CAST(descriptor AS BLOB)) + length(CAST(rate_limit AS BLOB)) + coalesce(length(CAST(note AS BLOB)), 0) + length(CAST(updated_at AS BLOB))) AS n FROM overrides",
          )
          .one().n,
    );
    expect(stored).toBeLessThanOrEqual(MAX_OVERRIDES_BYTES);
    expect(stored).toBeGreaterThan(MAX_OVERRIDES_BYTES - 700);
  }, 120_000);
});
