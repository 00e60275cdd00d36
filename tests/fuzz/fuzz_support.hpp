// Shared by the libFuzzer targets: what counts as a finding, and what a parsed input must allow.
// A sanitizer report or a crash is a finding; so is any exception but InputError leaving the
// reader, since main would print it to the user as a library message instead of file + field.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/scenario.hpp>
#include <trainbench/support/error.hpp>

namespace tb::fuzz {

template <typename F>
void expect_input_errors_only(F&& body) {
  try {
    body();
  } catch (const InputError&) {
    // The reader refused the input cleanly: the expected outcome for most inputs.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "finding: %s escaped the reader: %.400s\n", typeid(e).name(), e.what());
    std::abort();
  }
}

// What `run` does with an accepted matrix before the first scenario: expand it, pick the
// baseline, and write the scenarios into results.json (a dump that throws there loses the run).
inline void use_matrix(const MatrixSpec& spec) {
  const auto scenarios = expand(spec);
  if (scenarios.empty()) std::abort();  // parse_matrix promises at least one scenario
  choose_baseline(spec, scenarios);
  scenarios_digest(scenarios);
  for (const auto& p : scenarios) nlohmann::json(p).dump();
}

}  // namespace tb::fuzz
