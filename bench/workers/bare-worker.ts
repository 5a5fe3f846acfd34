/**
 * The physical limit (SPEC section 8): a bare pass-through worker. It sends
 * every request on to the bench origin and streams the answer back, doing
 * nothing else: what any gateway in front of that origin pays before it
 * decides anything. Every throughput in the bench table is read as a ratio
 * to this worker, on the same workerd, under the same load.
 */
interface Env {
  /** The bench origin, e.g. "http://127.0.0.1:40123" (set by the bench's workerd config). */
  ORIGIN_URL: string;
}

export default {
  /**
   * Forward the request, path and query kept, to ORIGIN_URL.
   *
   * @example
   * await bare.fetch(new Request("http://127.0.0.1/sharded/blocked"), { ORIGIN_URL: "http://127.0.0.1:40123" }); // the origin's 200 "ok"
   */
  fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    return fetch(env.ORIGIN_URL + url.pathname + url.search, request);
  },
} satisfies ExportedHandler<Env>;
