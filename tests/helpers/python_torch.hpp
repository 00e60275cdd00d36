// The Python with the torch that this LibTorch came from, for tests that export or check models
// in Python: TB_TORCH_LIB_DIR is <venv>/lib/pythonX.Y/site-packages/torch/lib, so the venv's
// interpreter is <venv>/bin/python. Empty when there is none or it cannot import torch (the
// tests then skip, saying so).
#pragma once
#include <filesystem>
#include <string>

#include "tests/helpers/cli_test.hpp"

namespace tb::test {

inline std::string python_with_torch() {
  const auto venv = std::filesystem::path(TB_TORCH_LIB_DIR).parent_path().parent_path().parent_path()
                        .parent_path().parent_path();
  for (const char* name : {"python", "python3"}) {
    const auto python = venv / "bin" / name;
    if (std::filesystem::exists(python) &&
        run_shell(python.string() + " -c 'import torch' > /dev/null 2>&1") == 0)
      return python.string();
  }
  return {};
}

// tests/fixtures/python_models/<name>
inline std::string python_fixture(const std::string& name) {
  return std::string(TB_SOURCE_DIR) + "/tests/fixtures/python_models/" + name;
}

}  // namespace tb::test
