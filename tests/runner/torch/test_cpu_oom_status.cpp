// A CPU allocation failure is a scenario's `oom`, like CUDA's: LibTorch's allocator error and
// std::bad_alloc become "CPU out of memory: ..." in record_failure, any other error stays
// `failed`, and a matrix whose scenario cannot allocate goes on with the rest (issue 9).
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <functional>
#include <new>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/runner/torch/runner.hpp>
#include <trainbench/runner/torch/scenario_failure.hpp>

namespace tb {
namespace {

// 2^50 floats (4 PiB): more than any address space, so the CPU allocator always refuses.
at::Tensor absurd_tensor() { return at::empty({std::int64_t{1} << 50}, at::kFloat); }

TEST(CpuOom, RecordFailureTurnsAllocationFailuresIntoOom) {
  struct Case {
    const char* what;
    std::function<void()> fail;
    ScenarioStatus status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"allocator error", [] { absurd_tensor(); }, ScenarioStatus::oom,
       "CPU out of memory: could not allocate 4503599627370496 bytes (4.00 PiB)"},
      {"bad_alloc", [] { throw std::bad_alloc(); }, ScenarioStatus::oom, "CPU out of memory: an allocation failed"},
      {"other torch error", [] { TORCH_CHECK(false, "shapes do not match"); }, ScenarioStatus::failed,
       "shapes do not match"},
  };
  ScenarioParams params;
  params.device = tb::DeviceKind::cpu;
  for (const auto& c : cases) {
    ScenarioResult r;
    try {
      c.fail();
      FAIL() << c.what << ": did not throw";
    } catch (...) { record_failure(r, params, std::current_exception()); }
    EXPECT_EQ(r.status, c.status) << c.what << ": " << r.message;
    EXPECT_EQ(r.message, c.message) << c.what;
  }
}

TEST(CpuOom, ScenarioThatCannotAllocateIsOomAndTheMatrixGoesOn) {
  const auto j = nlohmann::json::parse(R"({
    "name": "cpu-oom", "model": "mlp", "device": "cpu",
    "dataset_options": {"samples": 64, "features": 8}, "model_options": {"hidden": 8},
    "steps": {"warmup": 0, "min": 2, "max": 2, "time_budget_s": 1, "rounds": 1},
    "axes": {"batch": [8, 16]}
  })");
  const auto spec = parse_matrix(j, "cpu-oom.json", default_parse_options());
  RunOptions options;
  options.test_hook = [](const ScenarioParams& p, int step) {
    if (p.batch == 8 && step == 1) absurd_tensor();
  };
  const auto run = run_matrix(spec, options);
  ASSERT_EQ(run.scenarios.size(), 2u);
  EXPECT_EQ(run.scenarios[0].status, ScenarioStatus::oom);
  EXPECT_EQ(run.scenarios[0].message.rfind("CPU out of memory: could not allocate", 0), 0u) << run.scenarios[0].message;
  EXPECT_EQ(run.scenarios[1].status, ScenarioStatus::ok) << run.scenarios[1].message;
}

}  // namespace
}  // namespace tb
