/**
 * The dashboard's only script of its own: draws every `.chart` element with uPlot from the
 * JSON in its `<script type="application/json">`, on load and after each htmx swap. Kept as a
 * file (no inline script), so the pages run under a strict Content-Security-Policy.
 */
export const APP_JS = `
(function () {
  "use strict";
  // Twelve distinct colours: a panel with one series per entity and measure stays readable.
  var palette = ["#1f5fbf", "#c62828", "#1a7f37", "#9a6700", "#6f42c1", "#0f766e",
    "#d6336c", "#5c940d", "#e8590c", "#1098ad", "#495057", "#9c36b5"];
  function draw(el) {
    if (el.dataset.drawn) return;
    var src = el.querySelector("script[type='application/json']");
    if (!src) return;
    var spec = JSON.parse(src.textContent);
    el.dataset.drawn = "1";
    if (!spec.x.length) return;
    var series = [{ label: spec.time ? "time" : "#" }];
    spec.series.forEach(function (s, i) {
      series.push({ label: s.label, stroke: palette[i % palette.length], width: 2, spanGaps: true });
    });
    var bands = [];
    if (spec.band) {
      bands.push({ series: [spec.band.upper + 1, spec.band.lower + 1], fill: "rgba(31,95,191,0.12)" });
    }
    if (spec.labels) {
      // Ordinal charts: the legend names the point under the cursor (e.g. a run's start).
      series[0].value = function (u, v) { var i = spec.x.indexOf(v); return i < 0 ? "" : spec.labels[i]; };
      series[0].label = "run";
    }
    var width = Math.max(260, Math.min(el.clientWidth || 600, 1100));
    var data = [spec.x].concat(spec.series.map(function (s) { return s.values; }));
    var plot = new uPlot({
      width: width, height: 220, series: series, bands: bands,
      // The y axis as drawn, for whoever checks the chart (tests, a curious operator).
      hooks: { draw: [function (u) { el.dataset.yRange = u.scales.y.min + ".." + u.scales.y.max; }] },
      // Every time on the dashboard is UTC: the charts' axes too, as the tables.
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); },
      scales: spec.y ? { x: { time: !!spec.time }, y: { range: [spec.y.min, spec.y.max] } } : { x: { time: !!spec.time } },
      axes: [spec.time ? {} : { incrs: [1, 2, 5, 10, 20, 50, 100], values: function (u, vs) { return vs.map(function (v) { return "#" + v; }); } },
        spec.y && spec.y.step ? { size: 60, incrs: [spec.y.step] } : { size: 60 }],
    }, data, el);
    el.dataset.series = String(plot.series.length - 1);
  }
  function drawAll(root) {
    var els = (root || document).querySelectorAll(".chart");
    for (var i = 0; i < els.length; i++) draw(els[i]);
  }
  // A product image whose host cannot be reached: a labelled placeholder of the same size
  // instead of a broken-image icon.
  function placeholder(img) {
    if (!img.parentNode || img.dataset.missing) return;
    img.dataset.missing = "1";
    var box = document.createElement("span");
    box.className = "panel-img img-missing";
    box.setAttribute("role", "img");
    box.setAttribute("aria-label", "image unavailable");
    box.title = "image unavailable (its host could not be reached)";
    img.replaceWith(box);
  }
  function watchImages(root) {
    var imgs = (root || document).querySelectorAll("img.panel-img");
    for (var i = 0; i < imgs.length; i++) {
      var img = imgs[i];
      if (img.complete && img.naturalWidth === 0 && img.getAttribute("src")) placeholder(img);
      else img.addEventListener("error", function (e) { placeholder(e.target); });
    }
  }
  function menu() {
    var button = document.querySelector(".menu-toggle");
    if (!button) return;
    button.addEventListener("click", function () {
      var header = button.closest("header");
      var open = header.classList.toggle("open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }
  // Without this script the navigation stays spelled out; with it, a phone gets a menu button.
  document.documentElement.classList.add("js");
  if (window.htmx) window.htmx.onLoad(function (el) { drawAll(el); watchImages(el); });
  document.addEventListener("DOMContentLoaded", function () { drawAll(document); watchImages(document); menu(); });
})();
`;
