// Reporters on the hand-made fixture run: golden outputs per format, the factory and
// partial results, and the `trainbench report` command.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/cli/commands.hpp>
#include <trainbench/reporters/bencher_reporter.hpp>
#include <trainbench/reporters/csv_reporter.hpp>
#include <trainbench/reporters/gbench_reporter.hpp>
#include <trainbench/reporters/headline.hpp>
#include <trainbench/reporters/html_chart_data.hpp>
#include <trainbench/reporters/html_report_assets.hpp>
#include <trainbench/reporters/html_reporter.hpp>
#include <trainbench/reporters/report_views.hpp>
#include <trainbench/reporters/reporter.hpp>
#include <trainbench/support/error.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

using cli::cmd_report;

using test::expect_golden;
using test::fixture_run;
using test::render;

// ------------------------------------------------------------------ goldens

// Dozens of scenarios skipped for one reason (GPU-only settings on a CPU) read as one line per
// reason, with every id still there.
TEST(SkipGroups, OneLinePerReasonInMarkdownAndHtml) {
  RunResult run = fixture_run();
  for (int i = 0; i < 3; ++i) {
    ScenarioResult s;
    s.id = "mlp/fp32/w0/a1/b" + std::to_string(8 << i) + "/pinned";
    s.status = ScenarioStatus::skipped;
    s.message = "pin_memory: needs a CUDA device";
    run.scenarios.push_back(s);
  }
  const auto groups = report::skip_groups(run);
  ASSERT_FALSE(groups.empty());
  EXPECT_EQ(groups.back().reason, "pin_memory: needs a CUDA device");
  EXPECT_EQ(groups.back().ids.size(), 3u);
  const std::string md = render("md", run);
  EXPECT_NE(md.find("**skipped** 3 scenarios: pin_memory: needs a CUDA device (`mlp/fp32/w0/a1/b8/pinned`, "
                    "`mlp/fp32/w0/a1/b16/pinned`, `mlp/fp32/w0/a1/b32/pinned`)"),
            std::string::npos)
      << md;
  const std::string html = render("html", run);
  EXPECT_NE(html.find("pin_memory: needs a CUDA device <details><summary>3 scenarios</summary>"), std::string::npos);
}

TEST(ReporterGolden, Console) { expect_golden("reporters/console.txt", render("console", fixture_run())); }
TEST(ReporterGolden, Markdown) { expect_golden("reporters/report.md", render("md", fixture_run())); }
TEST(ReporterGolden, Csv) { expect_golden("reporters/results.csv", render("csv", fixture_run())); }
TEST(ReporterGolden, Gbench) { expect_golden("reporters/gbench.json", render("gbench", fixture_run())); }
TEST(ReporterGolden, HtmlDataBlock) {
  expect_golden("reporters/html_data.json", HtmlReporter::data_block(fixture_run()) + "\n");
}

// The page with the body of every <style> and <script> element replaced by a marker. Those bodies
// are the constant stylesheet and scripts (html_report_assets.cpp) and the data block, which has
// its own golden; HtmlReporter.InlinesItsAssetsVerbatim checks they are all there, so a CSS or
// script change does not rewrite the page's golden.
std::string without_inline_bodies(const std::string& html) {
  std::string out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t open = std::min(html.find("<style", pos), html.find("<script", pos));
    if (open == std::string::npos) break;
    const std::size_t body = html.find('>', open) + 1;
    const bool style = html.compare(open, 6, "<style") == 0;
    const std::size_t close = html.find(style ? "</style>" : "</script>", body);
    out += html.substr(pos, body - pos) + "[inlined, see InlinesItsAssetsVerbatim]";
    pos = close;
  }
  return out + html.substr(pos);
}

TEST(ReporterGolden, HtmlWithoutChartJs) {
  // Without Chart.js the page is fully deterministic: tables and note, in their places.
  HtmlReporter reporter("/nonexistent/chart.min.js");
  expect_golden("reporters/report_nocharts.html", without_inline_bodies(render(reporter, fixture_run())));
}

TEST(HtmlReporter, InlinesItsAssetsVerbatim) {
  HtmlReporter reporter("/nonexistent/chart.min.js");
  const auto run = fixture_run();
  const std::string html = render(reporter, run);
  EXPECT_NE(html.find(std::string("<style>") + html_assets::kStyle + "</style>"), std::string::npos);
  EXPECT_NE(html.find(std::string("<script>") + html_assets::kPrelude + "</script>"), std::string::npos);
  EXPECT_NE(html.find("<script>" + html_assets::draw_script() + "</script>"), std::string::npos);
  // The chart colours, built from the precision table, as they were written by hand before it.
  EXPECT_NE(html.find("\n  var PRECISION_COLORS = { fp32: '#0969da', tf32: '#8250df', amp_fp16: '#bc4c00', "
                      "amp_bf16: '#1a7f37' };\n  var VERDICT_COLORS"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"tb-data\">\n" + HtmlReporter::data_block(run) + "\n</script>"), std::string::npos);
}

