/**
 * The misconfigured 503 as clients see it (docs/headers.md): a fixed problem
 * type, with the bad value and the reason only in the Worker's log.
 */
import { expect, vi } from "vitest";
import { PROBLEM_TYPES } from "../../src/http/problem.ts";

/**
 * Send one request with `send` and check it is the misconfigured 503, that
 * its body never shows `value`, and that the log names `variable` and `value`.
 *
 * @example
 * await expectQuietMisconfigured(() => gateway(rules, { SHADOW_MODE: "maybe" })("/x"), "SHADOW_MODE", "maybe");
 */
export async function expectQuietMisconfigured(send: () => Promise<Response>, variable: string, value: string): Promise<void> {
  const logged: string[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => void logged.push(String(line)));
  try {
    const res = await send();
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text).type).toBe(PROBLEM_TYPES.misconfigured);
    expect(text).not.toContain(value);
    expect(logged.join("\n")).toContain(variable);
    expect(logged.join("\n")).toContain(value);
  } finally {
    spy.mockRestore();
  }
}
