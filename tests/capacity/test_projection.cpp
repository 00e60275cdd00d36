// Time-to-train arithmetic.
#include <gtest/gtest.h>

#include <stdexcept>

#include <trainbench/capacity/projection.hpp>
#include <trainbench/support/error.hpp>

namespace tb::capacity {
namespace {

Distribution step_time(double median, double lo, double hi) {
  Distribution d;
  d.n = 50;
  d.median = median;
  d.ci_low = lo;
  d.ci_high = hi;
  return d;
}

TEST(Projection, TimeAndIntervalScaleWithSteps) {
  const auto p = project(1e6, step_time(0.1, 0.09, 0.12), 64);
  EXPECT_EQ(p.steps, 15625);
  EXPECT_DOUBLE_EQ(p.time_s, 1562.5);
  EXPECT_DOUBLE_EQ(p.ci_low_s, 1406.25);
  EXPECT_DOUBLE_EQ(p.ci_high_s, 1875.0);
  EXPECT_DOUBLE_EQ(p.device_hours, 1562.5 / 3600);
  EXPECT_FALSE(p.cost);
  EXPECT_FALSE(p.energy_joules);
}

TEST(Projection, PartialStepRoundsUp) {
  const auto p = project(100, step_time(1.0, 1.0, 1.0), 64);
  EXPECT_EQ(p.steps, 2);
  EXPECT_DOUBLE_EQ(p.time_s, 2.0);
}

TEST(Projection, DevicesCostAndEnergy) {
  ProjectionOptions options;
  options.num_devices = 8;
  options.price_per_device_hour = 2.5;
  options.avg_power_watts = 700;
  const auto p = project(1e6, step_time(0.1, 0.09, 0.12), 64, options);
  EXPECT_DOUBLE_EQ(p.time_s, 1562.5);  // no speed-up assumed
  EXPECT_DOUBLE_EQ(p.device_hours, 1562.5 * 8 / 3600);
  ASSERT_TRUE(p.cost);
  EXPECT_NEAR(*p.cost, 1562.5 * 8 / 3600 * 2.5, 1e-9);
  EXPECT_NEAR(*p.cost_ci_low, 1406.25 * 8 / 3600 * 2.5, 1e-9);
  EXPECT_NEAR(*p.cost_ci_high, 1875.0 * 8 / 3600 * 2.5, 1e-9);
  ASSERT_TRUE(p.energy_joules);
  EXPECT_DOUBLE_EQ(*p.energy_joules, 700.0 * 8 * 1562.5);
}

TEST(Projection, MeasuredEnergyGivesKilowattHoursAndTheirCost) {
  ProjectionOptions options;
  options.num_devices = 2;
  options.avg_power_watts = 700;   // a guess: the measured figure wins
  options.joules_per_step = 36.0;  // per step and device
  options.price_per_kwh = 0.25;
  const auto p = project(1e6, step_time(0.1, 0.09, 0.12), 64, options);
  EXPECT_EQ(p.energy_basis, "measured");
  ASSERT_TRUE(p.energy_joules && p.energy_kwh && p.energy_cost);
  EXPECT_DOUBLE_EQ(*p.energy_joules, 36.0 * 15625 * 2);
  EXPECT_DOUBLE_EQ(*p.energy_kwh, 36.0 * 15625 * 2 / 3.6e6);  // 0.3125 kWh
  EXPECT_DOUBLE_EQ(*p.energy_cost, 0.3125 * 0.25);
  const nlohmann::json j = p;
  EXPECT_EQ(j.at("energy_basis"), "measured");
  EXPECT_EQ(j.at("joules_per_step"), 36.0);
  EXPECT_EQ(j.at("price_per_kwh"), 0.25);

  options.joules_per_step.reset();  // no measurement: the stated average power
  const auto guessed = project(1e6, step_time(0.1, 0.09, 0.12), 64, options);
  EXPECT_EQ(guessed.energy_basis, "avg_power_watts");
  EXPECT_DOUBLE_EQ(*guessed.energy_kwh, 700.0 * 2 * 1562.5 / 3.6e6);

  options.avg_power_watts.reset();  // neither: a price alone projects nothing
  const auto none = project(1e6, step_time(0.1, 0.09, 0.12), 64, options);
  EXPECT_FALSE(none.energy_kwh);
  EXPECT_FALSE(none.energy_cost);
  EXPECT_EQ(none.energy_basis, "");
}

TEST(Projection, MissingIntervalCollapsesOntoMedian) {
  const auto p = project(640, step_time(0.5, 0, 0), 64);
  EXPECT_DOUBLE_EQ(p.ci_low_s, 5.0);
  EXPECT_DOUBLE_EQ(p.ci_high_s, 5.0);
}

TEST(Projection, RejectsMeaninglessInput) {
  EXPECT_THROW(project(1e6, step_time(0, 0, 0), 64), std::invalid_argument);
  EXPECT_THROW(project(1e6, step_time(0.1, 0.1, 0.1), 0), std::invalid_argument);
  ProjectionOptions none;
  none.num_devices = 0;
  EXPECT_THROW(project(1e6, step_time(0.1, 0.1, 0.1), 8, none), std::invalid_argument);
}

TEST(Projection, TargetsInSamplesTokensEpochs) {
  EXPECT_DOUBLE_EQ(target_samples(parse_target("1e6 samples", "--project"), 0, 0), 1e6);
  EXPECT_DOUBLE_EQ(target_samples(parse_target("5000", "--project"), 0, 0), 5000);
  EXPECT_DOUBLE_EQ(target_samples(parse_target("1e9 tokens", "--project"), 128, 0), 7812500);
  EXPECT_DOUBLE_EQ(target_samples(parse_target("1000 tokens", "--project"), 3, 0), 334);  // ceil
  EXPECT_DOUBLE_EQ(target_samples(parse_target("3 epochs", "--project"), 0, 50000), 150000);
  EXPECT_DOUBLE_EQ(target_samples(parse_target("1 epoch", "--project"), 0, 10), 10);
}

TEST(Projection, BadTargetsNameTheField) {
  for (const char* bad : {"", "abc samples", "-5 samples", "5 parsecs", "5 samples extra", "0"}) {
    try {
      parse_target(bad, "--project");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) { EXPECT_EQ(e.field(), "--project") << bad; }
  }
  EXPECT_THROW(target_samples(parse_target("1e9 tokens", "f"), 0, 0, "f"), InputError);
  EXPECT_THROW(target_samples(parse_target("2 epochs", "f"), 0, 0, "f"), InputError);
}

TEST(Projection, JsonShape) {
  ProjectionOptions options;
  options.price_per_device_hour = 3.0;
  const nlohmann::json j = project(1e6, step_time(0.1, 0.09, 0.12), 64, options);
  for (const char* key : {"target_samples", "steps", "time_s", "ci_low_s", "ci_high_s", "device_hours", "num_devices",
                          "cost", "cost_ci_low", "cost_ci_high", "price_per_device_hour"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_FALSE(j.contains("energy_joules"));
  EXPECT_EQ(j.at("steps"), 15625);
}

TEST(Projection, FormatsDurations) {
  EXPECT_EQ(format_duration(42), "42.0 s");
  EXPECT_EQ(format_duration(125), "2m 5s");
  EXPECT_EQ(format_duration(5400), "1h 30m");
  EXPECT_EQ(format_duration(200000), "2d 7h");
  EXPECT_EQ(format_duration(-1), "n/a");
}

}  // namespace
}  // namespace tb::capacity