// ------------------------------------------------------------------ content checks

TEST(MarkdownReporter, VerdictLineComesFirstAndFlagsLossParity) {
  const std::string md = render("md", fixture_run());
  const std::string first_line = md.substr(0, md.find('\n'));
  // Two workloads: a geomean each, against its own baseline, never one over both.
  EXPECT_NE(first_line.find("geomean speedup **mlp** 0.61x [0.60, 0.62] · **transformer** 1.86x [1.82, 1.90] · 7 ok"),
            std::string::npos)
      << first_line;
  EXPECT_NE(first_line.find("1 failed"), std::string::npos);
  EXPECT_NE(first_line.find("1 loss-parity warning"), std::string::npos);
  EXPECT_EQ(first_line.rfind("### ⚠️", 0), 0u) << "trouble must not be shown as a success";
  // The faster-but-drifting bf16 transformer carries a warning in its verdict cell.
  EXPECT_NE(md.find("| faster ⚠️ loss parity |"), std::string::npos);
  EXPECT_NE(md.find("❌ **failed** `transformer/fp32/w2/a4/b32`: data loader worker 1"), std::string::npos);
  EXPECT_NE(md.find("💥 **out of memory** `transformer/fp32/w0/a1/b1024`"), std::string::npos);
  EXPECT_NE(md.find("⏭️ **skipped** `transformer/amp_fp16/w0/a1/b32`: amp_fp16 needs a CUDA device"),
            std::string::npos);
}

TEST(ConsoleReporter, ShowsReasonsAndGeomean) {
  const std::string text = render("console", fixture_run());
  EXPECT_NE(text.find("oom     transformer/fp32/w0/a1/b1024: CUDA out of memory."), std::string::npos);
  EXPECT_NE(text.find("WARNING loss parity: transformer/amp_bf16/w0/a1/b32 drifted 8.17%"), std::string::npos);
  EXPECT_NE(text.find("geomean speedup by workload\n"
                      "  mlp: 0.61x [0.60, 0.62] against mlp/fp32/w0/a1/b64\n"
                      "  transformer: 1.86x [1.82, 1.90] against transformer/fp32/w0/a1/b32\n"
                      "ok 7, failed 1, skipped 1, oom 1"),
            std::string::npos)
      << text;
}

