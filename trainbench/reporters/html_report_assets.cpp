#include <trainbench/reporters/html_report_assets.hpp>

#include <trainbench/matrix/precision_table.hpp>

namespace tb::html_assets {

const char* const kStyle = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1280px;
       padding: 16px 24px; color: #1b1f24; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.meta { color: #57606a; margin: 0 0 0.8em 0; }
.verdict { font-size: 1.1em; padding: 8px 12px; border-radius: 6px; background: #dafbe1; }
.verdict.trouble { background: #fff8c5; }
ul.warnings li { margin: 2px 0; }
.warn { color: #9a6700; font-weight: 600; }
.bad { color: #cf222e; font-weight: 600; }
table { border-collapse: collapse; font-size: 0.85em; margin: 8px 0; display: block; overflow-x: auto;
        max-width: 100%; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; white-space: nowrap; }
th { background: #f6f8fa; }
td.wrap { white-space: normal; min-width: 24em; }
.caption { color: #57606a; font-size: 0.8em; margin: 4px 0 0 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.status-failed td, tr.status-oom td, tr.status-crashed td { background: #ffebe9; }
tr.status-skipped td { background: #f6f8fa; color: #57606a; }
tr.drift td { background: #fff8c5; }
.charts { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 16px; }
.chart-card { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 12px; }
.chart-card h3 { font-size: 0.95em; margin: 4px 0 8px 0; }
.chart-box { position: relative; height: 320px; }
.note { padding: 8px 12px; border-left: 4px solid #bf8700; background: #fff8c5; }
#tb-chart-status { color: #57606a; font-size: 0.85em; }
code { font-size: 0.95em; }
)css";

const char* const kPrelude = R"js(
window.__tbChartsDrawn = 0;
window.__tbChartErrors = 0;
window.__tbErrorMessages = [];
window.addEventListener('error', function (e) {
  window.__tbChartErrors += 1;
  window.__tbErrorMessages.push(String(e.message));
});
)js";

namespace {

const char* const kDrawScriptHead = R"js(
(function () {
  'use strict';
  var status = document.getElementById('tb-chart-status');
  var data = JSON.parse(document.getElementById('tb-data').textContent);
  var PALETTE = ['#0969da', '#1a7f37', '#bf8700', '#8250df', '#cf222e', '#1b7c83', '#bc4c00',
                 '#6e7781'];
)js";

// "  var PRECISION_COLORS = { fp32: '#0969da', ... };" from the precision table.
std::string precision_colours_line() {
  std::string line = "  var PRECISION_COLORS = {";
  const char* separator = " ";
  for (const PrecisionDefinition& d : precision_table()) {
    line += separator + std::string(d.name) + ": '" + d.chart_colour + "'";
    separator = ", ";
  }
  return line + " };\n";
}

const char* const kDrawScriptBody = R"js(  var VERDICT_COLORS = { faster: '#2da44e', slower: '#cf222e', same: '#8c959f', noisy: '#8c959f' };

  // Whiskers for [low, high] intervals on bar charts (dataset.errorBars), plus a dashed
  // reference line at y = dataset.referenceLine.
  var errorBarPlugin = {
    id: 'tbErrorBars',
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx, y = chart.scales.y;
      chart.data.datasets.forEach(function (ds, di) {
        var meta = chart.getDatasetMeta(di);
        if (meta.hidden) return;
        if (ds.referenceLine !== undefined) {
          var ry = y.getPixelForValue(ds.referenceLine);
          ctx.save();
          ctx.setLineDash([6, 4]);
          ctx.strokeStyle = '#57606a';
          ctx.beginPath();
          ctx.moveTo(chart.chartArea.left, ry);
          ctx.lineTo(chart.chartArea.right, ry);
          ctx.stroke();
          ctx.restore();
        }
        if (!ds.errorBars) return;
        meta.data.forEach(function (bar, i) {
          var eb = ds.errorBars[i];
          if (!eb) return;
          var x = bar.x, top = y.getPixelForValue(eb[1]), bottom = y.getPixelForValue(eb[0]);
          var half = Math.max(3, (bar.width || 12) / 4);
          ctx.save();
          ctx.strokeStyle = '#1b1f24';
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(x, top); ctx.lineTo(x, bottom);
          ctx.moveTo(x - half, top); ctx.lineTo(x + half, top);
          ctx.moveTo(x - half, bottom); ctx.lineTo(x + half, bottom);
          ctx.stroke();
          ctx.restore();
        });
      });
    }
  };

  function axes(xTitle, yTitle, extraX, extraY) {
    var x = Object.assign({ title: { display: !!xTitle, text: xTitle } }, extraX || {});
    var y = Object.assign({ title: { display: !!yTitle, text: yTitle } }, extraY || {});
    return { x: x, y: y };
  }

  function config(spec) {
    var base = { responsive: true, maintainAspectRatio: false, animation: false };
    if (spec.kind === 'speedup') {
      var colors = spec.verdicts.map(function (v, i) {
        return spec.loss_parity_ok[i] ? (VERDICT_COLORS[v] || '#8c959f') : '#d4a72c';
      });
      return {
        type: 'bar',
        data: { labels: spec.labels, datasets: [{ label: 'speed-up (bars) with 95% CI (whiskers)',
          data: spec.values, backgroundColor: colors, errorBars: spec.error_bars, referenceLine: 1 }] },
        options: Object.assign(base, {
          scales: axes('', spec.y_title, {}, { beginAtZero: true,
            suggestedMax: Math.max.apply(null, spec.error_bars.map(function (b) { return b[1]; })) * 1.05 }),
          plugins: { legend: { display: false }, tooltip: { callbacks: { afterLabel: function (c) {
            var b = spec.error_bars[c.dataIndex];
            return 'CI [' + b[0] + ', ' + b[1] + '] ' + spec.verdicts[c.dataIndex] +
              (spec.loss_parity_ok[c.dataIndex] ? '' : ' (loss parity FAILED)');
          } } } }
        }),
        plugins: [errorBarPlugin]
      };
    }
    if (spec.kind === 'phases') {
      return {
        type: 'bar',
        data: { labels: spec.labels, datasets: spec.datasets.map(function (d, i) {
          return { label: d.label, data: d.data, backgroundColor: PALETTE[i % PALETTE.length] };
        }) },
        options: Object.assign(base, { scales: axes('', spec.y_title, { stacked: true }, { stacked: true }) })
      };
    }
    if (spec.kind === 'scaling') {
      return {
        type: 'line',
        data: { datasets: spec.datasets.map(function (d, i) {
          var c = PALETTE[i % PALETTE.length];
          return { label: d.label, data: d.data, borderColor: c, backgroundColor: c, pointRadius: 4 };
        }) },
        options: Object.assign(base, { scales: axes(spec.x_title, spec.y_title,
          { type: 'linear', ticks: { precision: 0 } }, { beginAtZero: true }) })
      };
    }
    if (spec.kind === 'loss') {
      var longest = 0;
      spec.datasets.forEach(function (d) { longest = Math.max(longest, d.data.length); });
      var labels = [];
      for (var i = 0; i < longest; i++) labels.push(i);
      var seen = {};
      return {
        type: 'line',
        data: { labels: labels, datasets: spec.datasets.map(function (d) {
          var c = PRECISION_COLORS[d.precision] || '#6e7781';
          var dash = seen[d.precision] ? [5, 3] : [];
          seen[d.precision] = true;
          return { label: d.label, data: d.data, borderColor: c, backgroundColor: c, borderDash: dash,
                   pointRadius: 0, borderWidth: 2 };
        }) },
        options: Object.assign(base, { scales: axes(spec.x_title, spec.y_title) })
      };
    }
    throw new Error('unknown chart kind ' + spec.kind);
  }

  var container = document.getElementById('tb-charts');
  var failures = [];
  if (typeof Chart === 'undefined') {
    failures.push('Chart.js is not loaded');
  } else {
    data.charts.forEach(function (spec) {
      var card = document.createElement('div');
      card.className = 'chart-card';
      card.id = 'chart-' + spec.id;
      var title = document.createElement('h3');
      title.textContent = spec.title;
      var box = document.createElement('div');
      box.className = 'chart-box';
      var canvas = document.createElement('canvas');
      box.appendChild(canvas);
      card.appendChild(title);
      card.appendChild(box);
      if (spec.caption) {
        var caption = document.createElement('p');
        caption.className = 'caption';
        caption.textContent = spec.caption;
        card.appendChild(caption);
      }
      container.appendChild(card);
      try {
        new Chart(canvas, config(spec));
        window.__tbChartsDrawn += 1;
      } catch (e) {
        window.__tbChartErrors += 1;
        failures.push(spec.id + ': ' + e.message);
        var msg = document.createElement('p');
        msg.className = 'note';
        msg.textContent = 'Chart failed: ' + e.message;
        box.replaceWith(msg);
      }
    });
  }
  window.__tbErrorMessages = window.__tbErrorMessages.concat(failures);
  status.dataset.drawn = String(window.__tbChartsDrawn);
  status.dataset.errors = String(window.__tbChartErrors);
  status.dataset.expected = String(data.charts.length);
  status.textContent = window.__tbChartsDrawn + ' of ' + data.charts.length + ' charts drawn' +
    (window.__tbErrorMessages.length ? '; errors: ' + window.__tbErrorMessages.join('; ') : '');
})();
)js";

}  // namespace

const std::string& draw_script() {
  static const std::string script = kDrawScriptHead + precision_colours_line() + kDrawScriptBody;
  return script;
}

}  // namespace tb::html_assets
