// Runs in Node before the workerd test suite: starts a real HTTP origin on
// 127.0.0.1 that echoes exactly what it received, so forwarding tests use
// real fetch end to end. Its URL reaches tests as the TEST_ORIGIN_URL binding.
//
// `/status/NNN` answers status NNN (a 3xx with `Location: /landed`); `?tokens=N` answers the header
// `x-tokens-used: N`, as a model endpoint reports what it spent. A request with an `x-test-tag` header is
// recorded with its arrival time (when its headers arrived, in Node's clock,
// which is the machine's) and `GET /__records?tag=T` lists the records of a
// tag, so the delay and queue tests check delivery times against real arrivals.
//
// `/slow?ms=N` (with `x-test-tag`) answers its headers and a first line at
// once and ends the body N ms later; it counts the requests of the tag in
// flight (arrived, response not yet ended nor the connection closed), and
// `GET /__inflight?tag=T` reports `{ now, max, total }`: the concurrency tests
// count at the origin itself.
//
// `/__jwks?tag=T` serves a key set a test stored there (`PUT`, the body served as sent, `?status=N` to
// answer N instead) and counts the fetches (`GET /__jwks_fetches?tag=T`): the jwks_url tests
// (test/identity/jwks-url.test.ts) fetch keys over real HTTP without the network.
//
// `/llm/…` and `/__llm/…` are a mock OpenAI- and Anthropic-compatible API (llm-origin.mjs).
import { createServer } from "node:http";
import { isLlmPath, serveLlm } from "./llm-origin.mjs";

export default async function setup({ provide }) {
  /** tag -> records, in arrival order. */
  const records = new Map();
  /** tag -> { now, max, total } of `/slow` requests. */
  const inflight = new Map();
  /** tag -> { status, body, fetches } of a stored key set. */
  const keySets = new Map();
  const server = createServer((req, res) => {
    const arrivedAt = Date.now();
    const url = new URL(req.url ?? "/", "http://origin.test");
    if (isLlmPath(url.pathname)) {
      serveLlm(req, res, url);
      return;
    }
    if (url.pathname === "/__jwks" || url.pathname === "/__jwks_fetches") {
      serveKeySet(req, res, url, keySets);
      return;
    }
    if (req.method === "GET" && url.pathname === "/__records") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(records.get(url.searchParams.get("tag")) ?? []));
      return;
    }
    if (req.method === "GET" && url.pathname === "/__inflight") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(inflight.get(url.searchParams.get("tag")) ?? { now: 0, max: 0, total: 0 }));
      return;
    }
    // A connection dropped before any answer: a network error for whoever sent the request.
    if (url.pathname === "/__hangup") {
      req.socket.destroy();
      return;
    }
    if (url.pathname === "/slow") {
      slow(req, res, url, inflight);
      return;
    }
    const chunks = [];
    let firstChunkAt;
    req.on("data", (chunk) => {
      firstChunkAt ??= Date.now();
      chunks.push(chunk);
    });
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const status = Number(/^\/status\/(\d{3})$/.exec(url.pathname)?.[1] ?? 200);
      const echo = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: body.toString("utf8"),
        bodyLength: body.length,
        chunks: chunks.length,
        arrivedAt,
        firstChunkAt,
        endAt: Date.now(),
        status,
      };
      const tag = req.headers["x-test-tag"];
      if (typeof tag === "string") {
        if (!records.has(tag)) records.set(tag, []);
        records.get(tag).push(echo);
      }
      // A redirect points somewhere a follower would land on with a 200.
      const location = status >= 300 && status < 400 ? { location: "/landed" } : {};
      const tokens = url.searchParams.has("tokens") ? { "x-tokens-used": url.searchParams.get("tokens") } : {};
      res.writeHead(status, { "content-type": "application/json", "x-test-origin": "yes", "set-cookie": "origin=1", ...location, ...tokens });
      res.end(JSON.stringify(echo));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  provide("originUrl", `http://127.0.0.1:${server.address().port}`);
  return () => new Promise((resolve) => server.close(resolve));
}

/** `/__jwks`: store (PUT) or serve (GET) a tag's key set; `/__jwks_fetches`: how often it was served. */
function serveKeySet(req, res, url, keySets) {
  const tag = url.searchParams.get("tag") ?? "";
  if (url.pathname === "/__jwks_fetches") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(keySets.get(tag)?.fetches ?? 0));
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    if (req.method === "PUT") {
      const fetches = keySets.get(tag)?.fetches ?? 0;
      keySets.set(tag, { status: Number(url.searchParams.get("status") ?? 200), body: Buffer.concat(chunks), fetches });
      res.writeHead(204);
      res.end();
      return;
    }
    const set = keySets.get(tag) ?? { status: 404, body: Buffer.from("{}"), fetches: 0 };
    set.fetches += 1;
    keySets.set(tag, set);
    res.writeHead(set.status, { "content-type": "application/json" });
    res.end(set.body);
  });
}

/** `/slow`: first line now, end after `ms`; counted in flight until it ends or the connection closes. */
function slow(req, res, url, inflight) {
  const tag = String(req.headers["x-test-tag"] ?? "untagged");
  if (!inflight.has(tag)) inflight.set(tag, { now: 0, max: 0, total: 0 });
  const stats = inflight.get(tag);
  stats.now += 1;
  stats.total += 1;
  stats.max = Math.max(stats.max, stats.now);
  let open = true;
  const done = () => {
    if (!open) return;
    open = false;
    stats.now -= 1;
    clearTimeout(timer);
  };
  req.resume();
  res.on("close", done);
  res.writeHead(200, { "content-type": "text/plain" });
  res.write("start\n");
  const timer = setTimeout(
    () => {
      done();
      res.end("end\n");
    },
    Number(url.searchParams.get("ms") ?? 100),
  );
}
