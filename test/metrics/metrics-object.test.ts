// The MetricsObject itself: sums per series, and the MAX_SERIES cap that
// folds new series into `_overflow` while known series keep counting.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_SERIES } from "../../src/durable/metrics/metrics-object.ts";
import type { Env } from "../../src/config.ts";
import { OVERFLOW, type Sample } from "../../src/metrics/samples.ts";

const series = (n: number, value = 1): Sample => ({ name: "t_total", labels: [["k", `v${n}`]], value });

describe("MetricsObject", () => {
  it("sums each series, caps new ones at MAX_SERIES into _overflow, and keeps counting the known ones", async () => {
    const stub = (env as unknown as Env).METRICS.getByName(`metrics-object-${Date.now()}`);
    await stub.add(Array.from({ length: MAX_SERIES }, (_, i) => series(i)));
    await stub.add([series(0, 2), series(MAX_SERIES, 5), series(MAX_SERIES + 1, 7), series(MAX_SERIES - 1, 3)]);
    const samples = await stub.read();
    expect(samples).toHaveLength(MAX_SERIES + 1);
    const of = (label: string) => samples.find((s) => s.labels[0][1] === label)?.value;
    expect(of("v0")).toBe(3);
    expect(of(`v${MAX_SERIES - 1}`)).toBe(4);
    expect(of(OVERFLOW)).toBe(12);
    expect(of(`v${MAX_SERIES}`)).toBeUndefined();
    expect(samples.reduce((sum, s) => sum + s.value, 0)).toBe(MAX_SERIES + 2 + 5 + 7 + 3);
  });
});
