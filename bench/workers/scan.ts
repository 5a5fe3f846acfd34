/**
 * `POST /__bench/scan?from=F&count=N&window=W`: N distinct keys (F … F+N−1),
 * each a sliding log of 100 per W ms spent by 1 + (i mod 3), sent straight
 * to one counter object in batches of 1,000 calls; `&keyBytes=B` makes each
 * key B characters long (a long descriptor value), in batches of about 400 KB; `&check=1` instead hits
 * keys F … F+N−1 once more and answers how many decided as an exact run
 * would. The bench's memory scan (bench/lib/scan.mjs) drives it.
 */
import type { Env } from "../../src/config.ts";
import type { CounterCall, LimitCall } from "../../src/stored/wire-calls.ts";

// Calls per RPC: 1,000, or fewer for long keys, so one batch in flight stays near 400 KB and the heap measured is the object's state.
const batchOf = (keyBytes: number) => (keyBytes > 0 ? Math.max(1, Math.floor(400_000 / keyBytes)) : 1_000);
const LIMIT = 100;
const spent = (i: number) => 1 + (i % 3);

/**
 * Run one slice of the scan against the object named for the window.
 *
 * @example
 * await fetch("http://127.0.0.1:8787/__bench/scan?from=0&count=20000&window=3600000", { method: "POST" });
 */
export async function scanSlice(url: URL, env: Env): Promise<Response> {
  const from = Number(url.searchParams.get("from"));
  const count = Number(url.searchParams.get("count"));
  const windowMs = Number(url.searchParams.get("window"));
  const check = url.searchParams.get("check") === "1";
  const limit: LimitCall = { id: `scan-log-${windowMs}`, algorithm: "sliding_window_log", limit: LIMIT, windowMs, burst: LIMIT };
  const keyBytes = Number(url.searchParams.get("keyBytes") ?? 0);
  const pad = keyBytes > 0 ? "k".repeat(keyBytes) : "scan";
  const stub = env.COUNTERS.getByName(`bench-scan/${windowMs}/${keyBytes}`);
  let exact = 0;
  const batch = batchOf(keyBytes);
  for (let at = from; at < from + count; at += batch) {
    const keys = Array.from({ length: Math.min(batch, from + count - at) }, (_, k) => at + k);
    const calls: CounterCall[] = keys.map((i) => ({ key: `${pad}-${i}`, limits: [limit], cost: check ? 1 : spent(i) }));
    const verdicts = await stub.decide(calls);
    if (!check) continue;
    for (const [k, v] of verdicts.entries()) if (v.allowed && v.decisions[0].remaining === LIMIT - spent(keys[k]) - 1) exact += 1;
  }
  const stats = url.searchParams.get("stats") === "1" ? await stub.stats() : undefined;
  return Response.json({ exact, ...(stats ? { stats } : {}) });
}
