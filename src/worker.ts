/**
 * floodgate's Worker entry: the gateway app over the bundled rules, and the
 * Durable Object class that owns the counters.
 */
import { createApp } from "./http/app.ts";
import { bundledRules } from "./rules/bundled.ts";

export { CounterObject } from "./durable/counter-object.ts";
export { rateLimit } from "./http/middleware.ts";

export default createApp(bundledRules);
