import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
describe("smoke", () => {
  it("healthcheck", async () => {
    const res = await exports.default.fetch("http://x/__ratelimit/healthcheck");
    expect(res.status).toBe(200);
  });
  it("do", async () => {
    const stub = (env as any).COUNTERS.getByName("a");
    expect(await stub.ping()).toBe("pong");
  });
});
