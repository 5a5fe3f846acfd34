/**
 * `jwks_url`: public keys fetched over real HTTP from the test origin
 * (test/support/global-setup.mjs, `/__jwks`), kept 5 minutes, fetched early
 * for an unknown kid at most once a minute, kept through failed refreshes
 * and retried after 30 s; with no keys, no token verifies (docs/rules.md,
 * "Verified identity (jwt)"). The isolate's clock is driven; tokens are
 * valid for an hour of it.
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { claims, newSigner, type Signer, signed } from "./tokens.ts";

const origin = testEnv.TEST_ORIGIN_URL;

async function serveKeys(tag: string, signers: readonly Signer[], status = 200): Promise<void> {
  const body = JSON.stringify({ keys: signers.map((s) => s.jwk) });
  await fetch(`${origin}/__jwks?tag=${tag}&status=${status}`, { method: "PUT", body });
}

async function fetches(tag: string): Promise<number> {
  return (await fetch(`${origin}/__jwks_fetches?tag=${tag}`)).json();
}

/** A gateway whose per-user limit is 2 a minute, its keys at `tag`, on a clock the test moves. */
function setup(tag: string) {
  const clock = { now: Date.now() };
  const call = gateway(
    {
      domain: "api",
      jwt: { jwks_url: `${origin}/__jwks?tag=${tag}` },
      descriptors: [
        { key: "user", rate_limit: { unit: "minute", requests_per_unit: 2 } },
        { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 100 } },
      ],
      routes: [{ match: { path: "/*" }, descriptors: [[{ key: "user", jwt_claim: "sub" }], [{ key: "remote_address" }]] }],
    },
    {},
    { now: () => clock.now },
  );
  const statuses = async (token: string, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i += 1) out.push((await call("/x", { headers: { authorization: `Bearer ${token}` }, ip: uniqueIp() })).status);
    return out;
  };
  return { clock, statuses };
}

const user = () => `user-${crypto.randomUUID()}`;

describe("jwks_url", async () => {
  const first = await newSigner("RS256", "rs-1");
  const rotated = await newSigner("ES256", "es-2");

  it("fetches the keys once and keys each verified user on their own counter", async () => {
    const tag = crypto.randomUUID();
    await serveKeys(tag, [first]);
    const { statuses } = setup(tag);
    expect(await statuses(await signed(first, claims(user())), 3)).toEqual([200, 200, 429]);
    expect(await statuses(await signed(first, claims(user())), 3)).toEqual([200, 200, 429]);
    expect(await fetches(tag)).toBe(1);
  });

  it("fetches early for an unknown kid, but not within a minute of the last fetch", async () => {
    const tag = crypto.randomUUID();
    await serveKeys(tag, [first]);
    const { clock, statuses } = setup(tag);
    expect(await statuses(await signed(first, claims(user())), 1)).toEqual([200]);
    await serveKeys(tag, [first, rotated]);
    const sub = user();
    const token = await signed(rotated, claims(sub));
    expect(await statuses(token, 3)).toEqual([200, 200, 200]);
    expect(await fetches(tag)).toBe(1);
    clock.now += 61_000;
    expect(await statuses(token, 3)).toEqual([200, 200, 429]);
    expect(await fetches(tag)).toBe(2);
  });

  it("fetches again after 5 minutes, keeps the old keys while the fetch fails, and retries after 30 s", async () => {
    const tag = crypto.randomUUID();
    await serveKeys(tag, [first]);
    const { clock, statuses } = setup(tag);
    expect(await statuses(await signed(first, claims(user())), 1)).toEqual([200]);
    clock.now += 299_000;
    expect(await statuses(await signed(first, claims(user())), 1)).toEqual([200]);
    expect(await fetches(tag)).toBe(1);
    await serveKeys(tag, [first], 500);
    clock.now += 2_000;
    expect(await statuses(await signed(first, claims(user())), 3)).toEqual([200, 200, 429]);
    expect(await fetches(tag)).toBe(2);
    clock.now += 29_000;
    expect(await statuses(await signed(first, claims(user())), 1)).toEqual([200]);
    expect(await fetches(tag)).toBe(2);
    clock.now += 2_000;
    expect(await statuses(await signed(first, claims(user())), 1)).toEqual([200]);
    expect(await fetches(tag)).toBe(3);
  });

  it("verifies nothing while no keys could be fetched, and verifies once they can", async () => {
    const tag = crypto.randomUUID();
    await serveKeys(tag, [first], 503);
    const { clock, statuses } = setup(tag);
    const token = await signed(first, claims(user()));
    expect(await statuses(token, 3)).toEqual([200, 200, 200]);
    expect(await fetches(tag)).toBe(1);
    await serveKeys(tag, [first]);
    clock.now += 31_000;
    expect(await statuses(token, 3)).toEqual([200, 200, 429]);
    expect(await fetches(tag)).toBe(2);
  });

  it("takes no key from a key set that is not one, nor too large, nor an HMAC key", async () => {
    for (const body of [
      "not json",
      JSON.stringify({ keys: [{ kty: "oct", k: "c2VjcmV0" }] }),
      JSON.stringify({ keys: [first.jwk], pad: "x".repeat(70_000) }),
    ]) {
      const tag = crypto.randomUUID();
      await fetch(`${origin}/__jwks?tag=${tag}`, { method: "PUT", body });
      const { statuses } = setup(tag);
      expect(await statuses(await signed(first, claims(user())), 3), body.slice(0, 40)).toEqual([200, 200, 200]);
    }
  });
});
