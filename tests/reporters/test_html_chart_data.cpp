// The HTML report's chart specs on the fixture run: what each chart plots, checked against the
// run's own numbers (no hard-coded results).
#include <trainbench/reporters/html_chart_data.hpp>

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include <trainbench/reporters/loss_at_step.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

using nlohmann::json;
using test::fixture_run;

std::vector<json> charts_of_kind(const json& data, const std::string& kind) {
  std::vector<json> out;
  for (const auto& c : data.at("charts"))
    if (c.at("kind") == kind) out.push_back(c);
  return out;
}

TEST(HtmlChartData, PhasesArePerSampleNotPerStep) {
  const auto run = fixture_run();
  const auto phases = charts_of_kind(html_chart_data(run), "phases");
  ASSERT_EQ(phases.size(), 1u);
  const json& chart = phases.front();
  EXPECT_EQ(chart.at("y_title"), "µs per sample");
  bool saw_accumulation = false;
  for (std::size_t i = 0; i < chart.at("ids").size(); ++i) {
    const ScenarioResult* s = find_scenario(run, chart.at("ids").at(i).get<std::string>());
    ASSERT_NE(s, nullptr);
    saw_accumulation |= s->params.accumulation > 1;
    EXPECT_EQ(chart.at("effective_batch").at(i), s->params.effective_batch);
    for (const auto& d : chart.at("datasets"))
      for (const auto& p : s->phases)
        if (p.name == d.at("label")) {
          EXPECT_NEAR(d.at("data").at(i).get<double>(), p.mean_s * 1e6 / s->params.effective_batch,
                      1e-5 * p.mean_s * 1e6)
              << s->id << " " << p.name;
        }
  }
  EXPECT_TRUE(saw_accumulation) << "the fixture should hold a scenario with accumulation > 1";
}

TEST(HtmlChartData, LossCurvesAreSmallMultiplesMarkedAtTheCommonStep) {
  const auto run = fixture_run();
  const auto loss = charts_of_kind(html_chart_data(run), "loss");
  ASSERT_GT(loss.size(), 1u);
  std::set<std::string> drawn, expected;
  for (const auto& s : run.scenarios)
    if (s.status == ScenarioStatus::ok && !s.loss_curve.empty()) expected.insert(s.id);
  for (const auto& chart : loss) {
    EXPECT_LE(chart.at("datasets").size(), 4u) << chart.at("id");
    EXPECT_EQ(chart.at("common_step").get<std::size_t>(), report::common_loss_step(run));
    for (const auto& d : chart.at("datasets")) {
      const std::string id = d.at("scenario");
      drawn.insert(id);
      const std::string label = d.at("label");
      EXPECT_TRUE(label.size() < id.size() && id.find(label) != std::string::npos)
          << "short label '" << label << "' of " << id;
      EXPECT_EQ(d.at("data").size(), find_scenario(run, id)->loss_curve.size());
    }
  }
  EXPECT_EQ(drawn, expected);
}

TEST(HtmlChartData, LossDifferenceAgainstTheFp32Twin) {
  const auto run = fixture_run();
  const auto charts = charts_of_kind(html_chart_data(run), "loss_difference");
  ASSERT_FALSE(charts.empty());
  bool saw_failed_parity = false;
  for (const auto& chart : charts)
    for (const auto& d : chart.at("datasets")) {
      const ScenarioResult* s = find_scenario(run, d.at("scenario").get<std::string>());
      ASSERT_TRUE(s && s->loss_parity);
      const ScenarioResult* ref = find_scenario(run, s->loss_parity->reference_id);
      ASSERT_NE(ref, nullptr);
      EXPECT_EQ(d.at("reference"), ref->id);
      EXPECT_EQ(d.at("parity_ok"), s->loss_parity->ok);
      saw_failed_parity |= !s->loss_parity->ok;
      ASSERT_EQ(d.at("data").size(), std::min(s->loss_curve.size(), ref->loss_curve.size()));
      const std::size_t last = d.at("data").size() - 1;
      EXPECT_NEAR(d.at("data").at(last).get<double>(), s->loss_curve[last] - ref->loss_curve[last], 1e-4);
    }
  EXPECT_TRUE(saw_failed_parity) << "the fixture's drifting bf16 transformer";
}

TEST(HtmlChartData, StepTimesInOrderWithSegmentStarts) {
  const auto run = fixture_run();
  const auto steps = charts_of_kind(html_chart_data(run), "step_times");
  ASSERT_FALSE(steps.empty());
  std::size_t series = 0;
  for (const auto& chart : steps)
    for (const auto& d : chart.at("datasets")) {
      ++series;
      const ScenarioResult* s = find_scenario(run, d.at("scenario").get<std::string>());
      ASSERT_EQ(d.at("data").size(), s->step_times_s.size());
      EXPECT_NEAR(d.at("data").back().get<double>(), s->step_times_s.back() * 1e3, 1e-5 * s->step_times_s.back() * 1e3);
      const auto& starts = d.at("segment_starts");
      EXPECT_EQ(starts.size(), s->segments.empty() ? 0u : s->segments.size() - 1);
      if (!starts.empty()) { EXPECT_EQ(starts.at(0), s->segments.at(0).steps); }
    }
  EXPECT_GT(series, 1u);
}

TEST(HtmlChartData, CapacityChartPerBatchSearchWithFitAndBudget) {
  auto run = fixture_run();
  ASSERT_TRUE(run.capacity && !run.capacity->batch_search.empty());
  run.capacity->memory_limit_bytes = 80LL << 30;
  const auto capacity = charts_of_kind(html_chart_data(run), "capacity");
  ASSERT_EQ(capacity.size(), run.capacity->batch_search.size());
  const auto& search = run.capacity->batch_search.front();
  const json& chart = capacity.front();
  EXPECT_EQ(chart.at("id"), chart_slug("capacity-" + search.model + " · " + search.precision));
  ASSERT_EQ(chart.at("probes").size(), search.probes.size());
  for (std::size_t i = 0; i < search.probes.size(); ++i) {
    EXPECT_EQ(chart.at("probes").at(i).at("batch"), search.probes[i].batch);
    EXPECT_EQ(chart.at("probes").at(i).at("fits"), search.probes[i].fits);
  }
  EXPECT_EQ(chart.at("memory_limit_bytes"), 80LL << 30);
  EXPECT_EQ(chart.at("best_batch"), search.best_batch);
  ASSERT_TRUE(chart.contains("memory_fit"));
  EXPECT_GT(chart.at("memory_fit").at("per_sample_bytes").get<double>(), 0);
}

TEST(HtmlChartData, ChartIdsAreElementIds) {
  EXPECT_EQ(chart_slug("resnet@images · amp_bf16"), "resnet@images-amp_bf16");
  EXPECT_EQ(chart_slug("mlp/fp32/w0/a1/b64"), "mlp-fp32-w0-a1-b64");
  std::set<std::string> ids;
  const auto data = html_chart_data(fixture_run());  // kept: a range-for over .at() of a temporary dangles
  for (const auto& c : data.at("charts")) {
    const std::string id = c.at("id");
    EXPECT_TRUE(ids.insert(id).second) << "duplicate chart id " << id;
    EXPECT_EQ(id.find(' '), std::string::npos) << id;
  }
}

}  // namespace
}  // namespace tb
