/**
 * The origin behind every bench target: a worker that answers every request
 * with a tiny 200 and does nothing else. The bare pass-through worker,
 * floodgate, the peer and the probes all forward allowed requests to it over
 * 127.0.0.1, as a gateway forwards to the API it protects. Loaded directly,
 * it is also the "no gateway at all" row of the bench's probe table.
 */
// @ts-nocheck

export default {
  /**
   * Answer without reading the request.
   *
   * @example
   * await origin.fetch(new Request("http://127.0.0.1/")); // 200 "ok"
   */
  fetch(): Response {
    return new Response("ok");
  },
};
