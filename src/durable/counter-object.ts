import { DurableObject } from "cloudflare:workers";
export class CounterObject extends DurableObject {
  ping(): string { return "pong"; }
}
