#include <trainbench/cli/progress_options.hpp>

#include <trainbench/support/error.hpp>

namespace tb::cli {

const Option kQuietOption{"--quiet", "", "no progress lines or console table (the reports are still written)"};
const Option kVerboseOption{"--verbose", "",
                            "more progress: per round the scenarios still going, per scenario its\n"
                            "median, 95% interval, stop reason and segment medians",
                            false, "-v"};

std::optional<Detail> progress_detail(const ParsedArgs& given) {
  const bool quiet = given.has(kQuietOption.name);
  const bool verbose = given.has(kVerboseOption.name);
  TB_CHECK_INPUT(!(quiet && verbose), "command line", "--verbose", "--quiet and --verbose together: choose one");
  if (quiet) return std::nullopt;
  return verbose ? Detail::verbose : Detail::normal;
}

}  // namespace tb::cli
