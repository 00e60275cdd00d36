// CUPTI decoding on records built in memory (no libcupti, no GPU) and the summaries computed
// from them, checked against hand-computed intervals.
#include <trainbench/profiling/cupti_records.hpp>
#include <trainbench/profiling/profile_summary.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#if defined(TRAINBENCH_HAVE_CUPTI_HEADERS)
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#endif
#include <vector>

namespace tbp = tb::profiling;

namespace {

constexpr std::int64_t kUs = 1000;  // ns per microsecond

#if defined(TRAINBENCH_HAVE_CUPTI_HEADERS)

CUpti_ActivityKernel10 make_kernel(const char* name, std::uint64_t start, std::uint64_t end, std::uint32_t corr) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.start = start;
  k.end = end;
  k.deviceId = 1;
  k.contextId = 3;
  k.streamId = 7;
  k.correlationId = corr;
  return k;
}

CUpti_ActivityAPI make_api(CUpti_ActivityKind kind, std::uint32_t cbid, std::uint64_t start, std::uint64_t end,
                           std::uint32_t corr) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = kind;
  a.cbid = cbid;
  a.start = start;
  a.end = end;
  a.processId = 100;
  a.threadId = 101;
  a.correlationId = corr;
  return a;
}

TEST(CuptiDecode, Kernel) {
  const auto k = make_kernel("_Z4gemmPfi", 1000, 3000, 42);
  tbp::DecodedRecords out;
  ASSERT_TRUE(tbp::decode_record(reinterpret_cast<const CUpti_Activity*>(&k), out));
  ASSERT_EQ(out.activities.size(), 1u);
  const auto& a = out.activities[0];
  EXPECT_EQ(a.kind, tbp::GpuActivityKind::kernel);
  EXPECT_EQ(a.name, "gemm(float*, int)");  // demangled
  EXPECT_EQ(a.start_ns, 1000);
  EXPECT_EQ(a.end_ns, 3000);
  EXPECT_EQ(a.device, 1u);
  EXPECT_EQ(a.context, 3u);
  EXPECT_EQ(a.stream, 7u);
  EXPECT_EQ(a.correlation_id, 42u);
}

TEST(CuptiDecode, MemcpyMemsetRuntimeDriverSyncOverhead) {
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.bytes = 1 << 20;
  m.start = 10;
  m.end = 20;
  m.streamId = 9;
  m.correlationId = 5;
  m.runtimeCorrelationId = 6;
  CUpti_ActivityMemset4 s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 64;
  s.start = 30;
  s.end = 31;
  const auto rt = make_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1, 2, 6);
  const auto drv = make_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 1, 2, 5);
  CUpti_ActivitySynchronization2 sync;
  std::memset(&sync, 0, sizeof sync);
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.start = 40;
  sync.end = 50;
  CUpti_ActivityOverhead3 ov;
  std::memset(&ov, 0, sizeof ov);
  ov.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  ov.start = 100;
  ov.end = 350;

  tbp::DecodedRecords out;
  for (const void* rec :
       {static_cast<const void*>(&m), static_cast<const void*>(&s), static_cast<const void*>(&rt),
        static_cast<const void*>(&drv), static_cast<const void*>(&sync), static_cast<const void*>(&ov)})
    EXPECT_TRUE(tbp::decode_record(static_cast<const CUpti_Activity*>(rec), out));

  ASSERT_EQ(out.activities.size(), 4u);
  EXPECT_EQ(out.activities[0].kind, tbp::GpuActivityKind::memcpy);
  EXPECT_EQ(out.activities[0].copy_kind, tbp::CopyKind::d2h);
  EXPECT_EQ(out.activities[0].name, "Memcpy DtoH");
  EXPECT_EQ(out.activities[0].bytes, 1u << 20);
  EXPECT_EQ(out.activities[0].runtime_correlation_id, 6u);
  EXPECT_EQ(out.activities[1].kind, tbp::GpuActivityKind::memset);
  EXPECT_EQ(out.activities[1].bytes, 64u);
  EXPECT_EQ(out.activities[2].kind, tbp::GpuActivityKind::sync);
  EXPECT_EQ(out.activities[2].name, "cudaStreamSynchronize");
  EXPECT_EQ(out.activities[3].kind, tbp::GpuActivityKind::overhead);
  EXPECT_EQ(out.overhead_ns, 250u);
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].name, "cudaLaunchKernel");
  EXPECT_FALSE(out.calls[0].is_driver);
  EXPECT_EQ(out.calls[0].thread_id, 101u);
  EXPECT_EQ(out.calls[1].name, "cuLaunchKernel");
  EXPECT_TRUE(out.calls[1].is_driver);
}

