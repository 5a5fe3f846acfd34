/**
 * A user's Worker that binds `CounterObject` as `LIMITS`, with no `COUNTERS`
 * binding at all (test/durable/renamed-binding.test.ts): built by esbuild in
 * vitest.config.ts and run as its own workerd service, as a deployed Worker
 * of the user's would be. Every request's `x-user` is limited to 3 an hour,
 * globally; a request carrying `cf` is relayed through its region's copy.
 * `GET /stats?object=NAME` reads an object's stats, through `LIMITS`.
 */
import { Hono } from "hono";
import { rateLimit } from "../../src/package/hono.ts";

export { CounterObject } from "../../src/package/durable.ts";

interface Bindings {
  LIMITS: DurableObjectNamespace;
}

const rules = {
  domain: "renamed-binding",
  placement: "per_key",
  descriptors: [{ key: "user", rate_limit: { unit: "hour", requests_per_unit: 3 } }],
  routes: [{ match: { path: "/limited" }, descriptors: [[{ key: "user", header: "x-user" }]] }],
};

const app = new Hono<{ Bindings: Bindings }>();
app.get("/stats", async (c) => {
  const stub = c.env.LIMITS.getByName(c.req.query("object") ?? "") as unknown as { stats(): Promise<unknown> };
  return c.json(await stub.stats());
});
app.use("/limited", rateLimit({ rules, counters: (c) => c.env.LIMITS }));
app.get("/limited", (c) => c.text("ok"));

export default app;
