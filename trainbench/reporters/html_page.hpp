// The shell shared by trainbench's HTML pages (the run report and the history page): head with
// the stylesheet, the chart slots, and the scripts that draw the #tb-data block's charts with
// Chart.js inlined (html_report_assets.hpp). Pages put their own content between the slots and
// the scripts.
#pragma once
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace tb::html_page {

// Text escaped for HTML content and attribute values.
std::string esc(const std::string& s);

// Text placed inside <script> must not close the element early.
std::string script_safe(std::string text);

// The Chart.js file's text, "" when it cannot be read (the page then says so).
std::string read_chartjs(const std::string& path);

// <!DOCTYPE html> through <body>.
void open(std::ostream& os, const std::string& title);

// "Charts" heading, the note when Chart.js is missing, #tb-chart-status and #tb-charts.
void chart_slots(std::ostream& os, const std::string& chartjs, const std::string& chartjs_path,
                 const std::string& rerender_hint);
// The same where Chart.js is a file beside the page (a site of many pages loads it once).
void chart_slots(std::ostream& os, bool chartjs_available, const std::string& chartjs_path,
                 const std::string& rerender_hint);

// The #tb-data block (`data_block`, already script-safe), Chart.js, the draw script, </html>.
void close(std::ostream& os, const std::string& data_block, const std::string& chartjs);
// The same with Chart.js loaded from `chartjs_src` (a relative URL; "" for none).
void close_with_script_src(std::ostream& os, const std::string& data_block, const std::string& chartjs_src);

}  // namespace tb::html_page
