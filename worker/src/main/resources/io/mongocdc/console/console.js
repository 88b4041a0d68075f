// Draws the mirror page's charts from the batches the page holds as JSON (uPlot), and marks each
// chart with the number of points drawn (data-points), which the console's browser test reads.
document.addEventListener("DOMContentLoaded", function () {
  var data = document.getElementById("batches");
  if (!data) {
    return;
  }
  var b = JSON.parse(data.textContent);
  var charts = {
    records: [{ label: "records/s", stroke: "#4e79a7", values: b.records_per_second }],
    freshness: [
      { label: "p50 s", stroke: "#59a14f", values: b.freshness_p50_ms.map(toSeconds) },
      { label: "p99 s", stroke: "#e15759", values: b.freshness_p99_ms.map(toSeconds) }
    ],
    duration: [{ label: "seconds", stroke: "#f28e2b", values: b.seconds }]
  };
  function toSeconds(ms) { return ms == null ? null : ms / 1000; }
  document.querySelectorAll("[data-chart]").forEach(function (element) {
    var series = charts[element.dataset.chart];
    var columns = [b.ended_epoch].concat(series.map(function (s) { return s.values; }));
    var options = {
      width: 460, height: 220,
      series: [{}].concat(series.map(function (s) {
        return { label: s.label, stroke: s.stroke, width: 1.5, points: { show: b.ended_epoch.length < 40 } };
      }))
    };
    new uPlot(options, columns, element);
    element.dataset.points = String(b.ended_epoch.length);
  });
});
