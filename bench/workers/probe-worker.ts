/**
 * Probes that take floodgate's request path apart, for the bench's "where
 * the time goes" table. Each path adds one ingredient to the bare
 * pass-through worker (every probe ends by forwarding to the bench origin):
 *
 * | path                | per request                                                              |
 * |---------------------|--------------------------------------------------------------------------|
 * | `/probe/hono`       | a Hono app with one pass-through middleware, then forward; no object     |
 * | `/probe/rpc`        | one RPC to one of 64 objects (by key hash), which counts in a Map         |
 * | `/probe/rpc-shaped` | the same RPC carrying floodgate's CounterCall[] / CounterVerdict[] shapes |
 * | `/probe/rpc-sql`    | `/probe/rpc` plus one SQLite upsert per hit, as floodgate's write-through |
 * | `/probe/rpc-sql-behind` | `/probe/rpc` with the upserts batched: dirty keys flushed every 250 ms |
 *
 * No rules and no algorithm (and no Hono but in `/probe/hono`): these are
 * floors that any Durable Object rate limiter built this way pays, measured
 * on the same workerd and load.
 */
import { DurableObject } from "cloudflare:workers";
import { Hono } from "hono";
import { halfSipHash, type ShardKey, shardKeyFrom } from "../../src/stored/shard-hash.ts";

interface Env {
  PROBE: DurableObjectNamespace<ProbeObject>;
  /** The bench origin (set by the bench's workerd config). */
  ORIGIN_URL: string;
}

/** floodgate's wire shapes (src/stored/wire-calls.ts), restated so the probe stays independent of it. */
interface ShapedCall {
  key: string;
  limits: { id: string; algorithm: string; limit: number; windowMs: number; burst: number }[];
  cost: number;
}
interface ShapedVerdict {
  allowed: boolean;
  decisions: { allowed: boolean; limit: number; remaining: number; resetAfterMs: number; retryAfterMs: number }[];
}

const FLUSH_MS = 250;

/**
 * Counts hits per key in memory, optionally persisting them.
 *
 * @example
 * await env.PROBE.getByName("shard/3").hit("key"); // 1, then 2, …
 */
export class ProbeObject extends DurableObject<Env> {
  private readonly counts = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS counters (id TEXT PRIMARY KEY, state TEXT NOT NULL, idle_at INTEGER NOT NULL)");
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS counters_idle_at ON counters (idle_at)");
  }

  /** Count one hit in memory. */
  hit(key: string): number {
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }

  /** Count one hit per call, answering in floodgate's verdict shape. */
  hitShaped(calls: ShapedCall[]): ShapedVerdict[] {
    return calls.map((call) => {
      const count = this.hit(call.key);
      return {
        allowed: true,
        decisions: call.limits.map((l) => ({ allowed: true, limit: l.limit, remaining: l.limit - count, resetAfterMs: l.windowMs, retryAfterMs: 0 })),
      };
    });
  }

  /** Count one hit and write it through to SQLite in this event, as floodgate does for windows ≥ 1 min. */
  hitSql(key: string): number {
    const count = this.hit(key);
    this.save(key, count);
    return count;
  }

  /** Count one hit; write dirty keys in one batch every FLUSH_MS (write-behind). */
  hitSqlBehind(key: string): number {
    const count = this.hit(key);
    this.dirty.add(key);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      const now = Date.now();
      this.ctx.storage.transactionSync(() => {
        for (const k of this.dirty) this.save(k, this.counts.get(k) ?? 0, now);
      });
      this.dirty.clear();
    }, FLUSH_MS);
    return count;
  }

  private save(key: string, count: number, now = Date.now()): void {
    this.ctx.storage.sql.exec(
      "INSERT OR REPLACE INTO counters (id, state, idle_at) VALUES (?, ?, ?)",
      `${key}\u0001swc:100000:60000:100000`,
      JSON.stringify({ w: now - (now % 60_000), p: 0, c: count }),
      now + 120_000,
    );
  }
}

// floodgate's own keyed shard hash and default key (src/stored/shard-hash.ts), so both spread keys alike and pay the same per request.
let shardKey: ShardKey | undefined;
function shardOf(key: string, env: Env): number {
  shardKey ??= shardKeyFrom(undefined, env.PROBE);
  return halfSipHash(shardKey, key) % 64;
}

// The smallest Hono app floodgate's could be: one middleware, one handler.
const hono = new Hono<{ Bindings: Env }>();
hono.use("*", async (_c, next) => {
  await next();
});
hono.all("*", (c) => forward(c.req.raw, c.env));

// What the bare pass-through worker does, after each probe's ingredient.
function forward(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url);
  return fetch(env.ORIGIN_URL + url.pathname + url.search, request);
}

export default {
  /**
   * One probe per request (see the table above), then forward to the origin.
   *
   * @example
   * await probe.fetch(new Request("http://x/probe/rpc", { headers: { "x-api-key": "k" } }), env); // the origin's 200
   */
  async fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/probe/hono") return hono.fetch(request, env);
    const key = request.headers.get("x-api-key") ?? "";
    const stub = env.PROBE.getByName(`shard/${shardOf(key, env)}`);
    if (path === "/probe/rpc") await stub.hit(key);
    else if (path === "/probe/rpc-sql") await stub.hitSql(key);
    else if (path === "/probe/rpc-sql-behind") await stub.hitSqlBehind(key);
    else if (path === "/probe/rpc-shaped") {
      const limits = [{ id: "swc:100000:60000:100000", algorithm: "sliding_window_counter", limit: 100_000, windowMs: 60_000, burst: 100_000 }];
      await stub.hitShaped([{ key: JSON.stringify(["bench", ["api_key", key]]), limits, cost: 1 }]);
    }
    return forward(request, env);
  },
} satisfies ExportedHandler<Env>;
