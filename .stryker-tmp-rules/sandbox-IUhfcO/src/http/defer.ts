/**
 * Background work after the response (ctx.waitUntil), tolerant of contexts
 * without an execution context (Hono's `app.request` in a test).
 */
// @ts-nocheck

import type { Context } from "hono";

/** Schedules a promise to finish after the response; never rejects into the request. */
export type Defer = (work: Promise<unknown>) => void;

/**
 * The request's `waitUntil`, or a fire-and-forget fallback.
 *
 * @example
 * deferOf(c)(sendMetrics());
 */
export function deferOf(c: Context): Defer {
  let ctx: ExecutionContext | undefined;
  try {
    ctx = c.executionCtx as ExecutionContext;
  } catch {
    ctx = undefined;
  }
  return deferFrom(ctx);
}

/**
 * `ctx.waitUntil` for a fetch handler's execution context (or a
 * fire-and-forget fallback without one), failures logged, never thrown.
 *
 * @example
 * const defer = deferFrom(ctx);
 * defer(sendMetrics());
 */
export function deferFrom(ctx: ExecutionContext | undefined): Defer {
  return ctx ? (work) => ctx.waitUntil(swallow(work)) : (work) => void swallow(work);
}

function swallow(work: Promise<unknown>): Promise<unknown> {
  return work.catch((error: unknown) => {
    console.error(JSON.stringify({ event: "floodgate.background_failed", error: String(error) }));
  });
}
