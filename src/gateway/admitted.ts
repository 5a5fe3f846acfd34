/**
 * What happens to an admitted request after the decision, shared by the
 * gateway and the `rateLimit()` middleware: the wait for a reserved slot
 * (`on_limit: "delay"`), the rate-limit headers, the reconciliation with the
 * response (`count_when`, `cost_from_response`) and the concurrency slots
 * held until the body has been sent (docs/concurrency.md).
 */
import { admittedHeaders, type BodyCost, type Engine, followUsage, keepReservations, settleWithResponse } from "../admission/index.ts";
import type { Defer } from "../http/defer.ts";
import type { HeaderDialect } from "../http/header-dialect.ts";
import { withHeaders } from "../http/headers.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import type { SlotHold } from "./slots.ts";

/**
 * An admitted request: its decision, the slots it holds, and the steps
 * after the decision. One per request (it is the admission itself).
 *
 * @example
 * const wait = admitted.untilSlot();
 * if (wait) await wait;
 * const headers = admitted.headers();
 * try { response = await downstream(); } catch (error) { admitted.abandon(); throw error; }
 * return admitted.finish(response, headers);
 */
export class Admitted {
  /** Nothing to answer at once: the request goes on. */
  readonly response = undefined;
  readonly result: RateLimitResult;
  /** Concurrency slots the request holds (docs/concurrency.md); freed by `finish`'s body or `abandon`. */
  readonly slots: SlotHold | undefined;
  private readonly engine: Engine;
  private readonly defer: Defer;
  private readonly dialect: HeaderDialect;
  /**
   * The request to send on in place of the one admitted, when floodgate read its JSON body
   * (docs/llm.md): the same method, URL, headers and body bytes. Undefined: send the request as given.
   */
  readonly forwarded: Request | undefined;
  /** The usage the response's body reports (docs/llm.md), when the route reads one: `finish` then wraps the body in a response of its own. */
  readonly followsBody: BodyCost | undefined;

  constructor(result: RateLimitResult, slots: SlotHold | undefined, engine: Engine, defer: Defer, dialect: HeaderDialect, forwarded?: Request) {
    this.forwarded = forwarded;
    this.followsBody = bodyCostOf(result);
    this.result = result;
    this.slots = slots;
    this.engine = engine;
    this.defer = defer;
    this.dialect = dialect;
  }

  /**
   * For a request admitted at a reserved slot (reason `delayed`), the wait
   * until it: the slot is already taken in the counter, and holding the
   * request until it comes keeps the origin at the limit's rate. Undefined
   * (no turn taken) for every other request.
   */
  untilSlot(): Promise<void> | undefined {
    const delayMs = this.result.delayMs;
    return delayMs !== undefined && delayMs > 0 ? scheduler.wait(delayMs) : undefined;
  }

  /** The headers the response gets (none when no limit applied and the counters answered). */
  headers(): [string, string][] {
    return admittedHeaders(this.result, this.dialect);
  }

  /** The downstream failed without a response: free the slots now; the reservations stay, and are counted as the charge. */
  abandon(): void {
    this.slots?.release();
    keepReservations(this.engine, this.result, this.defer);
  }

  /**
   * `response` as the client gets it: reconciled with the decision (in the
   * background), `headers` added, and its body followed when slots are held.
   */
  finish(response: Response, headers: [string, string][]): Response {
    const usage = this.followsBody;
    if (usage === undefined) settleWithResponse(this.engine, this.result, response, this.defer);
    else {
      // Usage reported in the body (docs/llm.md): settled once the body has gone by, or was cut short.
      const answered = { status: response.status, headers: response.headers };
      response = followUsage(response, usage, (reported) => settleWithResponse(this.engine, this.result, answered, this.defer, reported));
    }
    const labelled = withHeaders(response, headers);
    return this.slots === undefined ? labelled : this.slots.follow(labelled);
  }
}

// The route's usage read from the response's body, when it has one (every descriptor of a request's route shares it).
function bodyCostOf(result: RateLimitResult): BodyCost | undefined {
  for (const outcome of result.descriptors ?? []) {
    const cost = outcome.costFromResponse;
    if (cost !== undefined && cost.kind !== "header" && outcome.chargedAt !== undefined) return cost;
  }
  return undefined;
}
