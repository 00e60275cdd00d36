// The built-in models' and datasets' declared options against the real registry: every bad
// matrix fixture is refused with them (not only with tests/matrix/test_matrix.cpp's stand-in
// catalog), the shipped matrices pass, the declared defaults are the ones the factories use, and
// `trainbench list` / `models` show it on the command line.
#include <glob.h>

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/runner/torch/runner.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

const std::string kSource = TB_SOURCE_DIR;

std::vector<std::string> fixtures() {
  std::vector<std::string> out;
  glob_t g{};
  if (glob((kSource + "/tests/fixtures/matrices/*.json").c_str(), 0, nullptr, &g) == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

// stdout and stderr of a shell command, and its exit code.
std::pair<int, std::string> shell(const std::string& cmd) {
  std::string out;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, ""};
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int rc = pclose(pipe);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

TEST(RegistryOptions, EveryBadFixtureIsRefusedByTheRealRegistry) {
  const auto options = default_parse_options();
  const auto files = fixtures();
  ASSERT_GT(files.size(), 40u);
  for (const auto& path : files) {
    if (options.cuda_available && path.find("cuda_unavailable") != std::string::npos) continue;
    try {
      load_matrix(path, options);
      ADD_FAILURE() << path << " was accepted";
    } catch (const InputError& e) { EXPECT_EQ(e.file(), path); }
  }
}

TEST(RegistryOptions, ShippedMatricesPass) {
  const auto options = default_parse_options();
  for (const char* file : {"quick.json", "seed.json", "capacity.json", "standard.json", "field.json"}) {
    EXPECT_NO_THROW(load_matrix(kSource + "/scenarios/" + file, options)) << file;
  }
  if (options.cuda_available) { EXPECT_NO_THROW(load_matrix(kSource + "/scenarios/gpu-profile.json", options)); }
}

// A TorchScript file that is not there is refused while the matrix is read, naming the file and
// the field, not once per scenario after the run has started.
TEST(RegistryOptions, MissingTorchScriptFileIsRefusedBeforeTheRun) {
  const nlohmann::json matrix = {{"name", "m"},
                                 {"model", "torchscript"},
                                 {"model_options", {{"path", "/nonexistent/model.pt"}}},
                                 {"axes", {{"precision", {"fp32", "amp_bf16"}}}}};
  try {
    parse_matrix(matrix, "mine.json", default_parse_options());
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "mine.json");
    EXPECT_EQ(e.field(), "model_options.path");
    EXPECT_NE(std::string(e.what()).find("no such file '/nonexistent/model.pt'"), std::string::npos) << e.what();
  }
}

TEST(RegistryOptions, EveryModelAndDatasetDeclaresItsOptions) {
  const auto& reg = Registry::instance();
  for (const auto& name : reg.model_names()) { EXPECT_FALSE(reg.model(name).options.empty()) << name; }
  for (const auto& name : reg.dataset_names()) { EXPECT_FALSE(reg.dataset(name).options.empty()) << name; }
  const auto options = default_parse_options();
  EXPECT_EQ(options.model_specs.at("mlp").default_dataset, "synthetic");
  EXPECT_EQ(options.dataset_specs.at("images").rules.size(), 1u);
}

// The declared defaults (filled in explicitly) build the same thing as no options at all.
nlohmann::json declared_defaults(const std::vector<OptionSpec>& specs) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& s : specs)
    if (!s.default_value.is_null()) out[s.name] = s.default_value;
  return out;
}

std::int64_t parameter_count(TrainableModel& model) {
  std::int64_t n = 0;
  for (const auto& p : model.module().parameters()) n += p.numel();
  return n;
}

TEST(RegistryOptions, DeclaredDefaultsAreTheFactoriesDefaults) {
  const auto& reg = Registry::instance();
  DatasetInfo image{{3, 32, 32}, 10, 0, 0}, flat{{64}, 10, 0, 0}, tokens{{16}, 0, 32, 16};
  for (const auto& [name, info] :
       std::vector<std::pair<std::string, DatasetInfo>>{{"mlp", flat}, {"resnet", image}, {"transformer", tokens}}) {
    const auto& m = reg.model(name);
    auto plain = m.factory(nlohmann::json::object(), info);
    auto explicit_defaults = m.factory(declared_defaults(m.options), info);
    EXPECT_EQ(parameter_count(*plain), parameter_count(*explicit_defaults)) << name;
  }
  for (const char* name : {"synthetic", "tokens"}) {
    const auto& d = reg.dataset(name);
    auto plain = d.factory({nlohmann::json::object(), 1});
    auto explicit_defaults = d.factory({declared_defaults(d.options), 1});
    EXPECT_EQ(plain->size(), explicit_defaults->size()) << name;
    EXPECT_EQ(plain->info().input_shape, explicit_defaults->info().input_shape) << name;
    EXPECT_EQ(plain->info().num_classes, explicit_defaults->info().num_classes) << name;
    EXPECT_EQ(plain->info().vocab_size, explicit_defaults->info().vocab_size) << name;
  }
}

TEST(RegistryOptions, ListRefusesBadOptionsWithExitTwoAndModelsListsThem) {
  const std::string bin = TB_TRAINBENCH_BIN;
  const std::string fixture = kSource + "/tests/fixtures/matrices/model_option_typo.json";
  const auto [rc, out] = shell(bin + " list " + fixture);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find(fixture + ": model_options.hiden: unknown option of model 'mlp'; did you mean 'hidden'?"),
            std::string::npos)
      << out;
  const auto [cupti_rc, cupti_out] =
      shell(bin + " list " + kSource + "/tests/fixtures/matrices/profile_cupti_and_kineto.json");
  EXPECT_EQ(cupti_rc, 2) << cupti_out;
  EXPECT_NE(cupti_out.find("profile.cupti: cupti and kineto cannot both be on"), std::string::npos) << cupti_out;
  // `run` refuses the same file up front (exit 2, nothing run), not with every scenario failing.
  const std::string out_dir = std::string(TB_BINARY_DIR) + "/test-runs/refused-cupti-kineto";
  const auto [run_rc, run_out] = shell(
      bin + " run " + kSource + "/tests/fixtures/matrices/profile_cupti_and_kineto.json --no-history --out " + out_dir);
  EXPECT_EQ(run_rc, 2) << run_out;
  EXPECT_EQ(run_out.find("[1/"), std::string::npos) << run_out;
  const auto [models_rc, models] = shell(bin + " models");
  EXPECT_EQ(models_rc, 0);
  EXPECT_NE(models.find("model_options.hidden (integer in [1, 65536], default 1024)"), std::string::npos) << models;
  EXPECT_NE(models.find("dataset_options.image_size"), std::string::npos) << models;
  // A standard workload names where its architecture and figures come from.
  EXPECT_NE(models.find("reference: torchvision.models.resnet50 (He et al. 2015, v1.5); 25,557,032 parameters"),
            std::string::npos)
      << models;
}

}  // namespace
}  // namespace tb
