#include <trainbench/cli/report_bundle.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/cli/commands.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace {

using namespace tb;
namespace fs = std::filesystem;

// A results folder with the fixture's results.json and, of the traces it names, only the first
// scenario's host trace.
struct RunFolder {
  fs::path dir;
  std::string present, absent;
};
RunFolder run_folder(const std::string& name) {
  RunFolder f{test::scratch_dir(name), "", ""};
  fs::copy_file(test::fixture_path(), f.dir / "results.json");
  for (const auto& s : test::fixture_run().scenarios) {
    if (!s.profile) continue;
    for (const auto& [kind, path] : s.profile->traces) {
      if (f.present.empty() && kind == "host") {
        f.present = path;
        fs::create_directories((f.dir / path).parent_path());
        std::ofstream(f.dir / path) << "{\"traceEvents\": []}";
      } else if (f.absent.empty() && kind != "host") {
        f.absent = path;
      }
    }
  }
  return f;
}

TEST(ReportBundle, OneFolderWithResultsTracesAndReportsLinkingThem) {
  const RunFolder run = run_folder("bundle_ok");
  ASSERT_FALSE(run.present.empty());
  ASSERT_FALSE(run.absent.empty());
  const fs::path bundle = run.dir.parent_path() / "bundle_ok_out";
  fs::remove_all(bundle);
  std::ostringstream out, err;
  ASSERT_EQ(cli::cmd_report({run.dir.string(), "--bundle", bundle.string()}, out, err), 0) << err.str();
  EXPECT_TRUE(fs::exists(bundle / "results.json"));
  EXPECT_TRUE(fs::exists(bundle / run.present));
  for (const char* name : {"report.md", "report.html", "results.csv", "gbench.json"})
    EXPECT_TRUE(fs::exists(bundle / name)) << name;
  // The trace that exists is linked relative to the bundle; the one that does not is said missing.
  const std::string md = test::read_text(bundle / "report.md");
  EXPECT_NE(md.find("(" + run.present + ")"), std::string::npos) << md;
  EXPECT_NE(md.find("(missing: `" + run.absent + "`)"), std::string::npos) << md;
  const std::string html = test::read_text(bundle / "report.html");
  EXPECT_NE(html.find("href=\"" + run.present + "\""), std::string::npos);
  EXPECT_NE(html.find("<code>" + run.absent + "</code> <span class=\"warn\">missing</span>"), std::string::npos);
  EXPECT_NE(err.str().find("trace " + run.absent + " is missing"), std::string::npos) << err.str();
}

TEST(ReportBundle, RefusesItsOwnResultsFolderAndAnOutBeside) {
  const RunFolder run = run_folder("bundle_bad");
  std::ostringstream out, err;
  EXPECT_EQ(cli::cmd_report({run.dir.string(), "--bundle", run.dir.string()}, out, err), 2);
  EXPECT_NE(err.str().find("--bundle"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(cli::cmd_report({run.dir.string(), "--bundle", (run.dir / "b").string(), "--out", "x"}, out, err), 2);
  EXPECT_NE(err.str().find("leave out --out"), std::string::npos) << err.str();
  // A bundle folder that cannot be made is an OutputError, which main turns into exit 5.
  std::ofstream(run.dir / "file") << "x";
  EXPECT_THROW(cli::bundle_run(test::fixture_run(), run.dir.string(), (run.dir / "file" / "b").string()), OutputError);
}

}  // namespace
