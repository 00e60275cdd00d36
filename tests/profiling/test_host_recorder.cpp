// HostRecorder: spans and counters from several threads, thread names, capacity limits, and
// TB_HOST_SPAN doing nothing without an active recorder.
#include <trainbench/profiling/host_recorder.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace tbp = tb::profiling;

namespace {

TEST(HostRecorder, InactiveSpanRecordsNothing) {
  ASSERT_EQ(tbp::active_recorder(), nullptr);
  tbp::HostRecorder rec(16);
  { TB_HOST_SPAN("decode"); }
  EXPECT_TRUE(rec.spans().empty());
}

TEST(HostRecorder, ActiveScopeRecordsAndRestores) {
  tbp::HostRecorder rec(16);
  {
    tbp::ActiveRecorderScope active(rec);
    EXPECT_EQ(tbp::active_recorder(), &rec);
    tbp::HostRecorder::set_thread_name("main");
    { TB_HOST_SPAN("decode"); }
    { TB_HOST_SPAN("collate", "loader"); }
    rec.record_counter("memory_allocated_bytes", 1024.0);
  }
  EXPECT_EQ(tbp::active_recorder(), nullptr);
  const auto spans = rec.spans();
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_STREQ(spans[0].name, "decode");
  EXPECT_STREQ(spans[0].category, tbp::kCategoryHost);
  EXPECT_STREQ(spans[1].category, "loader");
  EXPECT_LE(spans[0].begin_ns, spans[0].end_ns);
  EXPECT_LE(spans[0].end_ns, spans[1].begin_ns);
  ASSERT_EQ(rec.threads().size(), 1u);
  EXPECT_EQ(rec.threads()[0].name, "main");
  ASSERT_EQ(rec.counters().size(), 1u);
  EXPECT_DOUBLE_EQ(rec.counters()[0].value, 1024.0);
}

TEST(HostRecorder, WorkerThreadsGetTheirOwnIdsAndNames) {
  tbp::HostRecorder rec(4096);
  tbp::ActiveRecorderScope active(rec);
  rec.record_span("forward", tbp::kCategoryPhase, 10, 20, 0);  // main thread registers first
  std::vector<std::thread> workers;
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([w] {
      tbp::HostRecorder::set_thread_name("loader-" + std::to_string(w));
      for (int i = 0; i < 100; ++i) { TB_HOST_SPAN("decode"); }
    });
  }
  for (auto& t : workers) t.join();
  const auto threads = rec.threads();
  ASSERT_EQ(threads.size(), 4u);
  std::vector<std::string> names;
  for (const auto& t : threads) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names[0], "loader-0");
  EXPECT_EQ(names[1], "loader-1");
  EXPECT_EQ(names[2], "loader-2");
  const auto spans = rec.spans();
  EXPECT_EQ(spans.size(), 301u);
  for (std::uint32_t id = 1; id < 4; ++id)
    EXPECT_EQ(std::count_if(spans.begin(), spans.end(), [id](const auto& s) { return s.thread == id; }), 100);
}

TEST(HostRecorder, FullRecorderDropsInsteadOfGrowing) {
  tbp::HostRecorder rec(4, 1);
  for (int i = 0; i < 10; ++i) rec.record_span("x", tbp::kCategoryHost, i, i + 1);
  rec.record_counter("c", 1);
  rec.record_counter("c", 2);
  EXPECT_EQ(rec.spans().size(), 4u);
  EXPECT_EQ(rec.counters().size(), 1u);
  EXPECT_EQ(rec.dropped(), 7u);
  rec.clear();
  EXPECT_TRUE(rec.spans().empty());
  EXPECT_EQ(rec.dropped(), 0u);
}

TEST(HostRecorder, EndBeforeBeginIsClamped) {
  tbp::HostRecorder rec(4);
  rec.record_span("x", tbp::kCategoryHost, 100, 50);
  ASSERT_EQ(rec.spans().size(), 1u);
  EXPECT_EQ(rec.spans()[0].end_ns, 100);
}

}  // namespace
