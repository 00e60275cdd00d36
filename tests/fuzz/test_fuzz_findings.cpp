// Inputs the fuzz targets (tests/fuzz/) found to crash, exhaust memory or leak a library error,
// each now a clean InputError naming the source and the field. The same inputs are replayed by
// the fuzz tests from tests/fuzz/regressions/.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/json_input.hpp>
#include "tests/helpers/matrix_catalog.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const json& base_matrix() {
  static const json j = json::parse(R"({"name": "m", "model": "mlp", "axes": {"batch": [8, 16]}})");
  return j;
}

MatrixSpec parse_with_overrides(const std::vector<std::string>& overrides) {
  return parse_matrix(apply_set_overrides(base_matrix(), overrides), "m.json", full_catalog());
}

RunResult load_results_text(const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("tb_fuzz_finding_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << text;
  struct Remove {
    fs::path p;
    ~Remove() { fs::remove(p); }
  } cleanup{path};
  return load_results(path.string());
}

// A results.json with one scenario of these metrics and params.
std::string results_text(const std::string& metrics, const std::string& params) {
  return R"({"schema_version": 1, "run_id": "r", "scenarios": [{"id": "s", "status": "ok", "metrics": )" + metrics +
         R"(, "params": )" + params + "}]}";
}

struct Finding {
  const char* what;
  std::function<void()> read;
  std::string message;  // part of the InputError's what()
};

TEST(FuzzFindings, EachIsACleanInputError) {
  const std::vector<Finding> findings = {
      {"--set index far past the end of a list (allocated billions of nulls)",
       [] { parse_with_overrides({"axes.batch.4000000000=1"}); },
       "--set: axes.batch.4000000000: index 4000000000 is past the end of the list (2 values)"},
      {"--set index far into a path the override creates (allocated billions of nulls)",
       [] { parse_with_overrides({"new_section.batch.4000000000=1"}); },
       "--set: new_section.batch.4000000000: index 4000000000 is past the end of the list (0 values)"},
      {"--set overrides nesting values into values past the depth limit (stack overflow in dump)",
       [] {
         std::string key = "model_options";
         for (int i = 0; i < 40; ++i) key += ".x";
         parse_with_overrides({key + "=" + std::string(40, '[') + std::string(40, ']')});
       },
       "nests the matrix more than 64 levels deep"},
      {"--set value that is not UTF-8 (results.json could not be written after the run)",
       [] { parse_with_overrides({"name=\xff\xfe"}); }, "--set: an override is not valid UTF-8 text"},
      {"dataset path with a name too long (filesystem_error escaped)",
       [] {
         parse_with_overrides({"dataset_options.path=" + std::string(300, 'a'), "dataset_options.create=false"});
       },
       "m.json: dataset_options.path: '" + std::string(60, 'a') + "...' does not exist"},
      {"axes multiplying to billions of scenarios (expand ran out of memory)",
       [] {
         json j = base_matrix();
         j["axes"] = {{"workers", json::array()}, {"accumulation", json::array()}, {"batch", json::array()}};
         for (int i = 1; i <= 100; ++i) {
           j["axes"]["workers"].push_back(i);
           j["axes"]["accumulation"].push_back(i);
           j["axes"]["batch"].push_back(i);
         }
         parse_matrix(j, "m.json", full_catalog());
       },
       "m.json: axes: the axes multiply to more than 10000 scenarios"},
      {"results.json integer field holding 1e300 (float-to-int conversion, undefined behaviour)",
       [] { load_results_text(results_text("{}", R"({"workers": 1e300})")); },
       "workers: must be an integer in [-2147483648, 2147483647], got 1e+300"},
      {"results.json batch * accumulation past an int (signed overflow)",
       [] { load_results_text(results_text("{}", R"({"batch": 2147483647, "accumulation": 2})")); },
       "batch * accumulation does not fit an integer"},
      {"results.json disturbance of the wrong shape (reports threw a library type error)",
       [] { load_results_text(results_text(R"({"disturbance": 7})", "{}")); },
       "metrics.disturbance: must be an object"},
      {"results.json disturbance reason that is not text",
       [] { load_results_text(results_text(R"({"disturbance": {"contended": true, "reason": 3}})", "{}")); },
       "metrics.disturbance.reason: must be a string"},
  };
  for (const auto& f : findings) {
    std::string message = "no error";
    try {
      f.read();
    } catch (const InputError& e) { message = e.what(); }
    EXPECT_NE(message.find(f.message), std::string::npos) << f.what << "\n  got: " << message;
  }
}

TEST(FuzzFindings, AppendingOneValueToAListStillWorks) {
  const auto spec = parse_with_overrides({"axes.batch.2=32"});
  EXPECT_EQ(spec.batch, (std::vector<int>{8, 16, 32}));
}

}  // namespace
}  // namespace tb
