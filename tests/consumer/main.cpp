// The user's executable: all of trainbench's commands, with the user's model (tiny_model.cpp)
// registered beside the built-in ones.
#include <trainbench/cli/torch/cli_main.hpp>

int main(int argc, char** argv) { return tb::cli::main(argc, argv); }
