// The whole trainbench command line as a function, for the trainbench binary and for a user's
// executable that registers its own models (link trainbench::main; see tests/consumer/).
#pragma once

namespace tb::cli {

// Runs `argv[1]` as a trainbench command with the remaining arguments; returns the exit code
// (trainbench/cli/exit_code.hpp). Models and datasets registered anywhere in the program are available.
int main(int argc, char** argv);

}  // namespace tb::cli
