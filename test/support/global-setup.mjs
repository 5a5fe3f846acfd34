// Runs in Node before the workerd test suite: starts a real HTTP origin on
// 127.0.0.1 that echoes exactly what it received, so forwarding tests use
// real fetch end to end. Its URL reaches tests as the TEST_ORIGIN_URL binding.
import { createServer } from "node:http";

export default async function setup({ provide }) {
  const server = createServer((req, res) => {
    const chunks = [];
    let firstChunkAt;
    req.on("data", (chunk) => {
      firstChunkAt ??= Date.now();
      chunks.push(chunk);
    });
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const status = Number(/^\/status\/(\d{3})$/.exec(req.url ?? "")?.[1] ?? 200);
      res.writeHead(status, { "content-type": "application/json", "x-test-origin": "yes", "set-cookie": "origin=1" });
      res.end(JSON.stringify({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: body.toString("utf8"),
        bodyLength: body.length,
        chunks: chunks.length,
        firstChunkAt,
        endAt: Date.now(),
      }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  provide("originUrl", `http://127.0.0.1:${server.address().port}`);
  return () => new Promise((resolve) => server.close(resolve));
}
