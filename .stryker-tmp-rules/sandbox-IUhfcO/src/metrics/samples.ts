/**
 * Counter samples as they travel from isolates to the MetricsObject and on
 * to the Prometheus text: a metric name, its labels in print order, a value.
 * Plain data, so a batch crosses RPC by structured clone.
 */
// @ts-nocheck


/** One counter. Labels are [name, value] pairs in the order they are printed. */
export interface Sample {
  readonly name: string;
  readonly labels: readonly (readonly [string, string])[];
  readonly value: number;
}

/** Label value of a series folded into the overflow series once a cap is reached. */
export const OVERFLOW = "_overflow";

/**
 * The identity of a series: name plus labels. JSON keeps it unambiguous
 * whatever the label values contain.
 *
 * @example
 * sampleId({ name: "x", labels: [["domain", "api"]], value: 1 }); // '["x",[["domain","api"]]]'
 */
export function sampleId(sample: Pick<Sample, "name" | "labels">): string {
  return JSON.stringify([sample.name, sample.labels]);
}

/**
 * A bounded sum of samples: adding to a series that exists adds to its value;
 * a new series past `maxSeries` is folded into its overflow series (every
 * label value `_overflow`), so cardinality stays bounded whatever
 * `detailed_metric` values or unknown domains clients send.
 *
 * @example
 * const sums = new SampleSums(1000);
 * sums.add({ name: "ratelimit_service_rate_limit_total_hits", labels: [["domain", "api"]], value: 1 });
 * sums.take(); // [{ name: "ratelimit_service_rate_limit_total_hits", labels: [["domain", "api"]], value: 1 }]
 */
export class SampleSums {
  private readonly maxSeries: number;
  private series = new Map<string, { name: string; labels: readonly (readonly [string, string])[]; value: number }>();

  constructor(maxSeries: number) {
    this.maxSeries = maxSeries;
  }

  /** Number of distinct series held. */
  get size(): number {
    return this.series.size;
  }

  /** Add `sample.value` to its series (creating it, or its overflow series when full). */
  add(sample: Sample): void {
    let id = sampleId(sample);
    let entry = this.series.get(id);
    if (entry === undefined && this.series.size >= this.maxSeries) {
      const folded: Sample = { name: sample.name, labels: sample.labels.map(([k]) => [k, OVERFLOW] as const), value: 0 };
      id = sampleId(folded);
      entry = this.series.get(id);
      if (entry === undefined) this.series.set(id, (entry = { name: folded.name, labels: folded.labels, value: 0 }));
    } else if (entry === undefined) {
      this.series.set(id, (entry = { name: sample.name, labels: sample.labels, value: 0 }));
    }
    entry.value += sample.value;
  }

  /** Every series, emptying the sums. */
  take(): Sample[] {
    const all = [...this.series.values()];
    this.series = new Map();
    return all;
  }
}