// The fixture's transformer/fp32 scenario has mfu 0.129 and a 10M-sample projection of
// 6718 s [6650, 6790.5]; its batch search found 512 (best 256) and its memory fit predicts 1040.
TEST(MarkdownReporter, CapacitySectionFromTheResults) {
  const std::string md = render("md", fixture_run());
  ASSERT_NE(md.find("\n#### Capacity\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| `transformer/fp32/w0/a1/b32` | 5.82 | 8.650 | 67.0 | measured | 12.90% | 10M | "
                    "1.87 [1.85, 1.89] | 1.87 | 6.53 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("achieved TFLOP/s"), std::string::npos) << "one unit for the whole table";
  EXPECT_NE(md.find("| transformer | amp_bf16 | 512 | 256 | 4213.7 | 32✓ 128✓ 256✓ 512✓ 1024✗ |"), std::string::npos);
  EXPECT_NE(md.find("| transformer | amp_bf16 | 584.0 MiB | 136.9 MiB | 0.9994 | 1040 |"), std::string::npos);
  // Failed, skipped and oom scenarios never get a capacity row.
  const auto capacity = md.substr(md.find("#### Capacity"));
  EXPECT_EQ(capacity.find("b1024"), std::string::npos);
}

TEST(MarkdownReporter, ProfilingTableLinksTracesAndShowsOverhead) {
  auto run = fixture_run();
  run.scenarios[0].profile.value().overhead_vs_timed = 0.0321;
  // The traces exist beside results.json; the report is written one folder down.
  const auto dir = test::scratch_dir("md_profiling_links");
  for (const auto& [kind, path] : run.scenarios[0].profile->traces) {
    std::filesystem::create_directories((dir / path).parent_path());
    std::ofstream(dir / path) << "{}";
  }
  std::ostringstream os;
  ReportContext ctx{&os, dir.string(), (dir / "reports").string()};
  make_reporter("md")->render(run, ctx);
  const std::string md = os.str();
  ASSERT_NE(md.find("\n#### Profiling\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| `mlp/fp32/w0/a1/b64` | 5 | +3.2% | [host](../traces/mlp_fp32_w0_a1_b64.json) · "
                    "[kineto](../traces/mlp_fp32_w0_a1_b64.pt.trace.json) |"),
            std::string::npos)
      << md;
  // The other scenario's traces were never copied: said missing, not linked.
  EXPECT_NE(md.find("host (missing: `traces/transformer_amp_bf16_w0_a1_b32.json`)"), std::string::npos) << md;
  EXPECT_NE(md.find("| `transformer/amp_bf16/w0/a1/b32` | 5 | - |"), std::string::npos);
}

TEST(ConsoleReporter, CapacitySectionFromTheResults) {
  const std::string text = render("console", fixture_run());
  ASSERT_NE(text.find("\nCapacity\n"), std::string::npos) << text;
  const auto row = text.find("transformer/fp32/w0/a1/b32", text.find("\nCapacity\n"));
  ASSERT_NE(row, std::string::npos);
  const std::string line = text.substr(row, text.find('\n', row) - row);
  EXPECT_NE(line.find("12.90%"), std::string::npos) << line;
  EXPECT_NE(line.find("1.87 [1.85, 1.89]"), std::string::npos) << line;
  EXPECT_NE(text.find("batch-size search"), std::string::npos);
  EXPECT_NE(text.find("memory model"), std::string::npos);
  // The capacity section sits above the closing geomean line.
  EXPECT_LT(text.find("\nCapacity\n"), text.find("\ngeomean speedup"));
}

TEST(Reporters, CapacityEdgeCases) {
  auto run = fixture_run();
  auto& capacity = run.capacity.value();
  capacity.batch_search.at(0).hit_limit = true;
  BatchSearchEntry none_fits;
  none_fits.model = "mlp";
  none_fits.precision = "fp32";
  none_fits.probes = {capacity::Probe{64, false, 0, 0, ""}};
  capacity.batch_search.push_back(none_fits);
  capacity.memory_limit_bytes = 85899345920;
  capacity.limit_source = "budget";
  capacity.memory_fit.at(0).fixed_bytes = -1048576.0;
  run.scenarios[0].capacity.value().projection.value().cost.reset();
  const std::string md = render("md", run);
  EXPECT_NE(md.find("Batch-size search, memory limit 80.0 GiB (budget):"), std::string::npos) << md;
  EXPECT_NE(md.find("| ≥512 (search limit) | 256 |"), std::string::npos);
  EXPECT_NE(md.find("| mlp | fp32 | none fits | - | - | 64✗ |"), std::string::npos);
  EXPECT_NE(md.find("| -1.0 MiB | 136.9 MiB | 0.9994 | 1040 @ 80.0 GiB |"), std::string::npos);
  EXPECT_NE(md.find("| `mlp/fp32/w0/a1/b64` | 0.00474 | 0.072 | 67.0 | measured | 0.11% | 100M | "
                    "1.82 [1.80, 1.85] | 1.82 | - |"),
            std::string::npos);

  // Small numbers only: the table switches to GFLOP/s.
  RunResult small;
  small.run_id = "small";
  ScenarioResult s;
  s.id = "tiny";
  s.status = ScenarioStatus::ok;
  ScenarioCapacitySection tiny;
  tiny.flops_per_sample = capacity::FlopCount{0.4e6, 0.8e6};
  tiny.achieved_flops_per_s = 6.2e9;
  tiny.peak_flops_per_s = 2e11;
  tiny.peak_source = "table (fallback)";
  tiny.mfu = 0.031;
  s.capacity = tiny;
  small.scenarios.push_back(s);
  const std::string text = render("console", small);
  EXPECT_NE(text.find("achieved GFLOP/s"), std::string::npos) << text;
  EXPECT_NE(text.find("6.200"), std::string::npos) << text;
  EXPECT_NE(text.find("200.0  table (fallback)"), std::string::npos) << text;
  EXPECT_NE(text.find("3.10%"), std::string::npos) << text;
}

// One round gives no interval: the projection says so instead of a zero-width [1.82, 1.82]; and a
// column that would be dashes in every row (no capacity.target, no price) is left out (issue 26).
TEST(Reporters, CapacityProjectionWithoutIntervalAndColumnsWithNothingToShow) {
  auto run = fixture_run();
  ScenarioResult& one_round = run.scenarios.at(0);
  one_round.step_time_s.ci_method = "none";
  auto& projection = one_round.capacity.value().projection.value();
  projection.ci_low_s = projection.ci_high_s = projection.time_s;
  for (const std::string format : {"console", "md"}) {
    const std::string text = render(format, run);
    EXPECT_NE(text.find("1.82 (no interval)"), std::string::npos) << format << "\n" << text;
    EXPECT_EQ(text.find("[1.82, 1.82]"), std::string::npos) << format;
    EXPECT_NE(text.find("1.87 [1.85, 1.89]"), std::string::npos) << format;  // the others keep theirs
  }

  for (auto& s : run.scenarios)
    if (s.capacity && s.capacity->projection) s.capacity->projection->cost.reset();
  std::string text = render("console", run);
  EXPECT_NE(text.find("device-h\n"), std::string::npos) << "no price: no cost column\n" << text;
  EXPECT_EQ(text.find("  cost"), std::string::npos) << text;

  for (auto& s : run.scenarios)
    if (s.capacity) s.capacity->projection.reset();
  for (const std::string format : {"console", "md", "html"}) {
    text = render(format, run);
    for (const char* title : {"target samples", "projected h", "device-h", "cost"})
      EXPECT_EQ(text.find(title), std::string::npos) << format << ": " << title << "\n" << text;
    EXPECT_NE(text.find("MFU"), std::string::npos) << format;
  }
}

TEST(Reporters, NoCapacityOrProfilingSectionsWithoutTheirResults) {
  auto run = fixture_run();
  run.capacity.reset();
  for (auto& s : run.scenarios) {
    s.capacity.reset();
    s.profile.reset();
  }
  const std::string md = render("md", run);
  EXPECT_EQ(md.find("Capacity"), std::string::npos) << md;
  EXPECT_EQ(md.find("MFU"), std::string::npos);
  EXPECT_EQ(md.find("Profiling"), std::string::npos);
  const std::string text = render("console", run);
  EXPECT_EQ(text.find("Capacity"), std::string::npos) << text;
  EXPECT_EQ(text.find("MFU"), std::string::npos);
  // A capacity object with nothing to show (only the limit) adds no section either.
  run.capacity = RunCapacitySection{1024, "", {}, {}};
  EXPECT_EQ(render("md", run).find("Capacity"), std::string::npos);
  EXPECT_EQ(render("console", run).find("Capacity"), std::string::npos);
}

TEST(CsvReporter, QuotesPerRfc4180AndHasOneRowPerScenario) {
  EXPECT_EQ(CsvReporter::quote("plain"), "plain");
  EXPECT_EQ(CsvReporter::quote("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvReporter::quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvReporter::quote("two\nlines"), "\"two\nlines\"");

  const auto run = fixture_run();
  const std::string csv = render("csv", run);
  std::size_t rows = 0;
  for (std::size_t pos = 0; (pos = csv.find("\r\n", pos)) != std::string::npos; pos += 2) ++rows;
  EXPECT_EQ(rows, run.scenarios.size() + 1);
  // Every row has as many fields as the header (no field in the fixture holds a quoted comma
  // except the JSON option columns, which are quoted).
  EXPECT_NE(csv.find("\"{\"\"hidden\"\":512,\"\"layers\"\":3}\""), std::string::npos);
}

// Bencher Metric Format: {benchmark: {measure: {value, lower_value, upper_value}}}, latency in
// nanoseconds, throughput in samples/s with the interval inverted, only ok scenarios.
TEST(BencherReporter, LatencyThroughputAndPeakMemoryPerOkScenario) {
  auto run = fixture_run();
  run.scenarios[0].memory.peak_allocated_bytes = 0;  // a CPU scenario: the resident set's peak
  run.scenarios[0].memory.peak_rss_bytes = 123456789;
  const auto doc = BencherReporter::to_bencher_json(run);
  EXPECT_EQ(doc.size(), 7u) << "the 7 ok scenarios";
  const auto& s = run.scenarios[0];
  const auto& m = doc.at(s.id);
  EXPECT_NEAR(m.at("latency").at("value").get<double>(), s.step_time_s.median * 1e9, 1e-3);
  EXPECT_NEAR(m.at("latency").at("lower_value").get<double>(), s.step_time_s.ci_low * 1e9, 1e-3);
  EXPECT_NEAR(m.at("latency").at("upper_value").get<double>(), s.step_time_s.ci_high * 1e9, 1e-3);
  EXPECT_NEAR(m.at("throughput").at("value").get<double>(), s.samples_per_s, 1e-9);
  EXPECT_LT(m.at("throughput").at("lower_value").get<double>(), s.samples_per_s);
  EXPECT_GT(m.at("throughput").at("upper_value").get<double>(), s.samples_per_s);
  EXPECT_EQ(m.at("peak-memory").at("value"), 123456789);
  EXPECT_FALSE(doc.contains("transformer/fp32/w0/a1/b1024")) << "an oom scenario has no figures";
  // Every metric is an object with a numeric value (the BMF schema's one requirement).
  for (const auto& [bench, measures] : doc.items())
    for (const auto& [measure, metric] : measures.items()) EXPECT_TRUE(metric.at("value").is_number()) << bench;
  EXPECT_EQ(make_reporter("bencher")->default_file_name(), "bencher.json");
}

// Segments are repetitions, as google/benchmark writes --benchmark_repetitions: one iteration
// entry each, then mean, median and stddev aggregates over them.
TEST(GbenchReporter, OneRepetitionPerSegmentThenAggregates) {
  auto run = fixture_run();
  auto& s = run.scenarios[0];
  const std::vector<double> medians = {0.010, 0.012, 0.011, 0.013};
  for (int r = 0; r < 4; ++r) s.segments.push_back({r, 10, medians[r], r * 1.0});
  const auto doc = GbenchReporter::to_gbench_json(run);
  ASSERT_EQ(doc.at("benchmarks").size(), 7u + 3 + 3) << "4 repetitions and 3 aggregates in place of one entry";
  for (int r = 0; r < 4; ++r) {
    const auto& b = doc.at("benchmarks").at(r);
    EXPECT_EQ(b.at("name"), "mlp/fp32/w0/a1/b64");
    EXPECT_EQ(b.at("run_type"), "iteration");
    EXPECT_EQ(b.at("repetitions"), 4);
    EXPECT_EQ(b.at("repetition_index"), r);
    EXPECT_EQ(b.at("iterations"), 10);
    EXPECT_NEAR(b.at("real_time").get<double>(), medians[r] * 1e6, 1e-6);
  }
  const auto& mean = doc.at("benchmarks").at(4);
  EXPECT_EQ(mean.at("name"), "mlp/fp32/w0/a1/b64_mean");
  EXPECT_EQ(mean.at("run_type"), "aggregate");
  EXPECT_EQ(mean.at("aggregate_name"), "mean");
  EXPECT_NEAR(mean.at("real_time").get<double>(), 11500, 1e-6);
  EXPECT_NEAR(doc.at("benchmarks").at(5).at("real_time").get<double>(), 11500, 1e-6);        // median
  EXPECT_NEAR(doc.at("benchmarks").at(6).at("real_time").get<double>(), 1290.994449, 1e-3);  // sample stddev
  EXPECT_EQ(doc.at("benchmarks").at(7).at("name"), "mlp/amp_bf16/w0/a1/b64");
  // Segments recorded without CPU time (older results): no cpu_time in the repetitions, rather
  // than the scenario's average copied into each (a spread of 0 that compare.py calls significant).
  for (int r = 0; r < 7; ++r) EXPECT_FALSE(doc.at("benchmarks").at(r).contains("cpu_time")) << r;
}

// Each repetition's CPU time is its own segment's, and the aggregates are over them.
TEST(GbenchReporter, EachRepetitionCarriesItsSegmentsCpuTime) {
  auto run = fixture_run();
  auto& s = run.scenarios[0];
  s.disturbance.emplace().process_cpu_s = 0.2;
  const std::vector<double> cpu = {0.05, 0.07, 0.06, 0.08};  // seconds over 10 steps
  for (int r = 0; r < 4; ++r) s.segments.push_back({r, 10, 0.01, r * 1.0, cpu[static_cast<std::size_t>(r)]});
  const auto doc = GbenchReporter::to_gbench_json(run);
  for (int r = 0; r < 4; ++r)
    EXPECT_NEAR(doc.at("benchmarks").at(r).at("cpu_time").get<double>(), cpu[static_cast<std::size_t>(r)] / 10 * 1e6,
                1e-6);
  EXPECT_NEAR(doc.at("benchmarks").at(4).at("cpu_time").get<double>(), 6500, 1e-6);         // mean
  EXPECT_NEAR(doc.at("benchmarks").at(6).at("cpu_time").get<double>(), 1290.994449, 1e-3);  // sample stddev
}

TEST(GbenchReporter, OnlyOkScenariosWithMedianMicroseconds) {
  auto run = fixture_run();
  run.scenarios[0].disturbance.emplace().process_cpu_s =
      0.5 * run.scenarios[0].measured_steps * run.scenarios[0].step_time_s.median;
  const auto doc = GbenchReporter::to_gbench_json(run);
  ASSERT_EQ(doc.at("benchmarks").size(), 7u);
  const auto& first = doc.at("benchmarks").at(0);
  EXPECT_EQ(first.at("name"), "mlp/fp32/w0/a1/b64");
  EXPECT_EQ(first.at("time_unit"), "us");
  EXPECT_EQ(first.at("run_type"), "iteration");
  EXPECT_NEAR(first.at("real_time").get<double>(), run.scenarios[0].step_time_s.median * 1e6, 1e-6);
  // CPU time per step is the measured one (half the wall time here), never a copy of real_time.
  EXPECT_NEAR(first.at("cpu_time").get<double>(), first.at("real_time").get<double>() / 2, 1e-6);
  // A scenario recorded without CPU time has none (compare.py then leaves it out).
  EXPECT_FALSE(doc.at("benchmarks").at(1).contains("cpu_time"));
  EXPECT_EQ(first.at("iterations"), run.scenarios[0].measured_steps);
  EXPECT_EQ(doc.at("context").at("host_name"), "gpu-node-07");
  EXPECT_EQ(doc.at("context").at("num_cpus"), 16);
  for (const auto& b : doc.at("benchmarks")) EXPECT_NE(b.at("name"), "transformer/fp32/w0/a1/b1024");
}

TEST(GbenchReporter, ContextDescribesTheRecordedHost) {
  const auto context = GbenchReporter::to_gbench_json(fixture_run()).at("context");
  EXPECT_EQ(context.at("num_cpus"), 16);
  EXPECT_EQ(context.at("mhz_per_cpu"), 2750);
  EXPECT_EQ(context.at("cpu_scaling_enabled"), false);
  ASSERT_EQ(context.at("caches").size(), 4u);
  EXPECT_EQ(context.at("caches").at(3),
            (nlohmann::json{{"type", "Unified"}, {"level", 3}, {"size", 33554432}, {"num_sharing", 16}}));
  EXPECT_EQ(context.at("load_avg"), (nlohmann::json{0.42, 0.35, 0.3}));
}

TEST(GbenchReporter, ManifestWithoutHostWritesGbenchUnknowns) {
  // An older manifest (environment.cpp before the host section): num_cpus from its cpu section,
  // the rest as google benchmark writes unknown; never the machine rendering the report.
  auto run = fixture_run();
  run.environment = {{"hostname", "old-box"}, {"cpu", {{"model", "x"}, {"cores", 2}}}};
  auto context = GbenchReporter::to_gbench_json(run).at("context");
  EXPECT_EQ(context.at("num_cpus"), 2);
  EXPECT_EQ(context.at("mhz_per_cpu"), 0);
  EXPECT_EQ(context.at("caches"), nlohmann::json::array());
  EXPECT_EQ(context.at("load_avg"), nlohmann::json::array());
  EXPECT_FALSE(context.contains("cpu_scaling_enabled"));

  run.environment["host"] = {{"num_cpus", "sixteen"}};  // malformed: unknown, not an error
  context = GbenchReporter::to_gbench_json(run).at("context");
  EXPECT_EQ(context.at("num_cpus"), 2);
  EXPECT_EQ(context.at("host_name"), "old-box");
}

TEST(HtmlChartData, ListsTheExpectedCharts) {
  const auto data = html_chart_data(fixture_run());
  std::vector<std::string> ids;
  for (const auto& c : data.at("charts")) ids.push_back(c.at("id"));
  // Loss and step-time charts are small multiples: the fixture's five mlp scenarios split by
  // precision, its two transformer scenarios share one chart.
  EXPECT_EQ(ids, (std::vector<std::string>{"capacity-transformer-amp_bf16", "speedup", "phases", "throughput-workers",
                                           "throughput-batch", "loss-mlp-fp32", "loss-mlp-amp_bf16", "loss-transformer",
                                           "loss-difference-mlp", "loss-difference-transformer", "steps-mlp-fp32",
                                           "steps-mlp-amp_bf16", "steps-transformer"}));
  const auto& speedup = data.at("charts").at(1);
  // Baselines are not bars; the drifting bf16 transformer is marked.
  EXPECT_EQ(speedup.at("labels").size(), 5u);
  EXPECT_EQ(speedup.at("loss_parity_ok").back(), false);
}

TEST(HtmlReporter, MissingChartJsShowsVisibleNote) {
  HtmlReporter reporter("/nonexistent/chart.min.js");
  const std::string html = render(reporter, fixture_run());
  EXPECT_NE(html.find("id=\"tb-charts-missing\""), std::string::npos);
  EXPECT_NE(html.find("/nonexistent/chart.min.js"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"tb-scenarios\">"), std::string::npos);
}

TEST(HtmlReporter, InlinesChartJsAndLinksTraces) {
  HtmlReporter reporter;
  if (reporter.chartjs_path().empty() || !std::filesystem::exists(reporter.chartjs_path()))
    GTEST_SKIP() << "Chart.js not installed (libjs-chart.js)";
  const auto run = fixture_run();
  // Every trace the fixture names exists beside results.json; the report goes one folder down.
  const auto dir = test::scratch_dir("html_trace_links");
  for (const auto& s : run.scenarios)
    if (s.profile)
      for (const auto& [kind, path] : s.profile->traces) {
        std::filesystem::create_directories((dir / path).parent_path());
        std::ofstream(dir / path) << "{}";
      }
  std::ostringstream os;
  ReportContext ctx;
  ctx.out = &os;
  ctx.results_dir = dir.string();
  ctx.report_dir = (dir / "html").string();
  reporter.render(run, ctx);
  const std::string html = os.str();
  EXPECT_EQ(html.find("tb-charts-missing"), std::string::npos);
  EXPECT_NE(html.find("Chart.js v"), std::string::npos) << "Chart.js must be inlined";
  EXPECT_EQ(html.find("<script src="), std::string::npos) << "the page must work offline";
  EXPECT_NE(html.find("href=\"../traces/mlp_fp32_w0_a1_b64.json\""), std::string::npos);
  EXPECT_NE(html.find("href=\"../traces/transformer_amp_bf16_w0_a1_b32.pt.trace.json\""), std::string::npos);
}

TEST(ReportViews, TraceLinksAreRelativeToTheReport) {
  std::ostringstream os;
  ReportContext ctx{&os, "/a/results", "/a/results"};
  EXPECT_EQ(report::trace_link(ctx, "traces/x.json"), "traces/x.json");
  ctx.report_dir = "/a/reports";
  EXPECT_EQ(report::trace_link(ctx, "traces/x.json"), "../results/traces/x.json");
}

TEST(Reporters, PartialResultsRenderDashes) {
  // A run written before the statistics engineer's annotations: no extra sections at all.
  auto run = fixture_run();
  run.extra = nlohmann::json::object();
  run.summary.reset();
  run.capacity.reset();
  for (auto& s : run.scenarios) {
    s.extra = nlohmann::json::object();
    s.comparison.reset();
    s.loss_parity.reset();
    s.profile.reset();
    s.capacity.reset();
  }
  const std::string console = render("console", run);
  EXPECT_NE(console.find("geomean speedup by workload\n  mlp: -\n  transformer: -\nok 7, failed 1, skipped 1, oom 1"),
            std::string::npos)
      << console;
  const std::string md = render("md", run);
  EXPECT_NE(md.find("geomean speedup **mlp** - · **transformer** - ·"), std::string::npos) << md;
  EXPECT_EQ(md.find("loss-parity"), std::string::npos);
  const auto data = html_chart_data(run);
  for (const auto& c : data.at("charts")) EXPECT_NE(c.at("id"), "speedup");
  EXPECT_NO_THROW(render("csv", run));
  EXPECT_NO_THROW(render("gbench", run));
  HtmlReporter html("/nonexistent");
  EXPECT_NO_THROW(render(html, run));
}

// A run without a baseline (a capacity run: each scenario another model or precision at its own
// batch) has no speed-ups: no geomean and no speed-up or verdict column full of dashes.
TEST(Reporters, RunWithoutBaselineShowsNoSpeedupColumns) {
  auto run = fixture_run();
  run.baseline_id.clear();
  run.summary.reset();
  for (auto& s : run.scenarios) s.comparison.reset();
  const std::string console = render("console", run);
  EXPECT_EQ(console.find("speedup"), std::string::npos) << console;
  EXPECT_NE(console.find("\nok 7, failed 1, skipped 1, oom 1"), std::string::npos) << console;
  const std::string md = render("md", run);
  EXPECT_EQ(md.find("speedup"), std::string::npos) << md;
  EXPECT_EQ(md.find("| verdict |"), std::string::npos);
  EXPECT_NE(md.find("no baseline: each scenario stands alone"), std::string::npos);
  // Every row of the scenario table has as many cells as its header.
  const auto header = md.find("| scenario | status |");
  ASSERT_NE(header, std::string::npos);
  const auto cells = [](const std::string& line) { return std::count(line.begin(), line.end(), '|'); };
  const std::string header_line = md.substr(header, md.find('\n', header) - header);
  std::size_t at = md.find('\n', header) + 1;
  for (std::string line; at < md.size() && md[at] == '|'; at += line.size() + 1) {
    line = md.substr(at, md.find('\n', at) - at);
    EXPECT_EQ(cells(line), cells(header_line)) << line;
  }
  HtmlReporter html("/nonexistent");
  const std::string page = render(html, run);
  EXPECT_EQ(page.find("speed-up [95% CI]"), std::string::npos);
  EXPECT_NE(page.find("no baseline"), std::string::npos);
}

TEST(Reporters, InterruptedScenariosAreCountedAndListed) {
  // A run stopped by Ctrl-C: its unfinished scenarios are trouble, with the way out in the text.
  auto run = fixture_run();
  run.summary.reset();  // counted from the scenarios, as after an interrupt
  auto& s = run.scenarios.back();
  s.status = ScenarioStatus::interrupted;
  s.message = "interrupted after 2 segment(s); trainbench run --resume measures it again";
  const std::string console = render("console", run);
  EXPECT_NE(console.find(", interrupted 1"), std::string::npos) << console;
  EXPECT_NE(console.find("interrupted " + s.id + ": interrupted after 2 segment(s)"), std::string::npos);
  const std::string md = render("md", run);
  EXPECT_NE(md.substr(0, md.find('\n')).find("1 interrupted"), std::string::npos);
  EXPECT_NE(md.find("⏸️ **interrupted** `" + s.id + "`"), std::string::npos);
  HtmlReporter html("/nonexistent");
  EXPECT_NE(render(html, run).find(" · 1 interrupted"), std::string::npos);
}

TEST(Reporters, EmptyRunRenders) {
  RunResult run;
  run.run_id = "empty";
  for (const auto& f : known_report_formats()) {
    if (f == "html") {
      HtmlReporter html("/nonexistent");
      EXPECT_NO_THROW(render(html, run));
    } else {
      EXPECT_NO_THROW(render(f, run)) << f;
    }
  }
}

// ------------------------------------------------------------------ factory

TEST(ReporterFactory, KnownFormats) {
  for (const auto& f : known_report_formats()) EXPECT_EQ(make_reporter(f)->name(), f);
  EXPECT_EQ(make_reporter("md")->default_file_name(), "report.md");
  EXPECT_EQ(make_reporter("csv")->default_file_name(), "results.csv");
  EXPECT_EQ(make_reporter("html")->default_file_name(), "report.html");
  EXPECT_EQ(make_reporter("gbench")->default_file_name(), "gbench.json");
  EXPECT_EQ(default_report_formats(), (std::vector<std::string>{"md", "csv", "html", "gbench"}));
}

TEST(ReporterFactory, UnknownFormatNamesTheOption) {
  try {
    make_reporter("pdf");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "--format");
    EXPECT_NE(std::string(e.what()).find("'pdf'"), std::string::npos);
  }
  EXPECT_THROW(parse_report_formats("md,,csv"), InputError);
  EXPECT_EQ(parse_report_formats("md,csv,md"), (std::vector<std::string>{"md", "csv"}));
}

TEST(Reporter, RenderWithoutStreamThrows) {
  auto r = make_reporter("md");
  EXPECT_THROW(r->render(fixture_run(), ReportContext{}), std::invalid_argument);
}

TEST(WriteReports, WritesOneFilePerFormat) {
  const auto dir = test::scratch_dir("write_reports");
  const auto paths = write_reports(fixture_run(), dir.string(), default_report_formats());
  ASSERT_EQ(paths.size(), 4u);
  for (const char* name : {"report.md", "results.csv", "report.html", "gbench.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / name)) << name;
    EXPECT_GT(std::filesystem::file_size(dir / name), 100u) << name;
  }
  EXPECT_EQ(test::read_text(dir / "report.md"), render("md", fixture_run()));
}

// ------------------------------------------------------------------ trainbench report

TEST(ReportCommand, WritesFilesAndConsole) {
  const auto dir = test::scratch_dir("report_command");
  std::filesystem::copy_file(test::fixture_path(), dir / "results.json");
  std::ostringstream out, err;
  const int rc = cmd_report({dir.string(), "--format", "console,md", "--out=" + (dir / "r").string()}, out, err);
  EXPECT_EQ(rc, 0) << err.str();
  EXPECT_NE(out.str().find("  mlp: 0.61x [0.60, 0.62] against mlp/fp32/w0/a1/b64"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("wrote " + (dir / "r" / "report.md").string()), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "r" / "report.md"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r" / "results.csv"));
}

TEST(ReportCommand, UnwritableOutIsAnOutputErrorForMain) {
  const auto dir = test::scratch_dir("report_command_unwritable");
  std::ofstream(dir / "file") << "x";
  std::ostringstream out, err;
  EXPECT_THROW(cmd_report({test::fixture_path(), "--out", (dir / "file" / "r").string()}, out, err), OutputError);
}

TEST(ReportCommand, DefaultsToFileFormatsNextToResults) {
  const auto dir = test::scratch_dir("report_command_default");
  std::filesystem::copy_file(test::fixture_path(), dir / "results.json");
  std::ostringstream out, err;
  EXPECT_EQ(cmd_report({(dir / "results.json").string()}, out, err), 0) << err.str();
  for (const char* name : {"report.md", "results.csv", "report.html", "gbench.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / name)) << name;
}

TEST(ReportCommand, BadInputReturnsTwoAndNamesTheProblem) {
  std::ostringstream out, err;
  EXPECT_EQ(cmd_report({test::fixture_path(), "--format", "md,pdf"}, out, err), 2);
  EXPECT_NE(err.str().find("--format: unknown report format 'pdf'"), std::string::npos) << err.str();

  err.str("");
  EXPECT_EQ(cmd_report({"/nonexistent/results.json"}, out, err), 2);
  EXPECT_NE(err.str().find("/nonexistent/results.json"), std::string::npos) << err.str();

  err.str("");
  EXPECT_EQ(cmd_report({}, out, err), 2);
  EXPECT_NE(err.str().find("RESULTS"), std::string::npos);

  err.str("");
  EXPECT_EQ(cmd_report({test::fixture_path(), "--bogus"}, out, err), 2);
  EXPECT_NE(err.str().find("--bogus"), std::string::npos);

  const auto dir = test::scratch_dir("report_command_bad_json");
  std::ofstream(dir / "results.json") << "{\"schema_version\": 1, \"run_id\": \"x\", \"scenarios\": [{}]}";
  err.str("");
  EXPECT_EQ(cmd_report({dir.string()}, out, err), 2);
  EXPECT_NE(err.str().find((dir / "results.json").string()), std::string::npos) << err.str();
}

}  // namespace
}  // namespace tb
