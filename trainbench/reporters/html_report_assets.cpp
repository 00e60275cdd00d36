#include <trainbench/reporters/html_report_assets.hpp>

#include <string_view>

#include <trainbench/matrix/precision_table.hpp>
#include <trainbench/reporters/embedded_assets.hpp>

namespace tb::html_assets {

const char* const kStyle = embedded_assets::kReportCss;
const char* const kPrelude = embedded_assets::kPreludeJs;

namespace {

// "{ fp32: '#0969da', ... }" from the precision table.
std::string precision_colours() {
  std::string object = "{";
  const char* separator = " ";
  for (const PrecisionDefinition& d : precision_table()) {
    object += separator + std::string(d.name) + ": '" + d.chart_colour + "'";
    separator = ", ";
  }
  return object + " }";
}

}  // namespace

const std::string& draw_script() {
  static const std::string script = [] {
    std::string text = embedded_assets::kChartsJs;
    constexpr std::string_view marker = "/*@precision_colours@*/ {}";
    const auto at = text.find(marker);
    if (at != std::string::npos) text.replace(at, marker.size(), precision_colours());
    return text;
  }();
  return script;
}

}  // namespace tb::html_assets
