/**
 * hasRouteOrigin: which hostnames can be a zone route with an origin behind
 * it (ORIGIN_URL unset: fetch(request)), and which are wrangler dev or
 * workers.dev (the echo). Hostnames go through URL first, as request.url's do.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasRouteOrigin } from "../../src/http/origin-host.ts";

const hostOf = (host: string) => new URL(`http://${host}/`).hostname;
const PRIVATE = ["localhost", "test", "example", "invalid", "local", "internal"];

describe("hasRouteOrigin", () => {
  it("is false for every IP address, IPv4 or IPv6, as wrangler dev listens on one and Cloudflare routes none", () => {
    fc.assert(fc.property(fc.ipV4(), (ip) => !hasRouteOrigin(hostOf(ip))));
    fc.assert(fc.property(fc.ipV6(), (ip) => !hasRouteOrigin(hostOf(`[${ip}]`))));
  });

  it("is false for localhost, single-label names, special-use names and workers.dev", () => {
    for (const host of ["localhost", "LOCALHOST", "api.localhost", "gateway.test", "a.b.example", "x.invalid", "box.local", "svc.internal", "nas.home.arpa"]) {
      expect(hasRouteOrigin(hostOf(host)), host).toBe(false);
    }
    for (const host of ["myhost", "floodgate.me.workers.dev", "abc123-floodgate.me.workers.dev", "workers.dev", "localhost."]) {
      expect(hasRouteOrigin(hostOf(host)), host).toBe(false);
    }
  });

  it("is true for any other dotted name: a zone's hostname", () => {
    const zone = fc.domain().filter((d) => {
      const labels = d.split(".");
      const tld = labels[labels.length - 1];
      return !PRIVATE.includes(tld) && !d.endsWith("workers.dev") && !d.endsWith("home.arpa");
    });
    fc.assert(fc.property(zone, (d) => hasRouteOrigin(hostOf(d))));
    for (const host of [
      "api.example.com",
      "example.com",
      "API.Example.COM.",
      "shop.co.uk",
      "test.example.org",
      "localhost.example.com",
      "workers.dev.example.com",
    ]) {
      expect(hasRouteOrigin(hostOf(host)), host).toBe(true);
    }
  });
});
