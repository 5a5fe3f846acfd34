// @ts-nocheck
// Time-series charts drawn by uPlot (vendor/, copied from node_modules by
// scripts/build-dashboard.mjs). One chart per policy, updated in place.

export const TRAFFIC_SERIES = [
  { label: "allowed/s", stroke: "#12b76a", width: 1.5 },
  { label: "limited/s", stroke: "#f04438", width: 1.5 },
  { label: "near limit/s", stroke: "#f79009", width: 1.5 },
  { label: "shadow would limit/s", stroke: "#7a5af8", width: 1.5, dash: [4, 4] },
];

export const FAILURE_SERIES = [
  { label: "failure-open/s", stroke: "#f79009", width: 1.5 },
  { label: "failure-closed/s", stroke: "#f04438", width: 1.5 },
];

/**
 * uPlot's data for the last `seconds` of the view: every bucket start on x,
 * per series hits per second (buckets the view leaves out had no hits).
 */
export function chartData(view, rows, columns, seconds) {
  const step = view.bucket_seconds;
  const from = Math.max(view.from, view.to - seconds + step);
  const xs = [];
  for (let t = from; t <= view.to; t += step) xs.push(t);
  const ys = Array.from({ length: columns }, () => new Array(xs.length).fill(0));
  for (const row of rows) {
    const i = (row[0] - from) / step;
    if (i >= 0 && i < xs.length) for (let c = 0; c < columns; c++) ys[c][i] = row[c + 1] / step;
  }
  return [xs, ...ys];
}

/** Draw `data` in `box`, creating the chart on first use; returns the chart. */
export function drawChart(chart, box, series, data) {
  if (chart !== undefined) {
    chart.setData(data);
    return chart;
  }
  const opts = {
    width: Math.max(320, box.clientWidth || 800),
    height: 170,
    series: [{}, ...series],
    axes: [{}, { label: "per second", size: 60 }],
    scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
  };
  return new globalThis.uPlot(opts, data, box);
}

/** Keep charts as wide as their boxes. */
export function fitCharts(charts) {
  for (const [chart, box] of charts) chart.setSize({ width: Math.max(320, box.clientWidth), height: 170 });
}
