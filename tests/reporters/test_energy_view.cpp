// How reports print measured energy and the projection's kWh and cost.
#include <trainbench/reporters/energy_view.hpp>

#include <gtest/gtest.h>

namespace tb::report {
namespace {

ScenarioResult with_energy(nlohmann::json energy) {
  ScenarioResult s;
  s.energy = energy.get<EnergyResult>();
  return s;
}

TEST(EnergyView, MeasuredEnergyPrintsPerStepAndPerJoule) {
  const auto s = with_energy({{"available", true},
                              {"source", "nvml"},
                              {"scope", "GPU 0"},
                              {"joules_per_step", 2.5},
                              {"samples_per_joule", 25.6}});
  EXPECT_EQ(energy_cell(s), "2.5 J/step, 25.6 samples/J");
  EXPECT_EQ(energy_reason(s), "");
  EXPECT_EQ(energy_line(s), "energy: 2.5 J/step, 25.6 samples/J (nvml: GPU 0)");
}

TEST(EnergyView, UnavailableEnergySaysWhy) {
  const auto s = with_energy({{"available", false}, {"reason", "no /sys/class/powercap/intel-rapl:* (VM)"}});
  EXPECT_EQ(energy_cell(s), "n/a");
  EXPECT_EQ(energy_line(s), "energy: n/a (no /sys/class/powercap/intel-rapl:* (VM))");
  EXPECT_EQ(energy_line(ScenarioResult{}), "energy: n/a (not recorded)");  // older results
  // A malformed section (an edited file) is not a figure either.
  EXPECT_EQ(energy_cell(with_energy({{"available", true}, {"joules_per_step", "2"}})), "n/a");
}

TEST(EnergyView, RunLinesListMeasuredScenariosOrOneReason) {
  RunResult run;
  auto a = with_energy({{"available", false}, {"reason", "no RAPL (VM)"}});
  a.id = "a";
  run.scenarios = {a, a};
  EXPECT_EQ(energy_lines(run), std::vector<std::string>{"n/a: no RAPL (VM)"});  // once, not per scenario
  auto b = with_energy({{"available", true}, {"joules_per_step", 2.5}, {"samples_per_joule", 25.6}});
  b.id = "b";
  run.scenarios.push_back(b);
  EXPECT_EQ(energy_lines(run), std::vector<std::string>{"b: 2.5 J/step, 25.6 samples/J"});
  // Results from before energy was measured: nothing to say.
  run.scenarios = {ScenarioResult{}};
  EXPECT_TRUE(energy_lines(run).empty());
}

TEST(EnergyView, ProjectedKilowattHoursAndCost) {
  capacity::ProjectionOptions options;
  options.joules_per_step = 36.0;
  options.price_per_kwh = 0.25;
  Distribution step;
  step.median = 0.1;
  const auto p = capacity::project(1e6, step, 64, options);
  EXPECT_EQ(projected_energy(p), "0.156 kWh (measured), cost 0.0391 at 0.25/kWh");
  EXPECT_EQ(projected_energy(capacity::project(1e6, step, 64)), "");
}

}  // namespace
}  // namespace tb::report
