// The reports' stylesheets and scripts, from the files in trainbench/reporters/assets/, compiled
// into the library at build time (cmake/embed_assets.cmake): edited as CSS and JavaScript, shipped
// without a file to find at run time. Each starts with a newline.
#pragma once

namespace tb::embedded_assets {

extern const char* const kReportCss;  // assets/report.css: every HTML page
extern const char* const kSiteCss;    // assets/site.css: the history site's pages, after report.css
extern const char* const kPreludeJs;  // assets/prelude.js: before Chart.js, counts script errors
// assets/charts.js: draws the #tb-data chart specs; its /*@precision_colours@*/ {} is replaced by
// the precision table's colours (html_report_assets.cpp).
extern const char* const kChartsJs;

}  // namespace tb::embedded_assets
