import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gateway } from "../support/app.ts";

// Both placements: per_key turns a descriptor value into an object name.
const rules = (placement: "sharded" | "per_key") => ({
  domain: `hostile-${placement}`,
  placement,
  descriptors: [{ key: "api_key", rate_limit: { unit: "hour", requests_per_unit: 2 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
});

const separators = fc.constantFrom(",", "=", ":", "/", "\u0000", "\u0001", '"', "\\", "[", "]", "%", "*");
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.array(separators, { maxLength: 12 }).map((parts) => parts.join("")),
  fc.tuple(fc.string({ maxLength: 5 }), separators, fc.string({ maxLength: 5 })).map(([a, s, b]) => a + s + b),
);

// Header values must be ByteStrings; encode arbitrary text the way a client would have to.
const headerValue = (text: string) => encodeURIComponent(text).slice(0, 70_000);

describe("hostile descriptor values", () => {
  for (const placement of ["sharded", "per_key"] as const) {
    it(`${placement}: huge (64 KiB) and empty values get a correct decision, never a 500`, async () => {
      const call = gateway(rules(placement));
      const huge = "k".repeat(64 * 1024);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await call("/x", { headers: { "x-api-key": huge } })).status);
      expect(statuses).toEqual([200, 200, 429]);
      const empty = await call("/x", { headers: { "x-api-key": "" } });
      expect(empty.status).toBe(200);
    });

    it(`${placement}: values full of key separators never share a counter with another value`, async () => {
      const call = gateway(rules(placement));
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(nasty, { minLength: 2, maxLength: 4, selector: headerValue }), async (values) => {
          const run = `${Math.random()}`;
          const keys = values.map((v) => `${run}${headerValue(v)}`);
          // Spend one key completely; every other key must still be untouched.
          for (let i = 0; i < 2; i++) expect((await call("/x", { headers: { "x-api-key": keys[0] } })).status).toBe(200);
          expect((await call("/x", { headers: { "x-api-key": keys[0] } })).status).toBe(429);
          for (const key of keys.slice(1)) {
            const res = await call("/x", { headers: { "x-api-key": key } });
            expect(res.status).toBe(200);
            expect(res.headers.get("X-RateLimit-Remaining")).toBe("1");
          }
        }),
        { numRuns: 25, seed: 11 },
      );
    });
  }

  it("treats different Unicode normalizations as different values (byte-exact, like Envoy)", async () => {
    const call = gateway(rules("sharded"));
    const composed = encodeURIComponent("caf\u00e9-nfc");
    const decomposed = encodeURIComponent("cafe\u0301-nfc");
    await call("/x", { headers: { "x-api-key": composed } });
    await call("/x", { headers: { "x-api-key": composed } });
    expect((await call("/x", { headers: { "x-api-key": composed } })).status).toBe(429);
    expect((await call("/x", { headers: { "x-api-key": decomposed } })).status).toBe(200);
  });

  it("answers odd paths and methods with a decision, never a 500", async () => {
    const call = gateway(rules("sharded"));
    await fc.assert(
      fc.asyncProperty(
        fc.webPath(),
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "PROPFIND"),
        async (path, method) => {
          const res = await call(path.startsWith("/") ? path : `/${path}`, { method, headers: { "x-api-key": "odd-paths" } });
          expect(res.status).not.toBe(500);
          expect([200, 429]).toContain(res.status);
        },
      ),
      { numRuns: 50, seed: 5 },
    );
  });
});
