// The MCP App that shows a Rappture run: every curve, histogram and sequence of the result's
// structuredContent as an SVG plot with axes, labels, units and a legend (curves sharing a
// group share a plot; a log scale is honoured), drawn from ui/notifications/tool-result. It
// speaks the App side of MCP Apps 2026-01-26 by hand, so it needs no external code.
export const PLOT_APP_MIME = "text/html;profile=mcp-app";

export function plotAppUri(tool: string): string {
  return `ui://rappture/${tool}/plot`;
}

export const plotAppPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="color-scheme" content="light dark">
<title>Rappture results</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 8px 12px; color: CanvasText; background: Canvas; }
  h3 { margin: 10px 0 4px; font-size: 15px; }
  svg { width: 100%; max-width: 680px; height: auto; display: block; }
  .axis { stroke: GrayText; stroke-width: 1; }
  .grid { stroke: GrayText; stroke-opacity: 0.25; stroke-width: 1; }
  .tick, .label { fill: GrayText; font-size: 11px; }
  .legend { font-size: 12px; fill: CanvasText; }
  .swatch { stroke-width: 3; }
  #status { margin: 6px 0; }
</style>
</head>
<body>
<p id="status">Waiting for the tool…</p>
<div id="plots"></div>
<script>
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLORS = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989"];
  var W = 680, H = 340, L = 64, R = 16, T = 14, B = 40;
  var plots = document.getElementById("plots"), status = document.getElementById("status");
  var nextId = 1, waiting = new Map();
  function send(m) { window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, m), "*"); }
  function request(method, params) { var id = nextId++; send({ id: id, method: method, params: params }); return new Promise(function (r) { waiting.set(id, r); }); }
  function el(parent, tag, attrs, text) {
    var n = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { n.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) n.textContent = text;
    parent.appendChild(n);
    return n;
  }
  function ticks(lo, hi, log) {
    if (log) { var out = []; for (var e = Math.floor(lo); e <= Math.ceil(hi); e++) out.push(e); return out; }
    var raw = (hi - lo) / 5 || 1, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    var s = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p, list = [];
    for (var v = Math.ceil(lo / s) * s; v <= hi + s * 1e-9; v += s) list.push(v);
    return list;
  }
  function fmt(v, log) { if (log) return "1e" + v; var a = Math.abs(v); return a !== 0 && (a >= 1e4 || a < 1e-2) ? v.toExponential(1) : String(Math.round(v * 1000) / 1000); }
  function title(axis, fallback) { return (axis && axis.label ? axis.label : fallback) + (axis && axis.units ? " (" + axis.units + ")" : ""); }
  function draw(name, series) {
    var first = series[0], xa = first.xaxis || {}, ya = first.yaxis || {};
    var xlog = xa.scale === "log", ylog = ya.scale === "log";
    var tx = function (v) { return xlog ? Math.log10(v) : v; }, ty = function (v) { return ylog ? Math.log10(v) : v; };
    var xs = [], ys = [];
    series.forEach(function (s) {
      s.points.forEach(function (p) {
        var half = s.kind === "histogram" ? (p[2] || 1) / 2 : 0;
        var x = tx(p[0]), y = ty(p[1]);
        if (!isFinite(x) || !isFinite(y)) return;
        xs.push(tx(p[0] - half), tx(p[0] + half)); ys.push(y);
        if (s.kind === "histogram" && !ylog) ys.push(0);
      });
    });
    xs = xs.filter(isFinite);
    if (!xs.length) return;
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (x1 === x0) x1 = x0 + 1; if (y1 === y0) y1 = y0 + 1;
    var px = function (x) { return L + ((x - x0) / (x1 - x0)) * (W - L - R); };
    var py = function (y) { return H - B - ((y - y0) / (y1 - y0)) * (H - T - B); };
    var h = document.createElement("h3"); h.textContent = name; plots.appendChild(h);
    var svg = el(plots, "svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": name });
    ticks(x0, x1, xlog).forEach(function (x) { el(svg, "line", { class: "grid", x1: px(x), x2: px(x), y1: py(y0), y2: py(y1) }); el(svg, "text", { class: "tick", x: px(x), y: H - B + 14, "text-anchor": "middle" }, fmt(x, xlog)); });
    ticks(y0, y1, ylog).forEach(function (y) { el(svg, "line", { class: "grid", x1: px(x0), x2: px(x1), y1: py(y), y2: py(y) }); el(svg, "text", { class: "tick", x: L - 6, y: py(y) + 4, "text-anchor": "end" }, fmt(y, ylog)); });
    el(svg, "line", { class: "axis", x1: px(x0), x2: px(x1), y1: py(y0), y2: py(y0) });
    el(svg, "line", { class: "axis", x1: px(x0), x2: px(x0), y1: py(y0), y2: py(y1) });
    el(svg, "text", { class: "label", x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, title(xa, "x"));
    el(svg, "text", { class: "label", x: 12, y: (T + H - B) / 2, transform: "rotate(-90 12 " + (T + H - B) / 2 + ")", "text-anchor": "middle" }, title(ya, "y"));
    series.forEach(function (s, i) {
      var color = COLORS[i % COLORS.length];
      if (s.kind === "histogram") {
        s.points.forEach(function (p) { var w = p[2] || (x1 - x0) / Math.max(s.points.length, 1); var left = px(tx(p[0] - w / 2)), right = px(tx(p[0] + w / 2)); el(svg, "rect", { x: left, y: py(ty(p[1])), width: Math.max(1, right - left - 1), height: Math.max(0, py(y0) - py(ty(p[1]))), fill: color, "fill-opacity": 0.6 }); });
      } else {
        el(svg, "polyline", { class: "series", fill: "none", stroke: color, "stroke-width": 2, points: s.points.map(function (p) { return px(tx(p[0])).toFixed(1) + "," + py(ty(p[1])).toFixed(1); }).join(" ") });
      }
      el(svg, "line", { class: "swatch", x1: W - R - 22, x2: W - R - 4, y1: T + 10 + 16 * i, y2: T + 10 + 16 * i, stroke: color });
      el(svg, "text", { class: "legend", x: W - R - 28, y: T + 14 + 16 * i, "text-anchor": "end" }, s.label);
    });
  }
  function render(outputs) {
    plots.replaceChildren();
    var groups = new Map(), count = 0;
    function add(key, s) { if (!groups.has(key)) groups.set(key, []); groups.get(key).push(s); count++; }
    Object.keys(outputs).forEach(function (id) {
      var o = outputs[id];
      if (!o || typeof o !== "object") return;
      if (o.kind === "curve") add(o.group || o.label || id, o);
      else if (o.kind === "histogram") add(o.label || id, { kind: "histogram", label: o.label, xaxis: o.xaxis, yaxis: o.yaxis, points: o.bars || [] });
      else if (o.kind === "sequence" && Array.isArray(o.elements)) {
        o.elements.forEach(function (e) { Object.keys(e.outputs || {}).forEach(function (k) { var c = e.outputs[k]; if (c && c.kind === "curve") add((o.label || id) + ": " + (c.label || k), Object.assign({}, c, { label: (o.index && o.index.label ? o.index.label + " = " : "") + e.index })); }); });
      }
    });
    groups.forEach(function (series, name) { draw(name, series); });
    status.textContent = count ? "" : "This run has no curves to plot.";
    send({ method: "ui/notifications/size-changed", params: { height: Math.ceil(document.body.getBoundingClientRect().bottom + 8) } });
  }
  window.addEventListener("message", function (event) {
    var m = event.data;
    if (event.source !== window.parent || !m || m.jsonrpc !== "2.0") return;
    if (m.id !== undefined && !m.method && waiting.has(m.id)) { waiting.get(m.id)(m.result); waiting.delete(m.id); }
    else if (m.method === "ui/notifications/tool-result") {
      if (m.params && m.params.isError) status.textContent = "The tool reported an error.";
      else render((m.params && m.params.structuredContent) || {});
    } else if (m.method === "ui/notifications/tool-cancelled") status.textContent = "The run was cancelled.";
    else if (m.method === "ui/resource-teardown" && m.id !== undefined) send({ id: m.id, result: {} });
  });
  request("ui/initialize", { appInfo: { name: "rappture-plot", version: "1.0.0" }, appCapabilities: {}, protocolVersion: "2026-01-26" })
    .then(function () { send({ method: "ui/notifications/initialized", params: {} }); });
})();
</script>
</body>
</html>
`;
