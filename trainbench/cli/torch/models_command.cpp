// `trainbench models`: the registered models and datasets, with their options.
#include <trainbench/cli/torch/run_command.hpp>

#include <trainbench/cli/exit_code.hpp>
#include <trainbench/matrix/option_spec.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb::cli {

namespace {

int models(const ParsedArgs&, std::ostream& out, std::ostream&) {
  const auto& reg = Registry::instance();
  const auto print_options = [&](const char* section, const std::vector<OptionSpec>& options) {
    if (options.empty()) out << "      (no " << section << ")\n";
    for (const auto& o : options) out << "      " << section << "." << describe_option(o) << "\n";
  };
  out << "models:\n";
  for (const auto& name : reg.model_names()) {
    const auto& m = reg.model(name);
    out << "  " << name << "  (default dataset: " << m.default_dataset << ")  " << m.description << "\n";
    if (!m.reference.empty()) out << "      reference: " << m.reference << "\n";
    print_options("model_options", m.options);
  }
  out << "datasets:\n";
  for (const auto& name : reg.dataset_names()) {
    const auto& d = reg.dataset(name);
    out << "  " << name << "  " << d.description << "\n";
    print_options("dataset_options", d.options);
  }
  return as_int(ExitCode::ok);
}

}  // namespace

const Command& models_command() {
  static const Command command{{.name = "models",
                                .summary = "registered models and datasets, with their options",
                                .epilogue = "exit codes: 0 ok, 2 bad input\n"},
                               models};
  return command;
}

}  // namespace tb::cli
