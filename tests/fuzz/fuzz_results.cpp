// libFuzzer target: the text of a results.json, read through load_results as `report`,
// `compare` and `history` read one, then rendered by every reporter as `report` renders it.
// The input goes through a memfd so the real reader (path, open, bounds, parse, schema) runs.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include <trainbench/reporters/reporter.hpp>
#include <trainbench/results/results.hpp>
#include "tests/fuzz/fuzz_support.hpp"

namespace {

std::string input_path(const std::uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("results.json", 0);
  if (fd < 0 || ftruncate(fd, 0) != 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

// The html report without Chart.js inlined: 200 KB copied per input would only slow the search.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("TRAINBENCH_CHARTJS", "/nonexistent/chart.js", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = input_path(data, size);
  tb::fuzz::expect_input_errors_only([&] {
    const tb::RunResult run = tb::load_results(path);
    nlohmann::json(run).dump();
    for (const char* format : {"console", "md", "csv", "gbench", "html"}) {
      std::ostringstream out;
      tb::ReportContext context;
      context.out = &out;
      tb::make_reporter(format)->render(run, context);
    }
  });
  return 0;
}
