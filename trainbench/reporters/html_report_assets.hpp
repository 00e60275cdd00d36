// Static parts of the HTML report: the stylesheet and the chart-drawing script. Kept apart from
// the page assembly so the JavaScript reads as one piece.
#pragma once
#include <string>

namespace tb::html_assets {

extern const char* const kStyle;

// Runs before Chart.js: sets window.__tbChartsDrawn / __tbChartErrors and counts script errors.
extern const char* const kPrelude;

// Draws every chart spec of the #tb-data block (see html_chart_data.hpp) with Chart.js, a small
// inline plugin drawing CI whiskers on the speed-up bars, and records the outcome in
// window.__tbChartsDrawn, window.__tbChartErrors and #tb-chart-status's data attributes. Its
// precision colours come from the precision table (trainbench/matrix/precision_table.hpp).
const std::string& draw_script();

}  // namespace tb::html_assets
