// The Python with the torch that this LibTorch came from, for tests that export or check models
// in Python: TB_TORCH_LIB_DIR is <venv>/lib/pythonX.Y/site-packages/torch/lib, so the venv's
// interpreter is <venv>/bin/python. Empty when there is none (the tests then skip, saying so).
// Checked without starting Python (seconds with torch): the torch package is the one whose lib/
// this is, so its presence and the interpreter's are enough.
#pragma once
#include <cctype>
#include <filesystem>
#include <string>

#include "tests/helpers/cli_test.hpp"

namespace tb::test {

inline std::string python_with_torch() {
  const auto venv =
      std::filesystem::path(TB_TORCH_LIB_DIR).parent_path().parent_path().parent_path().parent_path().parent_path();
  if (!std::filesystem::exists(std::filesystem::path(TB_TORCH_LIB_DIR).parent_path() / "__init__.py")) return {};
  for (const char* name : {"python", "python3"})
    if (std::filesystem::exists(venv / "bin" / name)) return (venv / "bin" / name).string();
  return {};
}

// A scratch folder for a suite that prepares its files once in SetUpTestSuite: named after the
// gtest filter too, since ctest runs each test in its own process, in parallel, and two processes
// must not share (and clear) one folder.
inline std::filesystem::path suite_scratch_dir(const std::string& suite) {
  std::string filter = ::testing::GTEST_FLAG(filter);
  for (char& c : filter)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_') c = '_';
  return scratch_dir(suite + (filter == "_" ? "" : "." + filter));
}

// tests/fixtures/python_models/<name>
inline std::string python_fixture(const std::string& name) {
  return std::string(TB_SOURCE_DIR) + "/tests/fixtures/python_models/" + name;
}

}  // namespace tb::test
