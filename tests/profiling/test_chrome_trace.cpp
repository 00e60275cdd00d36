// Chrome trace writer: valid Trace Event Format JSON that Perfetto and chrome://tracing accept.
// Checked structurally (metadata, nesting per track, flows, relative timestamps, gzip) on a
// synthetic window, and textually against a golden file.
#include <trainbench/profiling/chrome_trace_logger.hpp>

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include <trainbench/support/error.hpp>
#include "tests/helpers/golden_file.hpp"

namespace tbp = tb::profiling;
using nlohmann::json;

namespace {

constexpr std::int64_t kBase = 5'000'000'000;  // arbitrary steady_clock origin

tbp::GpuActivity kernel(const char* name, std::int64_t start, std::int64_t end, std::uint32_t stream,
                        std::uint32_t corr) {
  tbp::GpuActivity a;
  a.kind = tbp::GpuActivityKind::kernel;
  a.name = name;
  a.start_ns = kBase + start;
  a.end_ns = kBase + end;
  a.device = 0;
  a.context = 1;
  a.stream = stream;
  a.correlation_id = corr;
  return a;
}

tbp::RuntimeCall call(const char* name, std::int64_t start, std::int64_t end, std::uint32_t corr, bool driver = false) {
  tbp::RuntimeCall c;
  c.name = name;
  c.start_ns = kBase + start;
  c.end_ns = kBase + end;
  c.thread_id = 4242;
  c.correlation_id = corr;
  c.is_driver = driver;
  return c;
}

// A fully deterministic window: one step with three phases on the main thread, a worker
// decoding, launches with their kernels and a copy, a sync, an overhead record and counters.
tbp::ChromeTraceLogger make_logger(const std::string& path = "", bool gzip = false) {
  tbp::ChromeTraceLogger log(path, gzip);
  log.handle_thread({0, "main"});
  log.handle_thread({1, "loader-0"});
  log.handle_host_span({0, "step", tbp::kCategoryStep, kBase + 1000, kBase + 50'000, 0});
  log.handle_host_span({0, "h2d", tbp::kCategoryPhase, kBase + 1000, kBase + 5000, 0});
  log.handle_host_span({0, "forward", tbp::kCategoryPhase, kBase + 5000, kBase + 20'000, 0});
  log.handle_host_span({0, "backward", tbp::kCategoryPhase, kBase + 20'000, kBase + 50'000, 0});
  log.handle_host_span({1, "decode \"jpeg\"", tbp::kCategoryHost, kBase + 0, kBase + 30'000, -1});
  log.handle_runtime_call(call("cudaMemcpyAsync", 1500, 2500, 10));
  log.handle_runtime_call(call("cudaLaunchKernel", 6000, 7000, 11));
  log.handle_runtime_call(call("cuLaunchKernel", 6200, 6900, 11, true));
  log.handle_runtime_call(call("cudaLaunchKernel", 21'000, 22'000, 12));
  tbp::GpuActivity copy;
  copy.kind = tbp::GpuActivityKind::memcpy;
  copy.name = "Memcpy HtoD";
  copy.copy_kind = tbp::CopyKind::h2d;
  copy.start_ns = kBase + 3000;
  copy.end_ns = kBase + 4000;
  copy.context = 1;
  copy.stream = 8;
  copy.bytes = 4096;
  copy.correlation_id = 10;
  log.handle_gpu_activity(copy);
  log.handle_gpu_activity(kernel("gemm_kernel", 8000, 18'000, 7, 11));
  // Ends after the next kernel starts on the same stream: clock skew the writer must repair.
  log.handle_gpu_activity(kernel("relu_kernel", 17'500, 19'000, 7, 0));
  log.handle_gpu_activity(kernel("gemm_bwd", 23'000, 45'000, 7, 12));
  tbp::GpuActivity sync;
  sync.kind = tbp::GpuActivityKind::sync;
  sync.name = "cudaStreamSynchronize";
  sync.start_ns = kBase + 45'500;
  sync.end_ns = kBase + 49'000;
  sync.context = 1;
  sync.stream = 7;
  log.handle_gpu_activity(sync);
  tbp::GpuActivity overhead;
  overhead.kind = tbp::GpuActivityKind::overhead;
  overhead.name = "CUPTI overhead";
  overhead.start_ns = kBase + 49'000;
  overhead.end_ns = kBase + 49'500;
  log.handle_gpu_activity(overhead);
  log.handle_counter({"memory_allocated_bytes", kBase + 1000, 1048576});
  log.handle_counter({"step_time_ms", kBase + 50'000, 0.049});
  return log;
}

tbp::TraceInfo info() {
  tbp::TraceInfo i;
  i.name = "mlp/fp32/w0/a1/b64";
  i.metadata = {{"window_steps", 1}};
  return i;
}

std::int64_t to_ns(const json& us) { return std::llround(us.get<double>() * 1000.0); }

// Every structural property a viewer relies on.
void check_trace(const json& trace) {
  ASSERT_TRUE(trace.contains("traceEvents"));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  std::set<std::pair<long, long>> named_threads;
  std::set<long> named_processes;
  std::map<std::pair<long, long>, std::vector<std::pair<std::int64_t, std::int64_t>>> tracks;
  std::map<long long, int> flow_starts, flow_ends;
  std::int64_t min_ts = std::numeric_limits<std::int64_t>::max();
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    if (ph == "M") {
      if (e["name"] == "process_name") named_processes.insert(e["pid"].get<long>());
      if (e["name"] == "thread_name") named_threads.insert({e["pid"].get<long>(), e["tid"].get<long>()});
      continue;
    }
    const std::int64_t ts = to_ns(e.at("ts"));
    EXPECT_GE(ts, 0) << e.dump();
    min_ts = std::min(min_ts, ts);
    if (ph == "X") {
      const std::int64_t dur = to_ns(e.at("dur"));
      EXPECT_GE(dur, 0);
      tracks[{e["pid"].get<long>(), e["tid"].get<long>()}].push_back({ts, ts + dur});
    } else if (ph == "s") {
      ++flow_starts[e.at("id").get<long long>()];
    } else if (ph == "f") {
      EXPECT_EQ(e.at("bp"), "e");
      ++flow_ends[e.at("id").get<long long>()];
    } else {
      EXPECT_EQ(ph, "C");
      EXPECT_TRUE(e.at("args").contains("value"));
    }
  }
  EXPECT_EQ(min_ts, 0) << "timestamps are relative to the earliest event";
  EXPECT_EQ(flow_starts, flow_ends) << "every flow start needs its end";
  for (auto& [key, slices] : tracks) {
    EXPECT_TRUE(named_threads.count(key)) << "track without thread_name: " << key.first << "/" << key.second;
    EXPECT_TRUE(named_processes.count(key.first)) << "process without name: " << key.first;
    std::sort(slices.begin(), slices.end(),
              [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<std::int64_t> open;
    for (const auto& [b, e] : slices) {
      while (!open.empty() && b >= open.back()) open.pop_back();
      if (!open.empty()) { EXPECT_LE(e, open.back()) << "partial overlap on track " << key.first << "/" << key.second; }
      open.push_back(e);
    }
  }
}

TEST(ChromeTrace, StructureIsValid) {
  const auto log = make_logger();
  const json trace = json::parse(log.serialize(info()));
  check_trace(trace);
  EXPECT_EQ(trace["otherData"]["name"], "mlp/fp32/w0/a1/b64");
  EXPECT_EQ(trace["otherData"]["window_steps"], 1);
  EXPECT_EQ(trace["otherData"]["trace_start_steady_ns"].get<std::int64_t>(), kBase);

  int kernels = 0, flows = 0, counters = 0, worker_spans = 0;
  std::set<std::string> process_names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "kernel") {
      ++kernels;
      EXPECT_EQ(e["pid"], 100);  // GPU 0
      EXPECT_EQ(e["tid"], 8);    // stream 7
    }
    if (e["ph"] == "X" && e["tid"] == 2) ++worker_spans;
    if (e["ph"] == "s") ++flows;
    if (e["ph"] == "C") ++counters;
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.insert(e["args"]["name"]);
  }
  EXPECT_EQ(kernels, 3);
  EXPECT_EQ(flows, 3);  // memcpy, two kernels; relu has no launching call in the window
  EXPECT_EQ(counters, 2);
  EXPECT_EQ(worker_spans, 1);
  EXPECT_TRUE(process_names.count("GPU 0"));
  EXPECT_TRUE(process_names.count("Host (trainbench)"));
}

// In Kineto's time base the same events sit at (Unix time - baseTimeNanoseconds) / 1000 us:
// every event shifted by the same amount (so nested and ordered as before).
TEST(ChromeTrace, KinetoTimeBaseShiftsEveryEvent) {
  const json relative = json::parse(make_logger().serialize(info()));
  auto based_info = info();
  constexpr std::int64_t kUnixMinusSteady = 1'700'000'000'000'000'000;
  constexpr std::int64_t kKinetoBase = kUnixMinusSteady + kBase - 3'000'000;  // 3 ms before the first event
  based_info.time_base = tbp::TraceTimeBase{kUnixMinusSteady, kKinetoBase};
  const json based = json::parse(make_logger().serialize(based_info));
  EXPECT_EQ(based["baseTimeNanoseconds"].get<std::int64_t>(), kKinetoBase);
  EXPECT_FALSE(relative.contains("baseTimeNanoseconds"));
  EXPECT_EQ(based["otherData"]["trace_start_steady_ns"].get<std::int64_t>(), kBase - 3'000'000);
  ASSERT_EQ(based["traceEvents"].size(), relative["traceEvents"].size());
  for (std::size_t i = 0; i < based["traceEvents"].size(); ++i) {
    const auto& b = based["traceEvents"][i];
    if (!b.contains("ts") || b["ph"] == "M") continue;
    EXPECT_EQ(to_ns(b["ts"]), to_ns(relative["traceEvents"][i]["ts"]) + 3'000'000) << b.dump();
  }
  // Without a given base: the first event's Unix second, so ts stay small and exact.
  based_info.time_base = tbp::TraceTimeBase{kUnixMinusSteady, std::nullopt};
  const json own = json::parse(make_logger().serialize(based_info));
  EXPECT_EQ(own["baseTimeNanoseconds"].get<std::int64_t>() % 1'000'000'000, 0);
  EXPECT_LE(own["baseTimeNanoseconds"].get<std::int64_t>(), kUnixMinusSteady + kBase);
}

TEST(ChromeTrace, FlowStartsOnTheRuntimeCallNotTheDriverCall) {
  const json trace = json::parse(make_logger().serialize(info()));
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "s" || e["id"] != 11) continue;
    EXPECT_EQ(to_ns(e["ts"]), 6000 - 0);  // cudaLaunchKernel starts at +6000 ns, trace starts at +0
  }
}

TEST(ChromeTrace, PartialOverlapOnAStreamIsClamped) {
  const json trace = json::parse(make_logger().serialize(info()));
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "relu_kernel") {
      EXPECT_EQ(to_ns(e["ts"]), 17'500);
      EXPECT_EQ(to_ns(e["dur"]), 500);  // clamped to the end of gemm_kernel
    }
  }
}

std::string read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return "";
  std::string out;
  char buf[1 << 14];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ChromeTrace, WritesPlainAndGzipFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("tb_trace_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string plain = (dir / "t.json").string();
  const std::string gz = (dir / "t.json.gz").string();
  make_logger(plain, false).finalize(info());
  make_logger(gz, true).finalize(info());
  const std::string text = read_file(plain);
  const std::string raw_gz = read_file(gz);
  ASSERT_GE(raw_gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(raw_gz[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(raw_gz[1]), 0x8b);
  const std::string unzipped = read_gzip(gz);
  EXPECT_EQ(unzipped, text);
  check_trace(json::parse(unzipped));
  std::filesystem::remove_all(dir);
}

TEST(ChromeTrace, UnwritablePathNamesTheFile) {
  // Under a regular file: no folder can be created there, not even by root.
  const auto file = std::filesystem::temp_directory_path() / ("tb_trace_file_" + std::to_string(::getpid()));
  std::ofstream(file) << "x";
  const std::string path = (file / "trace.json").string();
  auto log = make_logger(path);
  try {
    log.finalize(info());
    FAIL() << "expected an error";
  } catch (const tb::OutputError& e) { EXPECT_EQ(e.path(), path); }
  std::filesystem::remove(file);
}

TEST(ChromeTrace, FromRecorderWithWorkerThreads) {
  tbp::HostRecorder rec(1024);
  {
    tbp::ActiveRecorderScope active(rec);
    tbp::HostRecorder::set_thread_name("main");
    TB_HOST_SPAN("step", tbp::kCategoryStep, 0);
    std::thread worker([] {
      tbp::HostRecorder::set_thread_name("loader-0");
      for (int i = 0; i < 5; ++i) { TB_HOST_SPAN("decode"); }
    });
    worker.join();
  }
  const auto path =
      (std::filesystem::temp_directory_path() / ("tb_rec_" + std::to_string(::getpid()) + ".json")).string();
  tbp::write_chrome_trace(rec, {}, {}, path, false, info());
  const json trace = json::parse(read_file(path));
  check_trace(trace);
  std::set<std::string> thread_names;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names.insert(e["args"]["name"]);
  EXPECT_TRUE(thread_names.count("main"));
  EXPECT_TRUE(thread_names.count("loader-0"));
  std::filesystem::remove(path);
}

TEST(ChromeTrace, TraceFileName) {
  EXPECT_EQ(tbp::trace_file_name("mlp/fp32/w0/a1/b64", "host", false), "mlp_fp32_w0_a1_b64.host.json");
  EXPECT_EQ(tbp::trace_file_name("a b", "kineto", true), "a_b.kineto.json.gz");
  EXPECT_EQ(tbp::trace_file_name("", "host", false), "scenario.host.json");
}

TEST(ChromeTrace, MatchesGolden) {
  tb::test::expect_golden("profiling/chrome_trace_small.json", make_logger().serialize(info()));
}

}  // namespace
