// Errors with a location: every bad-input message names the file and the field.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tb {

// Bad user input (matrix file, command line, results file). Raised before long work starts.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string field, const std::string& message)
      : std::runtime_error(file + ": " + (field.empty() ? std::string() : field + ": ") + message),
        file_(std::move(file)),
        field_(std::move(field)) {}
  const std::string& file() const noexcept { return file_; }
  const std::string& field() const noexcept { return field_; }

 private:
  std::string file_;
  std::string field_;
};

// An artefact (results, report, trace, noise floor, history) that could not be written: full
// disk, unwritable folder, failed rename. The previous good file is left as it was. what():
// "cannot write <path>: <reason>". The CLI maps it to exit code 5 (trainbench/cli/exit_code.hpp).
class OutputError : public std::runtime_error {
 public:
  OutputError(std::string path, std::string reason)
      : std::runtime_error("cannot write " + path + ": " + reason),
        path_(std::move(path)),
        reason_(std::move(reason)) {}
  const std::string& path() const noexcept { return path_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

// A scenario the device cannot run (e.g. amp_fp16 on a CPU build): recorded as "skipped" with
// the reason, never faked.
class ScenarioSkipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace tb

// TORCH_CHECK-style input validation: TB_CHECK_INPUT(cond, file, field, "message ", value).
#define TB_CHECK_INPUT(cond, file, field, ...)                                               \
  do {                                                                                       \
    if (!(cond)) throw ::tb::InputError((file), (field), ::tb::detail::concat(__VA_ARGS__)); \
  } while (0)
