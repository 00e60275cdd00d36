#include <trainbench/reporters/junit_report.hpp>

#include <cstdio>
#include <sstream>

#include <trainbench/reporters/comparison_outcome.hpp>

namespace tb {

namespace {

struct TestCase {
  std::string name;
  enum class Outcome { passed, failed, skipped } outcome = Outcome::passed;
  std::string message;  // why it failed or was skipped
  std::string output;   // the figures, for a passed case too
};

std::string format(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string suite_xml(const std::string& suite, const std::vector<TestCase>& cases) {
  int failures = 0, skipped = 0;
  for (const auto& c : cases) {
    failures += c.outcome == TestCase::Outcome::failed;
    skipped += c.outcome == TestCase::Outcome::skipped;
  }
  std::ostringstream x;
  const std::string counts = " tests=\"" + std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
                             "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\"";
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"" << xml_escaped(suite) << "\"" << counts << ">\n";
  x << "  <testsuite name=\"" << xml_escaped(suite) << "\"" << counts << ">\n";
  for (const auto& c : cases) {
    x << "    <testcase classname=\"" << xml_escaped(suite) << "\" name=\"" << xml_escaped(c.name) << "\"";
    if (c.outcome == TestCase::Outcome::passed && c.output.empty()) {
      x << "/>\n";
      continue;
    }
    x << ">\n";
    if (c.outcome == TestCase::Outcome::failed)
      x << "      <failure type=\"regression\" message=\"" << xml_escaped(c.message) << "\"/>\n";
    if (c.outcome == TestCase::Outcome::skipped) x << "      <skipped message=\"" << xml_escaped(c.message) << "\"/>\n";
    if (!c.output.empty()) x << "      <system-out>" << xml_escaped(c.output) << "</system-out>\n";
    x << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

}  // namespace

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') ? '?' : ch;
    }
  }
  return out;
}

std::string junit_from_comparison(const RunComparison& comparison, const std::string& suite) {
  std::vector<TestCase> cases;
  for (const auto& o : scenario_outcomes(comparison)) {
    TestCase c{.name = o.id, .message = o.reason, .output = o.figures};
    if (o.kind == ScenarioOutcome::Kind::failed) c.outcome = TestCase::Outcome::failed;
    if (o.kind == ScenarioOutcome::Kind::skipped) c.outcome = TestCase::Outcome::skipped;
    // A regression's message carries its figures: CI pages often show the message alone.
    if (c.outcome == TestCase::Outcome::failed && !o.figures.empty()) c.message += ": " + o.figures;
    cases.push_back(std::move(c));
  }
  return suite_xml(suite, cases);
}

std::string junit_from_changes(const std::vector<ScenarioChanges>& scenarios, const std::string& suite) {
  std::vector<TestCase> cases;
  for (const auto& s : scenarios) {
    TestCase c{.name = s.scenario_id};
    for (std::size_t i = 0; i < s.changes.size(); ++i) {
      const TrendChange& t = s.changes[i];
      std::string line = std::string(trend_metric_label(t.metric)) + " " + format("%+.1f%%", t.percent()) + " [" +
                         format("%+.1f%%", (t.change.ratio_low - 1) * 100) + ", " +
                         format("%+.1f%%", (t.change.ratio_high - 1) * 100) + "] from run " + t.after.run_id +
                         " (after " + t.before.run_id + "), p " + format("%.3f", t.change.p_value) +
                         (t.contended_nearby ? ", contended runs nearby" : "");
      c.output += line + "\n";
      if (i < s.gated.size() && s.gated[i]) {
        c.outcome = TestCase::Outcome::failed;
        c.message = (c.message.empty() ? "" : c.message + "; ") + "regression: " + line;
      }
    }
    cases.push_back(std::move(c));
  }
  return suite_xml(suite, cases);
}

}  // namespace tb
