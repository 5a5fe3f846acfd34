/**
 * Path spellings cannot walk around a route's limit (docs/rules.md,
 * "Canonical paths"; docs/reliability.md, "Security"): through the real
 * gateway, every spelling an origin would serve as `/login` is charged to
 * the `POST /login` limit of 2 a minute. Before canonical matching each of
 * these fell through to the catch-all route and all three POSTs were 200.
 */
import { describe, expect, it } from "vitest";
import { queueGateway, queueRules, untilState } from "../queue/support.ts";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";

const rules = (domain: string, paths?: Record<string, unknown>) => ({
  domain,
  ...(paths ? { paths } : {}),
  descriptors: [
    { key: "path", value: "/login", descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 2 } }] },
    { key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1000 } },
  ],
  routes: [
    // The built-in `path` key: the counter is keyed by the canonical path, so the tree's "/login" node is found.
    { match: { methods: ["POST"], path: "/login" }, descriptors: [[{ key: "path" }, { key: "remote_address" }]] },
    { match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] },
  ],
});

const SPELLINGS = ["/login/", "/LOGIN", "/Login", "/%6cogin", "/%6Cogin", "//login", "/login;jsessionid=1"];

async function statuses(call: ReturnType<typeof gateway>, paths: readonly string[]): Promise<number[]> {
  const ip = uniqueIp();
  const out: number[] = [];
  for (const path of paths) {
    const response = await call(path, { method: "POST", ip, body: "user=a&password=b" });
    await response.body?.cancel();
    out.push(response.status);
  }
  return out;
}

describe("a POST /login limit of 2 a minute, per client", () => {
  const call = gateway(rules("sec-paths"), { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("charges the plain spelling (the baseline)", async () => {
    expect(await statuses(call, ["/login", "/login", "/login"])).toEqual([200, 200, 429]);
  });

  it.each(SPELLINGS)("charges %s to it: the third POST is 429", async (spelling) => {
    expect(await statuses(call, [spelling, spelling, spelling])).toEqual([200, 200, 429]);
  });

  it("charges /login, /login/ and /LOGIN from one client to one counter", async () => {
    expect(await statuses(call, ["/login", "/login/", "/LOGIN"])).toEqual([200, 200, 429]);
  });

  it("leaves other paths to the catch-all route", async () => {
    expect(await statuses(call, ["/logins", "/logins", "/logins", "/log/in"])).toEqual([200, 200, 200, 200]);
  });

  it("forwards the path as the client sent it by default", async () => {
    const response = await call("//Login/;jsessionid=1?next=%2Fhome", { method: "POST", ip: uniqueIp() });
    expect(response.status).toBe(200);
    expect((await response.json<{ url: string }>()).url).toBe("//Login/;jsessionid=1?next=%2Fhome");
  });
});

describe('paths.forward: "canonical"', () => {
  const call = gateway(rules("sec-paths-forward", { forward: "canonical" }), { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("forwards the canonical path, letter case as sent, query unchanged", async () => {
    const response = await call("//Login/./;jsessionid=1?next=%2Fhome", { method: "POST", ip: uniqueIp() });
    expect(response.status).toBe(200);
    expect((await response.json<{ url: string }>()).url).toBe("/Login?next=%2Fhome");
  });

  it("still charges the spellings to the limit", async () => {
    expect(await statuses(call, ["/%6Cogin", "/LOGIN/", "//login"])).toEqual([200, 200, 429]);
  });
});

describe("paths.case_sensitive: true", () => {
  const call = gateway(rules("sec-paths-case", { case_sensitive: true }), { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("keeps /LOGIN apart from /login", async () => {
    expect(await statuses(call, ["/LOGIN", "/LOGIN", "/LOGIN"])).toEqual([200, 200, 200]);
  });

  it("still reads every other spelling as /login", async () => {
    expect(await statuses(call, ["/login/", "/%6Cogin", "//login;x=1"])).toEqual([200, 200, 429]);
  });
});

describe('paths.forward: "canonical" with on_limit "queue"', () => {
  it("queues and delivers the canonical path", async () => {
    const call = queueGateway({ ...queueRules({ unit: "second", requests_per_unit: 4, algorithm: "gcra", burst: 1 }), paths: { forward: "canonical" } });
    const ip = uniqueIp();
    const tag = uniqueTag("paths-queue");
    const send = () => call("//Hooks/./a/;x=1?n=1", { ip, method: "POST", body: "b", headers: { "x-test-tag": tag } });
    const responses = await Promise.all([send(), send()]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 202]);
    const location = responses.find((r) => r.status === 202)!.headers.get("Location")!;
    const view = await untilState(call, location, ip, "delivered", 15_000);
    expect(view.path).toBe("/Hooks/a");
    expect((await originRecords(tag)).map((r) => r.url)).toEqual(["/Hooks/a?n=1", "/Hooks/a?n=1"]);
  });
});
