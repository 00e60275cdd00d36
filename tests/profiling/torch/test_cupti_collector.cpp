// The CUPTI collector on a real GPU: a short window of matmuls with host phase spans, checked
// for decoded kernels and launches, host-timeline timestamps, phase attribution and a valid
// Chrome trace. Skips without a GPU or without a CUPTI-enabled build.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/cuda.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include <trainbench/measure/phase.hpp>
#include <trainbench/profiling/chrome_trace_logger.hpp>
#include <trainbench/profiling/host_recorder.hpp>
#include <trainbench/profiling/profile_summary.hpp>
#if defined(TRAINBENCH_HAVE_CUPTI)
#include <trainbench/profiling/cupti_collector.hpp>
#endif

namespace tbp = tb::profiling;

namespace {

TEST(CuptiCollector, WindowOfMatmuls) {
#if !defined(TRAINBENCH_HAVE_CUPTI)
  GTEST_SKIP() << "built without libcupti: no CUPTI collector";
#else
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU: CUPTI collection needs one";
  auto a = at::randn({512, 512}, at::kCUDA);
  at::mm(a, a).sum().item<float>();  // warm up cuBLAS outside the window

  tbp::HostRecorder rec(1024);
  tbp::DecodedRecords records;
  const std::int64_t window_begin = tbp::now_ns();
  {
    tbp::ActiveRecorderScope active(rec);
    tbp::CuptiCollector cupti;
    cupti.start();
    for (int step = 0; step < 3; ++step) {
      // The step and phase spans the summaries attribute GPU work to, as the trainer records them.
      TB_HOST_SPAN("step", tbp::kCategoryStep, step);
      {
        TB_HOST_SPAN(tb::to_string(tb::Phase::h2d), tbp::kCategoryPhase);
        auto host = at::ones({1 << 20});
        host.to(at::kCUDA);
      }
      {
        TB_HOST_SPAN(tb::to_string(tb::Phase::forward), tbp::kCategoryPhase);
        at::mm(a, a);
      }
      {
        TB_HOST_SPAN(tb::to_string(tb::Phase::optimizer), tbp::kCategoryPhase);
        a.mul_(0.5);
      }
    }
    records = cupti.stop();
  }
  const std::int64_t window_end = tbp::now_ns();

  int kernels = 0, copies = 0;
  for (const auto& act : records.activities) {
    if (act.kind == tbp::GpuActivityKind::kernel) ++kernels;
    if (act.kind == tbp::GpuActivityKind::memcpy && act.copy_kind == tbp::CopyKind::h2d) ++copies;
    if (act.kind != tbp::GpuActivityKind::kernel && act.kind != tbp::GpuActivityKind::memcpy) continue;
    // Host timeline: GPU work of the window lies inside it (with slack for clock conversion).
    EXPECT_GE(act.start_ns, window_begin - 1'000'000) << act.name;
    EXPECT_LE(act.end_ns, window_end + 1'000'000) << act.name;
  }
  EXPECT_GE(kernels, 3);
  EXPECT_GE(copies, 3);
  bool launch_named = false;
  for (const auto& c : records.calls)
    launch_named |= c.name.rfind("cudaLaunchKernel", 0) == 0 || c.name.rfind("cuLaunchKernel", 0) == 0;
  EXPECT_TRUE(launch_named);

  const auto summary = tbp::summarize(records, rec.spans());
  EXPECT_EQ(summary.steps.size(), 3u);
  EXPECT_GT(summary.phases[static_cast<int>(tb::Phase::forward)].kernels, 0u);
  EXPECT_GT(summary.phases[static_cast<int>(tb::Phase::h2d)].memcpy_s, 0.0);

  const auto path = (std::filesystem::temp_directory_path() / "tb_cupti_trace.json").string();
  tbp::write_chrome_trace(rec, records.activities, records.calls, path, false, {"cupti-test", {}});
  std::ifstream in(path);
  const auto trace = nlohmann::json::parse(in);
  int flows = 0;
  for (const auto& e : trace["traceEvents"]) flows += e["ph"] == "s";
  EXPECT_GT(flows, 0) << "no launch -> kernel flow arrows";
  std::filesystem::remove(path);
#endif
}

}  // namespace
