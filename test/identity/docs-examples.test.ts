/**
 * The examples of docs/rules.md, "Verified identity (jwt)", run: each is
 * valid rules, and the first limits a verified user by their `sub` and a
 * request without a verified token by its address.
 */
import { describe, expect, it } from "vitest";
import rulesPage from "../../docs/rules.md?raw";
import { compileRules } from "../../src/rules/index.ts";
import { gateway, uniqueIp } from "../support/app.ts";
import { hs256, SECRET } from "./tokens.ts";

const section = rulesPage.slice(rulesPage.indexOf("## Verified identity (jwt)"), rulesPage.indexOf("## Canonical paths"));
const examples = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));

describe("docs/rules.md, Verified identity (jwt)", () => {
  it("has two examples, both valid rules", () => {
    expect(examples).toHaveLength(2);
    for (const example of examples) expect(compileRules(example)).toMatchObject({ ok: true });
  });

  it("limits a verified user by sub, and a request with a forged token by address", async () => {
    const call = gateway(examples[0], { JWT_SECRET: SECRET } as Record<string, string>);
    const now = Math.floor(Date.now() / 1000);
    const token = await hs256({ sub: `docs-${crypto.randomUUID()}`, iss: "https://auth.example.com", aud: "api", exp: now + 600 });
    const send = async (authorization: string, ip: string) => (await call("/api/x", { headers: { authorization }, ip })).status;
    const verified: number[] = [];
    for (let i = 0; i < 101; i += 1) verified.push(await send(`Bearer ${token}`, uniqueIp()));
    expect(verified.filter((s) => s === 200)).toHaveLength(100);
    expect(verified.at(-1)).toBe(429);
    const ip = uniqueIp();
    const forged: number[] = [];
    for (let i = 0; i < 21; i += 1) forged.push(await send(`Bearer ${token.slice(0, -2)}xx`, ip));
    expect(forged.filter((s) => s === 200)).toHaveLength(20);
    expect(forged.at(-1)).toBe(429);
  });
});
