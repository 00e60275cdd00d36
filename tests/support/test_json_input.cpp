// Reading JSON a user hands trainbench (trainbench/support/json_input.hpp): nesting and number bounds
// without recursion, messages in our words, and the results.json, noise-floor and compare readers
// refusing a million nested arrays in process instead of overflowing the stack (issue 9).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/cli/commands.hpp>
#include <trainbench/measure/comparison.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/json_input.hpp>

namespace tb {
namespace {

namespace fs = std::filesystem;
using cli::cmd_compare;
using nlohmann::json;

std::string arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// The message of the InputError `f` throws; "no error" when it throws none.
template <typename F>
std::string input_error(F f) {
  try {
    f();
  } catch (const InputError& e) { return e.what(); }
  return "no error";
}

void expect_clean(const std::string& message) {
  for (const char* internal : {"json.exception", "basic_filebuf", "std::"})
    EXPECT_EQ(message.find(internal), std::string::npos) << message.substr(0, 400);
  EXPECT_LE(message.size(), 400u) << message.substr(0, 400);
}

TEST(JsonBounds, DepthUpToTheLimitIsAccepted) {
  EXPECT_NO_THROW(check_json_bounds(arrays(kMaxJsonDepth), "x.json"));
  EXPECT_NO_THROW(parse_json_text("{\"a\": " + arrays(kMaxJsonDepth - 1) + "}", "x.json"));
  EXPECT_EQ(input_error([] { check_json_bounds("[\n" + arrays(kMaxJsonDepth), "x.json", "f"); }),
            "x.json: f: nested more than 64 levels deep (at line 2, column 64)");
}

TEST(JsonBounds, BracketsInsideStringsDoNotCount) {
  const std::string text = "{\"a\": \"" + std::string(1000, '[') + "\\\"[[[\", \"b\": [1]}";
  EXPECT_EQ(parse_json_text(text, "x.json")["b"], json({1}));
}

TEST(JsonBounds, NumbersBeyondADoubleAreRefusedWithTheirPosition) {
  EXPECT_EQ(input_error([] { check_json_bounds("{\"a\": [1,\n  -1e309]}", "x.json"); }),
            "x.json: number -1e309 is out of range (a double holds at most about 1.8e308) (at line 2, column 3)");
  EXPECT_NE(input_error([] { check_json_bounds("[1" + std::string(400, '0') + "]", "x.json"); }).find("out of range"),
            std::string::npos);
  EXPECT_NO_THROW(check_json_bounds("[1e308, 1e-400, -0, 18446744073709551615]", "x.json"));
  // Digits inside a bare string are no number: a docs test's scratch folder
  // /tmp/trainbench-docs-8e9332h7 was refused as "number 8e9332 is out of range".
  EXPECT_NO_THROW(check_json_bounds("/tmp/trainbench-docs-8e9332h7/base/my_loop.py", "--set"));
  EXPECT_NO_THROW(check_json_bounds("run_1e999", "--set"));
}

TEST(JsonBounds, AMillionNestedArraysAreRefusedWithoutRecursion) {
  // Parsed whole, this crashed in nlohmann's recursive copy; the check must refuse it first.
  const std::string message = input_error([] { parse_json_text(arrays(1'000'000), "deep.json"); });
  EXPECT_EQ(message, "deep.json: nested more than 64 levels deep (at line 1, column 65)");
}

TEST(JsonInput, SyntaxErrorsAreOurWordsWithThePosition) {
  const std::string message = input_error([] { parse_json_text("{\"a\": 1,\n \"b\": }", "x.json"); });
  EXPECT_EQ(message.rfind("x.json: malformed JSON at line 2, column 7: syntax error", 0), 0u) << message;
  expect_clean(message);
  // The library quotes the token it stopped in; a megabyte string must not become the message.
  expect_clean(input_error([] { parse_json_text("\"" + std::string(1'000'000, 'x') + "\n\"", "x.json"); }));
}

TEST(JsonInput, LibraryTagsAreStripped) {
  try {
    json(1).get<std::string>();
    FAIL() << "expected a type error";
  } catch (const json::exception& e) { EXPECT_EQ(json_error_text(e), "type must be string, but is number"); }
}

class JsonFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tb-json-input-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(JsonFiles, DirectoriesAndMissingFilesNameThePath) {
  const std::string dir = (dir_ / "a_dir").string();
  fs::create_directories(dir);
  EXPECT_EQ(input_error([&] { read_json_file(dir, "matrix file"); }), dir + ": is a directory, not a matrix file");
  const std::string missing = (dir_ / "absent.json").string();
  EXPECT_EQ(input_error([&] { read_json_file(missing, "noise-floor file"); }),
            missing + ": cannot open noise-floor file: No such file or directory");
}

TEST_F(JsonFiles, DeepResultsFileIsRefused) {
  const std::string path = write("results.json", "{\"schema_version\": " + std::to_string(kResultsSchemaVersion) +
                                                     ", \"scenarios\": [{\"extra\": " + arrays(1'000'000) + "}]}");
  const std::string message = input_error([&] { load_results(path); });
  EXPECT_EQ(message.rfind(path + ": nested more than 64 levels deep (at line 1, column ", 0), 0u)
      << message.substr(0, 400);
}

TEST_F(JsonFiles, ResultsFieldErrorsAreOurWords) {
  const std::string path = write("results.json", "{\"schema_version\": " + std::to_string(kResultsSchemaVersion) +
                                                     ", \"run_id\": 5, \"scenarios\": []}");
  const std::string message = input_error([&] { load_results(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  expect_clean(message);
}

TEST_F(JsonFiles, DeepNoiseFloorFileIsRefused) {
  const std::string path =
      write("noise.json", "{\"kind\": \"trainbench-noise-floor\", \"scenarios\": " + arrays(1'000'000) + "}");
  const std::string message = input_error([&] { load_noise_floor(path); });
  EXPECT_EQ(message.rfind(path + ": nested more than 64 levels deep", 0), 0u) << message.substr(0, 400);
}

TEST_F(JsonFiles, CompareRefusesADeepResultsFile) {
  // Seen as exit 139 (SIGSEGV) from `trainbench compare`; now a one-line reason and exit 2.
  const std::string deep = write("deep.json", "{\"schema_version\": 1, \"scenarios\": [" + arrays(1'000'000) + "]}");
  std::ostringstream out, err;
  EXPECT_EQ(cmd_compare({deep, deep}, out, err), 2);
  EXPECT_NE(err.str().find(deep + ": nested more than 64 levels deep"), std::string::npos) << err.str().substr(0, 400);
}

}  // namespace
}  // namespace tb
