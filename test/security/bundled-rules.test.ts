/**
 * The bundled rules.json is safe to deploy as it stands (docs/rules.md, "A
 * tier a client cannot choose"): a probe from one address that rotates
 * made-up API keys (plain, `partner-…`, `trial-…`) gets exactly the per-IP
 * limit, 60 a minute, through the real gateway and counter objects. Before,
 * `X-API-Key: partner-anything` reached the partner tier, whose `replaces`
 * dropped the per-IP limit: 70 of 70 allowed. The partner tier is reached
 * only by a token signed with JWT_SECRET whose `plan` claim is `partner`.
 */
import { describe, expect, it } from "vitest";
import rules from "../../rules.json";
import { claims, hs256, SECRET } from "../identity/tokens.ts";
import { gateway, uniqueIp } from "../support/app.ts";

const call = gateway(rules, { JWT_SECRET: SECRET } as Record<string, string>);

async function allowed(n: number, init: (i: number) => RequestInit): Promise<number> {
  const ip = uniqueIp();
  let count = 0;
  for (let i = 0; i < n; i += 1) if ((await call(`/v1/items/${i}`, { ...init(i), ip })).status === 200) count += 1;
  return count;
}

describe("the bundled rules.json against a key-rotating probe", () => {
  it("holds the per-IP limit whatever API keys one address makes up", async () => {
    const keys = (i: number) => [`k-${crypto.randomUUID()}`, `partner-${i}`, `trial-${i}`, "partner-", `PARTNER-${i}`][i % 5];
    expect(await allowed(70, (i) => ({ headers: { "x-api-key": keys(i) } }))).toBe(60);
  });

  it("holds it for a forged or unverifiable partner token", async () => {
    const forged = await hs256(claims("acme", { plan: "partner", iss: undefined, aud: undefined }), "another secret of thirty-two bytes, not the rules' one");
    expect(await allowed(70, () => ({ headers: { authorization: `Bearer ${forged}` } }))).toBe(60);
  });

  it("gives a verified partner the partner tier instead of the per-IP limit", async () => {
    const token = await hs256(claims(`acme-${crypto.randomUUID()}`, { plan: "partner", iss: undefined, aud: undefined }));
    expect(await allowed(70, () => ({ headers: { authorization: `Bearer ${token}` } }))).toBe(70);
  });
});
