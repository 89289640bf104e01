// aclog ui: the Timeline chart (uPlot, shipped beside this file) and the live refresh.
// Loaded from 'self' only: the Content-Security-Policy allows no inline script.
"use strict";

const PALETTE = ["#2b9348", "#c1121f", "#7209b7", "#f77f00", "#0077b6", "#6a994e", "#8d99ae"];
const WHOLE = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 1e5, 1e6, 1e7];

// The per-batch series: added above 0 and removed below, in total or per key of the split.
function changeSeries(points, split) {
  const dots = (stroke, fill) => ({ scale: "per", stroke, points: { show: true, size: 7, fill }, paths: () => null });
  const some = (values, sign) => values.map((n) => (n ? sign * n : null)); // no point where none
  if (!split) {
    return [
      [{ label: "added", ...dots("#2b9348", "#2b9348") }, some(points.map((p) => p.added), 1)],
      [{ label: "removed", ...dots("#c1121f", "#c1121f") }, some(points.map((p) => p.removed), -1)],
    ];
  }
  const found = [];
  split.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    found.push([{ label: s.label + " +", ...dots(color, color) }, some(s.added, 1)]);
    found.push([{ label: s.label + " −", ...dots(color, "#fff") }, some(s.removed, -1)]);
  });
  return found;
}

function drawTimeline(box, data) {
  const points = data.points;
  if (points.length === 0) {
    box.textContent = "No committed batch yet.";
    return;
  }
  const changes = changeSeries(points, data.split);
  const series = [
    points.map((p) => p.timestamp / 1000),
    points.map((p) => p.bindings),
    ...changes.map(([, values]) => values),
  ];
  const per = data.split ? "ACLs per batch by " + data.split.by + " (count; removals below 0)" : "ACLs per batch (count; removals below 0)";
  const opts = {
    width: Math.max(480, box.clientWidth - 8),
    height: 360,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC"),
    scales: { x: { time: true }, count: {}, per: {} },
    axes: [
      { label: "time (UTC)" },
      { scale: "count", label: "bindings held (count)", incrs: WHOLE },
      { scale: "per", side: 1, label: per, incrs: WHOLE, grid: { show: false } },
    ],
    series: [
      { label: "time (UTC)" },
      { label: "bindings", scale: "count", stroke: "#2a6f97", width: 2, paths: uPlot.paths.stepped({ align: 1 }) },
      ...changes.map(([options]) => options),
    ],
    cursor: { drag: { x: false, y: false } },
  };
  const plot = new uPlot(opts, series, box);
  plot.over.addEventListener("click", () => {
    const idx = plot.cursor.idx;
    if (idx !== null && idx !== undefined) {
      window.location.assign("/state?at_offset=" + encodeURIComponent(points[idx].offset));
    }
  });
  box.dataset.ready = "yes";
}

function loadTimeline() {
  const box = document.getElementById("chart");
  if (!box) return;
  fetch(box.dataset.source, { credentials: "same-origin" })
    .then((r) => r.json())
    .then((data) => drawTimeline(box, data))
    .catch((e) => { box.textContent = "Cannot load the chart: " + e; });
}

// A view of "now" reloads when a writer commits, so new changes appear without a restart.
function followLog() {
  if (document.body.dataset.now !== "yes" || document.getElementById("problem")) return;
  let seen = null;
  const poll = () => {
    fetch("/api/end", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((end) => {
        if (end === null) return;
        if (seen !== null && end.last_offset !== seen) window.location.reload();
        seen = end.last_offset;
        document.body.dataset.seen = String(seen); // where the log ended at the last look
      })
      .catch(() => {});
  };
  poll();
  window.setInterval(poll, 2000);
}

document.addEventListener("DOMContentLoaded", () => {
  loadTimeline();
  followLog();
});
