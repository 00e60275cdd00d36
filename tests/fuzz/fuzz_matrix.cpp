// libFuzzer target: the text of a matrix file, read as `trainbench run` reads one (bounds check,
// JSON parse, validation against the built-in catalog), then used as the run would use it.
#include <cstddef>
#include <cstdint>
#include <string>

#include <trainbench/support/json_input.hpp>
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/helpers/matrix_catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tb::MatrixParseOptions options = tb::full_catalog();
  const std::string text(reinterpret_cast<const char*>(data), size);
  tb::fuzz::expect_input_errors_only(
      [&] { tb::fuzz::use_matrix(tb::parse_matrix(tb::parse_json_text(text, "fuzz.json"), "fuzz.json", options)); });
  return 0;
}
