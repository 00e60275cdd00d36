// trainbench: benchmark and profile PyTorch training loops (LibTorch). See README.md.
#include <trainbench/cli/torch/cli_main.hpp>

int main(int argc, char** argv) { return tb::cli::main(argc, argv); }
