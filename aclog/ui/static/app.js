// aclog ui: the Timeline chart (uPlot, shipped beside this file) and the live refresh.
// Loaded from 'self' only: the Content-Security-Policy allows no inline script.
"use strict";

function drawTimeline(box, data) {
  const points = data.points;
  if (points.length === 0) {
    box.textContent = "No committed batch yet.";
    return;
  }
  const xs = points.map((p) => p.timestamp / 1000);
  const series = [
    xs,
    points.map((p) => p.bindings),
    points.map((p) => (p.added ? p.added : null)), // no point where a batch added none
    points.map((p) => (p.removed ? -p.removed : null)),
  ];
  const whole = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 1e5, 1e6, 1e7];
  const opts = {
    width: Math.max(480, box.clientWidth - 8),
    height: 360,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC"),
    scales: { x: { time: true }, count: {}, per: {} },
    axes: [
      { label: "time (UTC)" },
      { scale: "count", label: "bindings held (count)", incrs: whole },
      { scale: "per", side: 1, label: "ACLs per batch (count; removals below 0)", incrs: whole, grid: { show: false } },
    ],
    series: [
      { label: "time (UTC)" },
      { label: "bindings", scale: "count", stroke: "#2a6f97", width: 2, paths: uPlot.paths.stepped({ align: 1 }) },
      { label: "added", scale: "per", stroke: "#2b9348", points: { show: true, size: 7 }, paths: () => null },
      { label: "removed", scale: "per", stroke: "#c1121f", points: { show: true, size: 7 }, paths: () => null },
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