TEST(CuptiDecode, UnknownKindIsCountedNotDecoded) {
  CUpti_Activity rec{CUPTI_ACTIVITY_KIND_MARKER};
  tbp::DecodedRecords out;
  EXPECT_FALSE(tbp::decode_record(&rec, out));
  EXPECT_EQ(out.unknown_records, 1u);
  EXPECT_TRUE(out.activities.empty());
}

// Records laid out back to back, 8-byte aligned, as CUPTI fills a buffer.
template <typename T>
void append(std::vector<std::uint8_t>& buf, const T& rec) {
  const std::size_t at = buf.size();
  buf.resize(at + (sizeof(T) + 7) / 8 * 8, 0);
  std::memcpy(buf.data() + at, &rec, sizeof(T));
}

TEST(CuptiDecode, WalksABuffer) {
  std::vector<std::uint8_t> buf;
  append(buf, make_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1, 2, 1));
  append(buf, make_kernel("k1", 5, 9, 1));
  append(buf, make_kernel("k2", 10, 12, 2));
  tbp::DecodedRecords out;
  EXPECT_EQ(tbp::decode_activity_buffer(buf.data(), buf.size(), out), 3u);
  ASSERT_EQ(out.activities.size(), 2u);
  EXPECT_EQ(out.activities[1].name, "k2");
  EXPECT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.dropped_records, 0u);

  // A record of a kind with unknown size stops the walk and is reported.
  CUpti_Activity marker{CUPTI_ACTIVITY_KIND_MARKER};
  append(buf, marker);
  append(buf, make_kernel("k3", 20, 30, 3));
  tbp::DecodedRecords out2;
  EXPECT_EQ(tbp::decode_activity_buffer(buf.data(), buf.size(), out2), 3u);
  EXPECT_EQ(out2.dropped_records, 1u);

  // A truncated buffer never reads past valid_size.
  tbp::DecodedRecords out3;
  EXPECT_EQ(tbp::decode_activity_buffer(buf.data(), sizeof(CUpti_ActivityAPI) + 16, out3), 1u);
}

#endif  // TRAINBENCH_HAVE_CUPTI_HEADERS

TEST(ProfileSummary, UnionLength) {
  EXPECT_EQ(tbp::union_length_ns({{10, 30}, {20, 40}, {50, 60}}, 0, 100), 40);
  EXPECT_EQ(tbp::union_length_ns({{10, 30}, {20, 40}, {50, 60}}, 25, 55), 20);
  EXPECT_EQ(tbp::union_length_ns({{50, 60}, {0, 100}}, 0, 100), 100);
  EXPECT_EQ(tbp::union_length_ns({}, 0, 100), 0);
  EXPECT_EQ(tbp::union_length_ns({{10, 10}, {30, 20}}, 0, 100), 0);
}

tbp::GpuActivity work(tbp::GpuActivityKind kind, const char* name, std::int64_t start_us, std::int64_t end_us,
                      std::uint32_t corr) {
  tbp::GpuActivity a;
  a.kind = kind;
  a.name = name;
  a.start_ns = start_us * kUs;
  a.end_ns = end_us * kUs;
  a.correlation_id = corr;
  return a;
}

tbp::RuntimeCall launch(std::int64_t at_us, std::uint32_t corr, bool driver = false) {
  tbp::RuntimeCall c;
  c.name = driver ? "cuLaunchKernel" : "cudaLaunchKernel";
  c.start_ns = at_us * kUs;
  c.end_ns = at_us * kUs + 500;
  c.correlation_id = corr;
  c.is_driver = driver;
  return c;
}

