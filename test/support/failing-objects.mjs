// Test-only Durable Objects that stand in for a CounterObject or a RulesObject
// when a test needs one that fails: real objects, reached over real RPC, so
// the gateway meets a failure the way it would in production. Bound in
// vitest.config.ts (THROWING_OBJECTS, HANGING_OBJECTS) from an auxiliary worker.
import { DurableObject } from "cloudflare:workers";

/** Every call throws, as an object whose code crashes or whose storage fails. */
export class ThrowingObject extends DurableObject {
  async decide() {
    throw new Error("object exploded");
  }

  async decideText() {
    throw new Error("object exploded");
  }

  async peek() {
    throw new Error("object exploded");
  }

  async since() {
    throw new Error("rules object down");
  }
}

/**
 * No call answers for a minute, as an overloaded or stuck object. A pending
 * timer, not a promise that can never settle: the runtime would see the latter
 * and fail the call at once.
 */
export class HangingObject extends DurableObject {
  async decide() {
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    throw new Error("hung for a minute");
  }

  async decideText() {
    return this.decide();
  }
}

export default {
  fetch() {
    return new Response("failing-objects: Durable Objects only", { status: 404 });
  },
};
