#include <trainbench/reporters/junit_report.hpp>

#include <cstdio>
#include <sstream>

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

std::string comparison_figures(const ScenarioComparison& s) {
  if (!s.compared) return "";
  std::string t = "old " + format("%.3f", s.old_median_s * 1e3) + " ms, new " + format("%.3f", s.new_median_s * 1e3) +
                  " ms per step, change " + format("%+.1f%%", s.change_pct);
  if (s.speedup.valid)
    t += ", speedup " + format("%.3f", s.speedup.ratio) + "x [" + format("%.3f", s.speedup.low) + ", " +
         format("%.3f", s.speedup.high) + "]";
  return t + ", verdict " + to_string(s.verdict);
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
  for (const auto& s : comparison.scenarios) {
    TestCase c{.name = s.id, .output = comparison_figures(s)};
    if (s.broken) {
      c.outcome = TestCase::Outcome::failed;
      c.message = std::string("broken in NEW: ") + to_string(s.new_status);
    } else if (s.regression) {
      c.outcome = TestCase::Outcome::failed;
      c.message = "slower beyond the gate (" + format("%g", s.gate_pct) + "%): " + c.output;
    } else if (s.contended) {
      c.outcome = TestCase::Outcome::skipped;
      c.message = "not judged: contended measurements (" + s.contention + ")";
    } else if (s.unjudged) {
      c.outcome = TestCase::Outcome::skipped;
      c.message = "not judged: no interval (fewer than 3 segments)";
    } else if (!s.compared) {
      c.outcome = TestCase::Outcome::skipped;
      c.message = std::string("not compared: old ") + to_string(s.old_status) + ", new " + to_string(s.new_status);
    }
    cases.push_back(std::move(c));
  }
  for (const auto& id : comparison.missing_in_new)
    cases.push_back({.name = id, .outcome = TestCase::Outcome::failed, .message = "ok in OLD, missing in NEW"});
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
