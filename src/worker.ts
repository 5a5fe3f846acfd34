import { Hono } from "hono";
export { CounterObject } from "./durable/counter-object.ts";
const app = new Hono();
app.get("/__ratelimit/healthcheck", (c) => c.text("OK"));
export default app;
