/**
 * A workerd isolate's V8 heap, read over workerd's inspector (the Chrome
 * DevTools protocol's `Runtime.getHeapUsage`): what an object really holds,
 * which the process's resident memory (SQLite's page cache, the runtime's
 * own buffers) only bounds from above. In workerd one service is one
 * isolate, and its Durable Objects live in it.
 */
// @ts-nocheck


/**
 * Connect to `service`'s isolate on the inspector at `port` and sample its
 * live heap every `everyMs` until `stop()`, which resolves to the first,
 * peak and last samples in MiB. Each sample first has the isolate collect
 * its garbage (`HeapProfiler.collectGarbage`): V8 lets garbage pile up
 * until it needs the room, so the used size before a collection says how
 * lazy the collector was, not what the object keeps.
 *
 * @example
 * const heap = await sampleHeap(9229, "floodgate");
 * … load …
 * const { peakMiB, lastMiB } = await heap.stop();
 */
export async function sampleHeap(port, service, everyMs = 1000) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/${service}`);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error(`no inspector for ${service} on port ${port}`)), { once: true });
  });
  let next = 1;
  const waiting = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  });
  const call = (method) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method }));
    });
  const usedMiB = async () => {
    // workerd collects but never answers this one; commands run in order, so the read below comes after it.
    socket.send(JSON.stringify({ id: next++, method: "HeapProfiler.collectGarbage" }));
    const result = await call("Runtime.getHeapUsage");
    return (result?.usedSize ?? Number.NaN) / 2 ** 20;
  };
  let peakMiB = await usedMiB();
  let lastMiB = peakMiB;
  const firstMiB = peakMiB;
  let sampling = false;
  const timer = setInterval(async () => {
    if (sampling) return;
    sampling = true;
    lastMiB = await usedMiB();
    peakMiB = Math.max(peakMiB, lastMiB);
    sampling = false;
  }, everyMs);
  return {
    /** The peak so far, without stopping. */
    peak: () => peakMiB,
    async stop() {
      clearInterval(timer);
      lastMiB = await usedMiB();
      peakMiB = Math.max(peakMiB, lastMiB);
      socket.close();
      return { firstMiB, peakMiB, lastMiB };
    },
  };
}
