#include <trainbench/measure/distribution.hpp>

#include <trainbench/support/json_integer.hpp>

namespace tb {

void to_json(nlohmann::json& j, const Distribution& d) {
  j = {{"n", d.n},
       {"median", d.median},
       {"mean", d.mean},
       {"stddev", d.stddev},
       {"min", d.min},
       {"max", d.max},
       {"p5", d.p5},
       {"p25", d.p25},
       {"p75", d.p75},
       {"p95", d.p95},
       {"p99", d.p99},
       {"ci_low", d.ci_low},
       {"ci_high", d.ci_high},
       {"ci_method", d.ci_method},
       {"ci_replicates", d.ci_replicates},
       {"median_all_steps", d.median_all_steps}};
}
void from_json(const nlohmann::json& j, Distribution& d) {
  d.n = integer_field(j, "n", std::size_t{0});
  d.median = number_field(j, "median", 0.0);
  d.mean = number_field(j, "mean", 0.0);
  d.stddev = number_field(j, "stddev", 0.0);
  d.min = number_field(j, "min", 0.0);
  d.max = number_field(j, "max", 0.0);
  d.p5 = number_field(j, "p5", 0.0);
  d.p25 = number_field(j, "p25", 0.0);
  d.p75 = number_field(j, "p75", 0.0);
  d.p95 = number_field(j, "p95", 0.0);
  d.p99 = number_field(j, "p99", 0.0);
  d.ci_low = number_field(j, "ci_low", 0.0);
  d.ci_high = number_field(j, "ci_high", 0.0);
  // Files from before segments carried an order-statistic interval of the steps alone: it
  // ignores drift, so it is read back as "steps" and never shown as a 95% drift-aware one.
  d.ci_method = text_field(j, "ci_method", d.ci_high > 0 ? "steps" : "none");
  d.ci_replicates = integer_field(j, "ci_replicates", std::size_t{0});
  d.median_all_steps = number_field(j, "median_all_steps", d.median);
}

}  // namespace tb
