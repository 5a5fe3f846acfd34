/**
 * Reading a request's JSON body end to end (docs/llm.md): `readJsonBody` on
 * real Requests in plain Node. A body another Content-Type names is not read,
 * an empty one has no document, the bytes the client sent go on to the
 * origin unchanged, and every body floodgate cannot take is a JsonBodyError
 * with its status (413 over the cap, 400 otherwise) and a message naming
 * what is wrong, never a 500.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonBodyError, memberAt, readJsonBody, readsAsJson, scalarAt } from "../../src/request/json-body.ts";

const post = (body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) =>
  new Request("https://example.com/v1/chat", { method: "POST", body, headers, ...(body instanceof ReadableStream ? { duplex: "half" } : {}) });

// The error a read throws, as the client sees it: its status and message.
async function refusal(read: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await read;
  } catch (error) {
    expect(error).toBeInstanceOf(JsonBodyError);
    const { status, message } = error as JsonBodyError;
    return { status, message };
  }
  throw new Error("the read did not fail");
}

describe("readJsonBody", () => {
  it("parses the body and hands on a request with the same bytes", async () => {
    const text = '{"model":"gpt-4o","max_tokens":5}';
    const read = await readJsonBody(post(text), 1024, [["model"]]);
    expect(read?.document).toEqual({ model: "gpt-4o", max_tokens: 5 });
    expect(read?.request.method).toBe("POST");
    expect(read?.request.url).toBe("https://example.com/v1/chat");
    expect(read?.request.headers.get("content-type")).toBe("application/json");
    expect(await read?.request.text()).toBe(text);
  });

  it("reads a body with no Content-Type as JSON (an origin would)", async () => {
    const request = new Request("https://example.com/", { method: "POST", body: new Uint8Array(new TextEncoder().encode('{"a":1}')) });
    expect(request.headers.get("content-type")).toBeNull();
    expect((await readJsonBody(request, 1024, []))?.document).toEqual({ a: 1 });
  });

  it("does not read a body of another type, nor a request without one", async () => {
    const text = post("model=a", { "content-type": "application/x-www-form-urlencoded" });
    expect(await readJsonBody(text, 1024, [])).toBeUndefined();
    // Not read: the request still has its whole body for the origin.
    expect(await text.text()).toBe("model=a");
    expect(await readJsonBody(new Request("https://example.com/"), 1024, [])).toBeUndefined();
    expect(await readJsonBody(post(null), 1024, [])).toBeUndefined();
  });

  it("an empty body has no document, and still goes on", async () => {
    const read = await readJsonBody(post(""), 1024, []);
    expect(read).toBeDefined();
    expect(read?.document).toBeUndefined();
    expect(await read?.request.text()).toBe("");
  });

  it("a body at the cap is read; one byte over is a 413 naming the cap", async () => {
    const at = `{"a":"${"x".repeat(10)}"}`; // 18 bytes
    expect((await readJsonBody(post(at), 18, []))?.document).toEqual({ a: "x".repeat(10) });
    expect(await refusal(readJsonBody(post(at), 17, []))).toEqual({
      status: 413,
      message: "The request body is larger than MAX_JSON_BODY_BYTES (17 bytes), the most this route reads to find its limits' values.",
    });
  });

  it("an upload broken off is a 400, not a 500", async () => {
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("connection reset"));
      },
    });
    expect(await refusal(readJsonBody(post(broken), 1024, []))).toEqual({ status: 400, message: "The request body could not be read to its end." });
  });

  it("bytes that are not UTF-8 are a 400", async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]); // {"a":"\xff"}
    expect(await refusal(readJsonBody(post(bytes), 1024, []))).toEqual({
      status: 400,
      message: "The request body is not valid UTF-8, which JSON must be.",
    });
  });

  it("a leading byte order mark is dropped, as UTF-8 decoders do, and the body parses", async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a":1}')]);
    expect((await readJsonBody(post(bom), 1024, []))?.document).toEqual({ a: 1 });
  });

  it("malformed JSON is a 400 naming where and what was expected", async () => {
    expect(await refusal(readJsonBody(post('{"model": "m",\n "max_tokens": 5,}'), 1024, []))).toEqual({
      status: 400,
      message: "The request body is not valid JSON at line 2, column 18 (character 32): expected a member name in double quotes.",
    });
  });

  it("a member read twice is a 400 naming it; one not read may repeat", async () => {
    expect(await refusal(readJsonBody(post('{"model":"a","model":"b"}'), 1024, [["model"]]))).toEqual({
      status: 400,
      message: 'The request body has the member "model" more than once; send it once (origins differ on which copy they read).',
    });
    expect((await readJsonBody(post('{"user":"a","user":"b","model":"m"}'), 1024, [["model"]]))?.document).toEqual({ user: "b", model: "m" });
  });
});

describe("readsAsJson", () => {
  it("takes the type before its parameters, trimmed, any case", () => {
    expect(readsAsJson("application/json;charset=utf-8")).toBe(true);
    expect(readsAsJson("  Application/Problem+JSON ; q=1")).toBe(true);
    expect(readsAsJson(";application/json")).toBe(false);
    expect(readsAsJson("application/jsonx")).toBe(false);
    expect(readsAsJson("text/json")).toBe(false);
  });
});

describe("scalarAt and memberAt", () => {
  it("numbers in their shortest form; infinities, NaN and non-numbers are no value", () => {
    fc.assert(
      fc.property(fc.double(), (n) => {
        expect(scalarAt({ n }, ["n"])).toBe(Number.isFinite(n) ? String(n) : undefined);
      }),
    );
    expect(scalarAt({ n: true }, ["n"])).toBeUndefined();
    expect(scalarAt({ n: null }, ["n"])).toBeUndefined();
  });

  it("own members only, through objects only", () => {
    expect(memberAt({ a: { b: 1 } }, ["a", "b"])).toBe(1);
    expect(memberAt({ a: [1] }, ["a", "0"])).toBeUndefined();
    expect(memberAt({ a: null }, ["a", "b"])).toBeUndefined();
    expect(memberAt({}, ["toString"])).toBeUndefined();
    expect(memberAt(JSON.parse('{"__proto__":{"x":2}}'), ["__proto__", "x"])).toBe(2);
    expect(memberAt("text", [])).toBe("text");
  });
});
