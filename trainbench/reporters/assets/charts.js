(function () {
  'use strict';
  var status = document.getElementById('tb-chart-status');
  var data = JSON.parse(document.getElementById('tb-data').textContent);
  // Tableau 10: a qualitative palette whose neighbours stay apart (and apart in greyscale).
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1',
                 '#ff9da7', '#9c755f', '#bab0ac'];
  var PRECISION_COLORS = /*@precision_colours@*/ {};
  var VERDICT_COLORS = { faster: '#2da44e', slower: '#cf222e', same: '#8c959f', noisy: '#8c959f' };

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

  // Dotted vertical lines at options.plugins.tbMarkers.x (step numbers), labelled.
  var markerPlugin = {
    id: 'tbMarkers',
    afterDatasetsDraw: function (chart, args, opts) {
      if (!opts || !opts.x || !opts.x.length) return;
      var ctx = chart.ctx, area = chart.chartArea, xs = chart.scales.x;
      ctx.save();
      ctx.setLineDash([2, 3]);
      ctx.strokeStyle = opts.color || '#8c959f';
      ctx.fillStyle = '#57606a';
      ctx.font = '10px system-ui, sans-serif';
      opts.x.forEach(function (v) {
        var px = xs.getPixelForValue(v);
        if (px < area.left || px > area.right) return;
        ctx.beginPath(); ctx.moveTo(px, area.top); ctx.lineTo(px, area.bottom); ctx.stroke();
      });
      // One label per line (history change points: "+8.1%"), staggered so neighbours stay legible.
      if (opts.labels) {
        ctx.textAlign = 'left';
        opts.labels.forEach(function (text, i) {
          var lx = xs.getPixelForValue(opts.x[i]);
          if (lx < area.left || lx > area.right || !text) return;
          ctx.fillText(text, Math.min(lx + 3, area.right - ctx.measureText(text).width), area.top + 10 + 11 * (i % 2));
        });
      }
      if (opts.label && opts.x.length === 1) {
        var lx = xs.getPixelForValue(opts.x[0]);
        ctx.textAlign = lx > (area.left + area.right) / 2 ? 'right' : 'left';
        ctx.fillText(opts.label, lx + (ctx.textAlign === 'right' ? -4 : 4), area.top + 10);
      }
      ctx.restore();
    }
  };

  function axes(xTitle, yTitle, extraX, extraY) {
    var x = Object.assign({ title: { display: !!xTitle, text: xTitle } }, extraX || {});
    var y = Object.assign({ title: { display: !!yTitle, text: yTitle } }, extraY || {});
    return { x: x, y: y };
  }

  // Legends sit below the plot with small boxes, so they take rows of their own instead of
  // squeezing or covering the plot area.
  function legend(extra) {
    return Object.assign({ position: 'bottom', labels: { boxWidth: 12, boxHeight: 8, padding: 6,
      font: { size: 11 } } }, extra || {});
  }

  function colour(i) { return PALETTE[i % PALETTE.length]; }

  function points(values) {
    return values.map(function (v, i) { return { x: i + 1, y: v }; });
  }

  // The id of the scenario behind a line, as the tooltip title (legends show short labels).
  function scenarioTitle(spec) {
    return function (items) {
      if (!items.length) return '';
      var d = spec.datasets[items[0].datasetIndex];
      return (d && d.scenario ? d.scenario : '') + ' · step ' + items[0].parsed.x;
    };
  }

  // Precision colours when every line is another precision (the same colours in every chart),
  // else the palette by position.
  // The full scenario id of a bar (axis labels are shortened).
  function idTitle(spec) {
    return function (items) { return items.length ? spec.ids[items[0].dataIndex] : ''; };
  }

  function lineSeries(spec, extra) {
    var seen = {}, byPrecision = spec.datasets.every(function (d) {
      var fresh = d.precision && PRECISION_COLORS[d.precision] && !seen[d.precision];
      seen[d.precision] = true;
      return fresh;
    });
    return spec.datasets.map(function (d, i) {
      var c = byPrecision ? PRECISION_COLORS[d.precision] : colour(i);
      return Object.assign({ label: d.label, data: points(d.data), borderColor: c, backgroundColor: c,
        pointRadius: 0, pointHoverRadius: 3, borderWidth: 1.5 }, extra || {});
    });
  }

  function gib(b) { return b / 1073741824; }

  function capacityConfig(spec, base) {
    var fits = spec.probes.filter(function (p) { return p.fits; })
      .sort(function (p, q) { return p.batch - q.batch; });
    var failed = spec.probes.filter(function (p) { return !p.fits; });
    var batches = spec.probes.map(function (p) { return p.batch; });
    var lo = Math.min.apply(null, batches), hi = Math.max.apply(null, batches);
    var memTop = 0;
    fits.forEach(function (p) { memTop = Math.max(memTop, gib(p.peak_bytes)); });
    var datasets = [
      { label: 'samples/s', data: fits.map(function (p) { return { x: p.batch, y: p.samples_per_s }; }),
        borderColor: PALETTE[0], backgroundColor: PALETTE[0], yAxisID: 'y', pointRadius: 3, borderWidth: 2 },
      { label: 'peak memory (GiB)', data: fits.filter(function (p) { return p.peak_bytes > 0; })
          .map(function (p) { return { x: p.batch, y: gib(p.peak_bytes) }; }),
        borderColor: PALETTE[1], backgroundColor: PALETTE[1], yAxisID: 'y1', showLine: false,
        pointRadius: 4, pointStyle: 'rectRot' }
    ];
    if (spec.memory_fit) {
      var fit = [];
      for (var b = lo; b <= hi * 1.0001; b *= Math.SQRT2)
        fit.push({ x: b, y: gib(spec.memory_fit.fixed_bytes + spec.memory_fit.per_sample_bytes * b) });
      fit.forEach(function (p) { memTop = Math.max(memTop, p.y); });
      datasets.push({ label: 'memory model', data: fit, borderColor: PALETTE[1], borderDash: [6, 4],
        borderWidth: 1.5, pointRadius: 0, yAxisID: 'y1' });
    }
    if (spec.memory_limit_bytes > 0) {
      var limit = gib(spec.memory_limit_bytes);
      memTop = Math.max(memTop, limit);
      datasets.push({ label: 'memory budget', data: [{ x: lo, y: limit }, { x: hi, y: limit }],
        borderColor: '#cf222e', borderWidth: 1.5, pointRadius: 0, yAxisID: 'y1' });
    }
    if (failed.length)
      datasets.push({ label: 'did not fit', data: failed.map(function (p) { return { x: p.batch, y: 0 }; }),
        borderColor: '#cf222e', backgroundColor: '#cf222e', showLine: false, pointRadius: 6,
        pointStyle: 'crossRot', borderWidth: 2, yAxisID: 'y' });
    return {
      type: 'line',
      data: { datasets: datasets },
      options: Object.assign(base, {
        scales: {
          x: { type: 'logarithmic', title: { display: true, text: spec.x_title },
               // Powers of two only: the search's bisection near the limit probes batches too
               // close together to label.
               afterBuildTicks: function (axis) {
                 var ticks = [];
                 for (var t = Math.pow(2, Math.ceil(Math.log2(lo))); t <= hi; t *= 2) ticks.push({ value: t });
                 axis.ticks = ticks;
               },
               ticks: { autoSkip: true, maxRotation: 0, callback: function (v) { return String(v); } } },
          y: { beginAtZero: true, position: 'left', title: { display: true, text: 'samples/s' } },
          y1: { beginAtZero: true, position: 'right', suggestedMax: memTop * 1.05,
                title: { display: true, text: 'peak memory (GiB)' }, grid: { drawOnChartArea: false } }
        },
        plugins: { legend: legend(), tbMarkers: spec.best_batch > 0 ?
            { x: [spec.best_batch], label: 'best batch ' + spec.best_batch } : { x: [] },
          tooltip: { callbacks: { title: function (items) {
            return items.length ? 'batch ' + Math.round(items[0].parsed.x) : ''; } } } }
      }),
      plugins: [markerPlugin]
    };
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
          plugins: { legend: { display: false }, tooltip: { callbacks: { title: idTitle(spec),
            afterLabel: function (c) {
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
          return { label: d.label, data: d.data, backgroundColor: colour(i) };
        }) },
        options: Object.assign(base, { scales: axes('', spec.y_title, { stacked: true }, { stacked: true }),
          plugins: { legend: legend(), tooltip: { callbacks: { title: idTitle(spec), afterTitle: function (items) {
            return items.length ? 'effective batch ' + spec.effective_batch[items[0].dataIndex] : '';
          } } } } })
      };
    }
    if (spec.kind === 'scaling') {
      return {
        type: 'line',
        data: { datasets: spec.datasets.map(function (d, i) {
          var c = colour(i);
          return { label: d.label, data: d.data, borderColor: c, backgroundColor: c, pointRadius: 4 };
        }) },
        options: Object.assign(base, { scales: axes(spec.x_title, spec.y_title,
          { type: 'linear', ticks: { precision: 0 } }, { beginAtZero: true }), plugins: { legend: legend() } })
      };
    }
    if (spec.kind === 'loss' || spec.kind === 'step_times') {
      var markers = { x: [] };
      if (spec.kind === 'loss' && spec.common_step > 0) {
        markers = { x: [spec.common_step], label: 'step ' + spec.common_step + ' (common)' };
      } else if (spec.kind === 'step_times' && spec.datasets.length) {
        var first = JSON.stringify(spec.datasets[0].segment_starts);
        var shared = spec.datasets.every(function (d) { return JSON.stringify(d.segment_starts) === first; });
        if (shared) markers = { x: spec.datasets[0].segment_starts.map(function (v) { return v + 0.5; }) };
      }
      return {
        type: 'line',
        data: { datasets: lineSeries(spec, spec.kind === 'step_times' ? { pointRadius: 1.5 } : {}) },
        options: Object.assign(base, {
          interaction: { mode: 'nearest', intersect: false },
          scales: axes(spec.x_title, spec.y_title, { type: 'linear', ticks: { precision: 0 } },
                       spec.kind === 'step_times' ? { beginAtZero: false } : {}),
          plugins: { legend: legend(), tbMarkers: markers,
                     tooltip: { callbacks: { title: scenarioTitle(spec) } } }
        }),
        plugins: [markerPlugin]
      };
    }
    if (spec.kind === 'capacity') return capacityConfig(spec, base);
    if (spec.kind === 'memory') {  // {x: ms, y: MiB} points: the profiling window's memory timeline
      return {
        type: 'line',
        data: { datasets: spec.datasets.map(function (d, i) {
          var c = colour(i);
          return { label: d.label, data: d.data, borderColor: c, backgroundColor: c, pointRadius: 0,
                   pointHoverRadius: 3, borderWidth: 1.5 };
        }) },
        options: Object.assign(base, {
          interaction: { mode: 'nearest', intersect: false },
          scales: axes(spec.x_title, spec.y_title, { type: 'linear' }, { beginAtZero: false }),
          plugins: { legend: legend() }
        })
      };
    }
    if (spec.kind === 'loss_difference') {
      return {
        type: 'line',
        data: { datasets: lineSeries(spec).map(function (ds, i) {
          return Object.assign(ds, { borderDash: spec.datasets[i].parity_ok ? [] : [6, 3] });
        }) },
        options: Object.assign(base, {
          interaction: { mode: 'nearest', intersect: false },
          scales: axes(spec.x_title, spec.y_title, { type: 'linear', ticks: { precision: 0 } }),
          plugins: { legend: legend(), tooltip: { callbacks: { title: scenarioTitle(spec),
            afterTitle: function (items) {
              return items.length ? 'vs ' + spec.datasets[items[0].datasetIndex].reference : '';
            } } } }
        })
      };
    }
    if (spec.kind === 'trend') {
      // Optional, from the history site (history_site.hpp): contended runs drawn as orange
      // triangles, the level between change points as a dashed step line, change points as
      // labelled vertical lines between two runs, a reference line (1 for paired ratios).
      var contended = spec.contended || [];
      var pointColour = spec.values.map(function (v, i) { return contended[i] ? '#bf8700' : PALETTE[0]; });
      var series = [{ label: spec.value_label || 'median ms (whiskers: 95% CI)', data: spec.values,
        borderColor: PALETTE[0], backgroundColor: PALETTE[0], pointBackgroundColor: pointColour,
        pointBorderColor: pointColour,
        pointStyle: spec.values.map(function (v, i) { return contended[i] ? 'triangle' : 'circle'; }),
        pointRadius: spec.values.map(function (v, i) { return contended[i] ? 5 : 3; }),
        borderWidth: 1.5, spanGaps: false, errorBars: spec.error_bars }];
      if (spec.reference_line !== undefined) series[0].referenceLine = spec.reference_line;
      if (spec.levels) {
        series.push({ label: 'level between change points', data: spec.levels, borderColor: PALETTE[2],
          backgroundColor: PALETTE[2], borderDash: [6, 3], borderWidth: 2, pointRadius: 0, stepped: 'middle',
          spanGaps: true });
      }
      var changes = spec.changes || [];
      var highs = spec.error_bars.map(function (b) { return b ? b[1] : 0; });
      // Whiskers inside the plot: the axis reaches the widest interval, not only the points.
      var lows = spec.error_bars.filter(function (b) { return b; }).map(function (b) { return b[0]; });
      return {
        type: 'line',
        data: { labels: spec.labels, datasets: series },
        options: Object.assign(base, {
          scales: axes('', spec.y_title, { ticks: { maxRotation: 60, autoSkip: true } },
            spec.begin_at_zero === false ? { beginAtZero: false,
              suggestedMin: lows.length ? Math.min.apply(null, lows) : undefined,
              suggestedMax: Math.max.apply(null, highs) } :
            { beginAtZero: true, suggestedMax: Math.max.apply(null, highs) * 1.05 }),
          plugins: { legend: spec.levels ? legend() : { display: false },
            tbMarkers: { x: changes.map(function (c) { return c.x; }),
                         labels: changes.map(function (c) { return c.label; }), color: '#cf222e' },
            tooltip: { callbacks: {
            title: function (items) { return items.length ? spec.runs[items[0].dataIndex] : ''; },
            afterLabel: function (c) {
              if (c.datasetIndex !== 0) return '';
              var i = c.dataIndex, b = spec.error_bars[i], unit = spec.unit === undefined ? ' ms' : spec.unit;
              return (b ? 'CI [' + b[0].toFixed(3) + ', ' + b[1].toFixed(3) + ']' + unit + ' · ' : '') +
                spec.statuses[i] + (spec.samples_per_s && spec.samples_per_s[i] !== null ?
                ' · ' + Math.round(spec.samples_per_s[i]) + ' samples/s' : '') +
                (spec.commits && spec.commits[i] ? ' · commit ' + spec.commits[i] : '') +
                (contended[i] ? ' · contended' : '');
            } } } }
        }),
        plugins: [errorBarPlugin, markerPlugin]
      };
    }
    throw new Error('unknown chart kind ' + spec.kind);
  }

  // Records the plot area and the legend box on the card (data-area, data-legend as
  // "left,top,right,bottom") and whether they intersect (data-overlap), for the headless test.
  function recordLayout(card, chart) {
    var a = chart.chartArea;
    var box = function (l, t, r, b) { return [l, t, r, b].map(Math.round).join(','); };
    card.dataset.area = box(a.left, a.top, a.right, a.bottom);
    var overlap = false;
    var lg = chart.legend;
    if (lg && lg.options && lg.options.display !== false && lg.width > 0 && lg.height > 0) {
      card.dataset.legend = box(lg.left, lg.top, lg.left + lg.width, lg.top + lg.height);
      overlap = lg.left < a.right && lg.left + lg.width > a.left && lg.top < a.bottom &&
                lg.top + lg.height > a.top;
    } else {
      card.dataset.legend = 'none';
    }
    card.dataset.overlap = overlap ? '1' : '0';
    card.dataset.drawn = '1';
  }

  // Click a header to sort by that column (again to reverse). Columns of td.num cells sort by
  // their leading number, sizes by bytes; rows without that cell (a skipped scenario's message)
  // stay last.
  var UNITS = { B: 1, KiB: 1024, MiB: 1048576, GiB: 1073741824, TiB: 1099511627776 };
  function sortKey(cell) {
    if (!cell) return null;
    var m = /^[^0-9-]*(-?[0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)\s*(B|KiB|MiB|GiB|TiB)?/.exec(cell.textContent.trim());
    return m ? parseFloat(m[1]) * (m[2] ? UNITS[m[2]] : 1) : null;
  }
  function makeSortable(table) {
    var rows = Array.prototype.slice.call(table.rows);
    if (rows.length < 3) return;
    var header = rows[0];
    Array.prototype.forEach.call(header.cells, function (th, col) {
      th.classList.add('sortable');
      th.title = 'sort by ' + th.textContent;
      th.addEventListener('click', function () {
        var body = Array.prototype.slice.call(table.rows, 1);
        var numeric = body.some(function (r) { return r.cells[col] && r.cells[col].classList.contains('num'); });
        var dir = th.dataset.sort === 'asc' ? -1 : 1;
        Array.prototype.forEach.call(header.cells, function (h) { delete h.dataset.sort; });
        th.dataset.sort = dir === 1 ? 'asc' : 'desc';
        var keyed = body.map(function (r, i) {
          var cell = r.cells.length === header.cells.length ? r.cells[col] : null;
          return { row: r, i: i, key: numeric ? sortKey(cell) : (cell ? cell.textContent : null) };
        });
        keyed.sort(function (p, q) {
          if (p.key === null || q.key === null) return (p.key === null) - (q.key === null) || p.i - q.i;
          var c = numeric ? p.key - q.key : String(p.key).localeCompare(String(q.key));
          return c !== 0 ? c * dir : p.i - q.i;
        });
        var parent = rows[1] ? rows[1].parentNode : table;
        keyed.forEach(function (k) { parent.appendChild(k.row); });
      });
    });
  }
  // Scenario ids may break after each '/', so identifier columns stay narrow.
  Array.prototype.forEach.call(document.querySelectorAll('td code'), function (c) {
    if (c.children.length === 0) c.innerHTML = c.innerHTML.replace(/\//g, '/<wbr>');
  });
  Array.prototype.forEach.call(document.querySelectorAll('table'), function (t) {
    try { makeSortable(t); } catch (e) { window.__tbErrorMessages.push('sorting: ' + e.message); }
  });

  var container = document.getElementById('tb-charts');
  var failures = [];
  if (data.charts.length && typeof Chart === 'undefined') {
    failures.push('Chart.js is not loaded');
  } else if (data.charts.length) {
    data.charts.forEach(function (spec) {
      var card = document.createElement('div');
      card.className = 'chart-card' + (spec.group ? ' chart-' + spec.group : '');
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
        recordLayout(card, new Chart(canvas, config(spec)));
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
  // Layout facts for the headless test: whether the page scrolls sideways, and which tables
  // scroll inside their own box at this window width.
  status.dataset.pageOverflow = document.documentElement.scrollWidth > window.innerWidth ? '1' : '0';
  status.dataset.scrollingTables = Array.prototype.filter.call(document.querySelectorAll('table'),
    function (t) { return t.scrollWidth > t.clientWidth + 1; }).map(function (t) { return t.id; }).join(' ');
  status.textContent = window.__tbChartsDrawn + ' of ' + data.charts.length + ' charts drawn' +
    (window.__tbErrorMessages.length ? '; errors: ' + window.__tbErrorMessages.join('; ') : '');
})();