// Two steps of 100 us. Step 0: forward [0,50), backward [50,100).
//   gemm A [10,30) and gemm B [20,40) overlap -> 30 us; copy [50,60) -> 10 us;
//   relu C [95,120) straddles the step boundary -> 5 us in step 0, 20 us in step 1.
//   Step 0 busy 45 us (idle 0.55), step 1 busy 20 us (idle 0.80).
//   Launches: A at 5 (forward), B at 15 (forward), copy via runtime corr 30 at 55 (backward),
//   C at 90 (backward), orphan kernel D [150,160) with no launch -> unattributed.
tbp::DecodedRecords window_records() {
  tbp::DecodedRecords r;
  r.activities.push_back(work(tbp::GpuActivityKind::kernel, "gemm", 10, 30, 1));
  r.activities.push_back(work(tbp::GpuActivityKind::kernel, "gemm", 20, 40, 2));
  auto copy = work(tbp::GpuActivityKind::memcpy, "Memcpy HtoD", 50, 60, 3);
  copy.runtime_correlation_id = 30;
  copy.copy_kind = tbp::CopyKind::h2d;
  copy.bytes = 100'000;  // 100 kB in 10 us = 10 GB/s
  r.activities.push_back(copy);
  r.activities.push_back(work(tbp::GpuActivityKind::kernel, "relu", 95, 120, 4));
  r.activities.push_back(work(tbp::GpuActivityKind::kernel, "orphan", 150, 160, 99));
  r.activities.push_back(work(tbp::GpuActivityKind::sync, "sync", 0, 200, 0));  // never GPU busy
  auto ov = work(tbp::GpuActivityKind::overhead, "CUPTI overhead", 190, 192, 0);
  r.activities.push_back(ov);
  r.calls = {launch(5, 1), launch(15, 2), launch(55, 30), launch(90, 4),
             launch(16, 1, /*driver=*/true)};  // driver call of launch 1: runtime call wins
  r.dropped_records = 7;
  return r;
}

std::vector<tbp::HostSpan> window_spans() {
  return {
      {0, "step", tbp::kCategoryStep, 0, 100 * kUs, 0},
      {0, "forward", tbp::kCategoryPhase, 0, 50 * kUs, 0},
      {0, "backward", tbp::kCategoryPhase, 50 * kUs, 100 * kUs, 0},
      {0, "step", tbp::kCategoryStep, 100 * kUs, 200 * kUs, 1},
      {1, "decode", tbp::kCategoryHost, 0, 200 * kUs, -1},  // ignored by the summary
  };
}

TEST(ProfileSummary, BusyAndIdlePerStep) {
  const auto s = tbp::summarize(window_records(), window_spans());
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].step, 0);
  EXPECT_NEAR(s.steps[0].wall_s, 100e-6, 1e-12);
  EXPECT_NEAR(s.steps[0].gpu_busy_s, 45e-6, 1e-12);
  EXPECT_NEAR(s.steps[0].idle_share, 0.55, 1e-9);
  EXPECT_NEAR(s.steps[1].gpu_busy_s, 30e-6, 1e-12);  // relu 20 us + orphan 10 us
  EXPECT_NEAR(s.steps[1].idle_share, 0.70, 1e-9);
  EXPECT_NEAR(s.window_s, 200e-6, 1e-12);
  EXPECT_NEAR(s.gpu_busy_s, 75e-6, 1e-12);
  EXPECT_NEAR(s.gpu_idle_share, 0.625, 1e-9);
}

TEST(ProfileSummary, AttributionToPhases) {
  const auto s = tbp::summarize(window_records(), window_spans());
  const auto& fwd = s.phases[static_cast<int>(tb::Phase::forward)];
  const auto& bwd = s.phases[static_cast<int>(tb::Phase::backward)];
  EXPECT_EQ(fwd.name, "forward");
  EXPECT_NEAR(fwd.kernel_s, 40e-6, 1e-12);  // A 20 + B 20 (kernel time, not union)
  EXPECT_EQ(fwd.kernels, 2u);
  EXPECT_NEAR(bwd.kernel_s, 25e-6, 1e-12);  // relu
  EXPECT_NEAR(bwd.memcpy_s, 10e-6, 1e-12);  // matched through the runtime correlation id
  EXPECT_EQ(bwd.kernels, 1u);
  EXPECT_NEAR(s.unattributed_s, 10e-6, 1e-12);  // orphan
  EXPECT_EQ(s.phases[static_cast<int>(tb::Phase::optimizer)].kernels, 0u);
}

