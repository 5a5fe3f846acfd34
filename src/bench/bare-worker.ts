/**
 * The physical limit: a worker that answers every request with a tiny 200
 * and does nothing else. Every throughput in the bench table is read as a
 * ratio to this worker, on the same workerd, under the same load.
 */
export default {
  /**
   * Answer without reading the request.
   *
   * @example
   * await bare.fetch(new Request("http://127.0.0.1/")); // 200 "ok"
   */
  fetch(): Response {
    return new Response("ok");
  },
};
