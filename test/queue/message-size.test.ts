/**
 * A queued request's whole message (JSON: URL, headers, base64 body) against
 * Cloudflare Queues' 128 KB limit, which its ~100 bytes of metadata count
 * toward: up to QUEUE_MAX_MESSAGE_BYTES is queued (202); one byte more is a
 * 413 that names both sizes, never a 503 the client would retry forever.
 * Real (local) Queues; the size is steered with one header's length.
 */
import { describe, expect, it } from "vitest";
import { QUEUE_MAX_BODY_BYTES, QUEUE_MAX_MESSAGE_BYTES, QUEUE_METADATA_MARGIN_BYTES, QUEUE_PLATFORM_MESSAGE_BYTES } from "../../src/queue/message.ts";
import { uniqueIp } from "../support/app.ts";
import { queueGateway, queueRules } from "./support.ts";

describe("queue message size", () => {
  it("leaves the platform's metadata margin: 128,000 less 256 bytes", () => {
    expect([QUEUE_PLATFORM_MESSAGE_BYTES, QUEUE_METADATA_MARGIN_BYTES, QUEUE_MAX_MESSAGE_BYTES]).toEqual([128_000, 256, 127_744]);
  });

  // Local Queues (miniflare) refuse past 128,000 bytes and add no metadata, so only the constants above show the
  // margin; this holds the 413 at floodgate's own limit. Break tried: the margin at 0: the constants check failed,
  // this one held (the queue's own refusal of 128,001 bytes is mapped to 413 too).
  it("queues a message of exactly QUEUE_MAX_MESSAGE_BYTES and answers 413, naming the sizes, to one byte more", async () => {
    const call = queueGateway(queueRules({ unit: "minute", requests_per_unit: 1, algorithm: "token_bucket" }));
    const ip = uniqueIp();
    expect((await call("/first", { ip, method: "POST", body: "x" })).status).toBe(200);
    const body = new Uint8Array(QUEUE_MAX_BODY_BYTES).fill(65);
    const send = (padding: number) => call("/big", { ip, method: "POST", body, headers: { "x-padding": "p".repeat(padding) } });
    // A first try far over the limit says how large that message was; the padding is then set to land on the limit.
    const probe = await send(60_000);
    expect(probe.status).toBe(413);
    const probed = await probe.json<{ status: number; message_bytes: number; max_message_bytes: number; max_body_bytes: number; detail: string }>();
    expect(probed).toMatchObject({ status: 413, max_message_bytes: QUEUE_MAX_MESSAGE_BYTES, max_body_bytes: QUEUE_MAX_BODY_BYTES });
    expect(probed.detail).toBe(
      `The request (headers and body) makes a queue message of ${probed.message_bytes} bytes; at most ${QUEUE_MAX_MESSAGE_BYTES} are queued.`,
    );
    const atLimit = 60_000 - (probed.message_bytes - QUEUE_MAX_MESSAGE_BYTES);
    const over = await send(atLimit + 1);
    expect(over.status).toBe(413);
    expect(over.headers.get("content-type")).toBe("application/problem+json");
    expect(await over.json()).toMatchObject({ message_bytes: QUEUE_MAX_MESSAGE_BYTES + 1 });
    const fits = await send(atLimit);
    expect(fits.status).toBe(202);
  });
});
