#include <trainbench/reporters/html_page.hpp>

#include <fstream>
#include <sstream>

#include <trainbench/reporters/html_report_assets.hpp>

namespace tb::html_page {

std::string esc(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string script_safe(std::string text) {
  for (std::size_t pos = 0; (pos = text.find("</", pos)) != std::string::npos; pos += 3) text.replace(pos, 2, "<\\/");
  return text;
}

std::string read_chartjs(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void open(std::ostream& os, const std::string& title) {
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<title>" << esc(title) << "</title>\n<style>" << html_assets::kStyle << "</style>\n<script>"
     << html_assets::kPrelude << "</script>\n</head>\n<body>\n";
}

void chart_slots(std::ostream& os, const std::string& chartjs, const std::string& chartjs_path,
                 const std::string& rerender_hint) {
  chart_slots(os, !chartjs.empty(), chartjs_path, rerender_hint);
}

void chart_slots(std::ostream& os, bool chartjs_available, const std::string& chartjs_path,
                 const std::string& rerender_hint) {
  os << "<h2>Charts</h2>\n";
  if (!chartjs_available)
    os << "<p class=\"note\" id=\"tb-charts-missing\">Charts are not available: Chart.js could not "
          "be read from <code>"
       << esc(chartjs_path.empty() ? "(no path configured)" : chartjs_path)
       << "</code>. Install libjs-chart.js or set TRAINBENCH_CHARTJS to a chart.min.js file and "
          "re-run <code>"
       << esc(rerender_hint) << "</code>. The tables below have every number.</p>\n";
  os << "<p id=\"tb-chart-status\" data-drawn=\"0\" data-errors=\"0\"></p>\n"
     << "<div class=\"charts\" id=\"tb-charts\"></div>\n";
}

void close(std::ostream& os, const std::string& data_block, const std::string& chartjs) {
  os << "<script type=\"application/json\" id=\"tb-data\">\n" << data_block << "\n</script>\n";
  if (!chartjs.empty()) os << "<script>\n" << script_safe(chartjs) << "\n</script>\n";
  os << "<script>" << html_assets::draw_script() << "</script>\n</body>\n</html>\n";
}

void close_with_script_src(std::ostream& os, const std::string& data_block, const std::string& chartjs_src) {
  os << "<script type=\"application/json\" id=\"tb-data\">\n" << data_block << "\n</script>\n";
  if (!chartjs_src.empty()) os << "<script src=\"" << esc(chartjs_src) << "\"></script>\n";
  os << "<script>" << html_assets::draw_script() << "</script>\n</body>\n</html>\n";
}

}  // namespace tb::html_page