TEST(ProfileSummary, KernelsCopiesOverheadDropped) {
  const auto s = tbp::summarize(window_records(), window_spans(), 2);
  ASSERT_EQ(s.top_kernels.size(), 2u);  // top_n
  EXPECT_EQ(s.top_kernels[0].name, "gemm");
  EXPECT_EQ(s.top_kernels[0].count, 2u);
  EXPECT_NEAR(s.top_kernels[0].total_s, 40e-6, 1e-12);
  EXPECT_NEAR(s.top_kernels[0].mean_s, 20e-6, 1e-12);
  EXPECT_NEAR(s.top_kernels[0].share, 40.0 / 75.0, 1e-9);
  EXPECT_EQ(s.top_kernels[1].name, "relu");
  EXPECT_EQ(s.kernel_count, 4u);
  ASSERT_EQ(s.copies.size(), 1u);
  EXPECT_EQ(s.copies[0].direction, tbp::CopyKind::h2d);
  EXPECT_EQ(s.copies[0].bytes, 100'000u);
  EXPECT_NEAR(s.copies[0].bandwidth_gb_s, 10.0, 1e-9);
  EXPECT_NEAR(s.overhead_s, 2e-6, 1e-12);
  EXPECT_EQ(s.dropped_records, 7u);
  EXPECT_EQ(s.api_call_count, 5u);

  const auto j = tbp::to_json(s);
  EXPECT_EQ(j["steps"].size(), 2u);
  EXPECT_EQ(j["phases"].size(), tb::kPhaseCount);
  EXPECT_EQ(j["copies"][0]["direction"], "h2d");
  EXPECT_EQ(j["top_kernels"][0]["name"], "gemm");
  EXPECT_EQ(j["dropped_records"], 7);
}

TEST(ProfileSummary, WithoutStepSpansUsesTheActivityExtent) {
  const auto s = tbp::summarize(window_records(), {});
  EXPECT_TRUE(s.steps.empty());
  EXPECT_NEAR(s.window_s, 150e-6, 1e-12);   // [10, 160)
  EXPECT_NEAR(s.gpu_busy_s, 75e-6, 1e-12);  // 30 + 10 + 25 + 10
  EXPECT_NEAR(s.gpu_idle_share, 0.5, 1e-9);
  EXPECT_NEAR(s.unattributed_s, 85e-6, 1e-12);  // no phases: every duration, 20+20+10+25+10
}

TEST(ProfileSummary, StepsWithoutIndexAreNumberedInOrder) {
  std::vector<tbp::HostSpan> spans = {
      {0, "step", tbp::kCategoryStep, 0, 100 * kUs, -1},
      {0, "step", tbp::kCategoryStep, 100 * kUs, 200 * kUs, -1},
  };
  const auto s = tbp::summarize(window_records(), spans);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].step, 0);
  EXPECT_EQ(s.steps[1].step, 1);
  EXPECT_NEAR(s.steps[0].gpu_busy_s, 45e-6, 1e-12);
}

TEST(GpuActivity, ShiftAndDemangle) {
  auto r = window_records();
  tbp::shift_timestamps(r, 1'000'000);
  EXPECT_EQ(r.activities[0].start_ns, 10 * kUs + 1'000'000);
  EXPECT_EQ(r.calls[0].end_ns, 5 * kUs + 500 + 1'000'000);
  EXPECT_EQ(tbp::demangle("_ZN2at6native6kernelEv"), "at::native::kernel()");
  EXPECT_EQ(tbp::demangle("plain_name"), "plain_name");
  EXPECT_EQ(tbp::demangle("_Znot a mangled name"), "_Znot a mangled name");
  EXPECT_EQ(tbp::demangle(nullptr), "");
}

}  // namespace
