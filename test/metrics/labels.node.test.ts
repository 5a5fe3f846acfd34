/**
 * Limited values as metrics and the dashboard show them (docs/metrics.md,
 * "Cardinality"): at most 4 characters, `…#` and 16 hex digits of a 64-bit
 * hash keyed from the deployment's shard key, so one deployment's labels
 * tell nothing to whoever lacks its secret. Plain: no bindings.
 *
 * Breaks tried: shownValue hashing with fixed keys again, ignoring the one
 * given ("differs between deployments" failed); labelKey deriving its second
 * key as its first (the two halves equal, "two independent halves" failed).
 */
import { describe, expect, it } from "vitest";
import { labelKey, shownEntries, shownValue } from "../../src/metrics/labels.ts";
import { shardKeyFrom } from "../../src/stored/shard-hash.ts";

const noNamespace = {
  idFromName(): never {
    throw new Error("a secret is given");
  },
};
const first = labelKey(shardKeyFrom("first-deployment-secret", noNamespace));
const second = labelKey(shardKeyFrom("second-deployment-secret", noNamespace));

describe("shownValue", () => {
  it("keeps the contract's shape: a prefix of at most 4 characters (a quarter of a short value), …# and 16 hex digits", () => {
    expect(shownValue("api_key", "sk-live-0123456789abcdef", first)).toMatch(/^sk-l…#[0-9a-f]{16}$/);
    expect(shownValue("user", "bob", first)).toMatch(/^…#[0-9a-f]{16}$/);
    expect(shownValue("user", "abcdefg", first)).toMatch(/^a…#[0-9a-f]{16}$/);
    // Never half a surrogate pair.
    expect(shownValue("user", `abc😀${"d".repeat(12)}`, first)).toMatch(/^abc…#/);
    expect(shownValue("user", "x".repeat(10_000), first)).toHaveLength(4 + 2 + 16);
  });

  it("shows the built-in keys as they are", () => {
    for (const key of ["remote_address", "path", "method", "host"]) expect(shownValue(key, "203.0.113.77", first)).toBe("203.0.113.77");
    const entries = [{ key: "remote_address", value: "203.0.113.77" }];
    expect(shownEntries(entries, first)).toBe(entries);
  });

  it("is the same for one value under one deployment's key, and apart for two values", () => {
    expect(shownValue("client", "203.0.113.77", first)).toBe(
      shownValue("client", "203.0.113.77", labelKey(shardKeyFrom("first-deployment-secret", noNamespace))),
    );
    expect(shownValue("client", "203.0.113.77", first)).not.toBe(shownValue("client", "203.0.113.78", first));
  });

  it("differs between deployments: nobody without the secret can test a guess (every IPv4 address) against a label", () => {
    const values = ["203.0.113.77", "10.0.0.1", "sk-live-0123456789abcdef", "u1"];
    for (const value of values) expect(shownValue("client", value, first)).not.toBe(shownValue("client", value, second));
    expect(shownEntries([{ key: "client", value: "u1" }], first)).not.toEqual(shownEntries([{ key: "client", value: "u1" }], second));
  });

  it("hashes with two independent halves (64 bits, not one 32-bit hash twice)", () => {
    const hex = shownValue("client", "203.0.113.77", first).split("#")[1];
    expect(hex.slice(0, 8)).not.toBe(hex.slice(8));
    expect(first.first).not.toEqual(first.second);
  });
});
