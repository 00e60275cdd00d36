// The standard workloads against their references: torchvision's ResNet-50 and ViT-B/16, and
// Hugging Face's GPT-2 small. Parameter counts exactly, every parameter's name and shape, forward FLOPs per
// sample against the published figures, and a CPU forward + backward at a small size.
//
// ResNet-50's and ViT-B/16's reference is torchvision itself: tests/fixtures/reference/
// <model>_torchvision.json was written by scripts/torchvision_reference.py (torchvision 0.26.0,
// torch 2.11.0), and when a python with torchvision is at hand the script runs again here and the
// fresh output is compared.
// GPT-2's reference is transformers' GPT2LMHeadModel (modeling_gpt2.py) with GPT2Config's
// defaults, whose parameters are listed below from that definition.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/nn/module.h>
#include <nlohmann/json.hpp>

#include <trainbench/capacity/flops.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>
#include "tests/helpers/scratch_dir.hpp"

namespace tb {
namespace {

using Shapes = std::map<std::string, std::vector<std::int64_t>>;

std::unique_ptr<TrainableModel> make(const std::string& name, const DatasetInfo& data) {
  return Registry::instance().model(name).factory(nlohmann::json::object(), data);
}
DatasetInfo images(std::int64_t side) { return {{3, side, side}, 1000, 0, 0}; }
DatasetInfo tokens(std::int64_t seq_len) { return {{seq_len}, 0, 50257, seq_len}; }

Shapes shapes_of(torch::nn::Module& module) {
  Shapes out;
  for (const auto& item : module.named_parameters()) out[item.key()] = item.value().sizes().vec();
  return out;
}

std::int64_t parameter_count(torch::nn::Module& module) {
  std::int64_t n = 0;
  for (const auto& p : module.parameters()) n += p.numel();
  return n;
}

// Every tensor once: a parameter listed twice would be updated twice by the optimizer.
void expect_each_parameter_once(torch::nn::Module& module) {
  std::set<const void*> storages;
  for (const auto& p : module.parameters())
    EXPECT_TRUE(storages.insert(p.data_ptr()).second) << "a parameter is listed twice";
}

double forward_flops(const TrainableModel& model) { return capacity::count_flops(model.layers_per_sample()).forward; }

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

Shapes shapes_in(const nlohmann::json& reference) {
  Shapes out;
  for (const auto& [name, shape] : reference.at("shapes").items()) out[name] = shape.get<std::vector<std::int64_t>>();
  return out;
}

nlohmann::json recorded(const std::string& model) {
  return read_json(std::filesystem::path(TB_SOURCE_DIR) / "tests/fixtures/reference" / (model + "_torchvision.json"));
}

// A python that can import torchvision, or "".
std::string python_with_torchvision() {
  std::vector<std::string> pythons;
  for (const char* var : {"TRAINBENCH_PYTHON", "TB_PYTHON"})
    if (const char* p = std::getenv(var)) pythons.emplace_back(p);
  if (const char* home = std::getenv("HOME"))
    pythons.push_back(std::string(home) + "/.cache/trainbench/venv/bin/python");
  pythons.emplace_back("python3");
  for (const auto& py : pythons)
    if (std::system((py + " -c 'import torchvision' >/dev/null 2>&1").c_str()) == 0) return py;
  return "";
}

// A fresh dump from torchvision: the recorded fixture is not stale, and the native model
// matches torchvision's own.
void expect_matches_torchvision(const std::string& python, const std::string& model_name) {
  const auto dump = test::scratch_dir("standard_models_torchvision") / (model_name + ".json");
  ASSERT_EQ(std::system((python + " " + TB_SOURCE_DIR + "/scripts/torchvision_reference.py " + model_name + " > " +
                         dump.string())
                            .c_str()),
            0);
  const auto fresh = read_json(dump);
  const auto model = make(model_name, images(224));
  EXPECT_EQ(fresh.at("parameters").get<std::int64_t>(), parameter_count(model->module()));
  EXPECT_EQ(shapes_in(fresh), shapes_of(model->module())) << fresh.at("source");
  EXPECT_EQ(fresh.at("forward_flops_224").get<double>(), forward_flops(*model)) << fresh.at("source");
}

// Forward and backward of a batch of two small images; every parameter gets a finite gradient.
void expect_trains_one_step(const std::string& model_name, std::int64_t side) {
  torch::manual_seed(0);
  const auto model = make(model_name, images(side));
  model->module().train();
  const auto logits = model->forward(at::randn({2, 3, side, side}));
  EXPECT_EQ(logits.sizes().vec(), (std::vector<std::int64_t>{2, 1000}));
  const auto loss = model->loss(logits, at::tensor({3, 997}, at::kLong));
  EXPECT_TRUE(at::isfinite(loss).item<bool>());
  loss.backward();
  for (const auto& item : model->module().named_parameters()) {
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    EXPECT_TRUE(at::isfinite(item.value().grad()).all().item<bool>()) << item.key();
  }
}

// --------------------------------------------------------------------------------- ResNet-50

TEST(StandardModels, ResNet50HasTorchvisionsParameterCount) {
  const auto model = make("resnet50", images(224));
  EXPECT_EQ(parameter_count(model->module()), 25'557'032);
  expect_each_parameter_once(model->module());
}

TEST(StandardModels, ResNet50HasTorchvisionsParameterNamesAndShapes) {
  const auto model = make("resnet50", images(224));
  const auto reference = recorded("resnet50");
  EXPECT_EQ(reference.at("parameters").get<std::int64_t>(), 25'557'032);
  EXPECT_EQ(shapes_of(model->module()), shapes_in(reference));
}

// 4.09 GMACs is the figure quoted for ResNet-50 at 224x224 (e.g. torchvision's model docs:
// 4.09 GFLOPS, counted as multiply-adds); trainbench counts 2 FLOPs per multiply-add.
TEST(StandardModels, ResNet50ForwardFlopsAreThePublishedFigure) {
  const auto model = make("resnet50", images(224));
  const double flops = forward_flops(*model);
  EXPECT_NEAR(flops / 2, 4.09e9, 0.02 * 4.09e9);
  // torch.utils.flop_counter.FlopCounterMode on torchvision's model, recorded in the fixture:
  // it counts the same convolutions and the fc layer's matmul, so the counts agree exactly.
  EXPECT_EQ(flops, recorded("resnet50").at("forward_flops_224").get<double>());
}

TEST(StandardModels, ResNet50TrainsOneStepOnTheCpu) { expect_trains_one_step("resnet50", 64); }

TEST(StandardModels, ResNet50ZeroInitResidualStartsEachBottleneckAsAnIdentity) {
  const auto model = Registry::instance().model("resnet50").factory({{"zero_init_residual", true}}, images(64));
  int zeroed = 0;
  for (const auto& item : model->module().named_parameters()) {
    if (!item.key().ends_with(".weight")) continue;  // biases start at zero anyway
    const bool last_norm = item.key().ends_with(".bn3.weight");
    EXPECT_EQ(item.value().abs().sum().item<double>() == 0.0, last_norm) << item.key();
    zeroed += last_norm;
  }
  EXPECT_EQ(zeroed, 3 + 4 + 6 + 3);  // one per bottleneck
}

TEST(StandardModels, ResNet50RefusesWhatItCannotTake) {
  EXPECT_THROW(make("resnet50", {{1, 224, 224}, 1000, 0, 0}), InputError);  // torchvision's takes RGB
  EXPECT_THROW(make("resnet50", {{3, 224, 224}, 1001, 0, 0}), InputError);  // labels beyond its 1000 classes
  EXPECT_THROW(make("resnet50", tokens(64)), InputError);
}

// --------------------------------------------------------------------------------- ViT-B/16

TEST(StandardModels, VitB16HasTorchvisionsParametersAndFlops) {
  const auto model = make("vit_b_16", images(224));
  const auto reference = recorded("vit_b_16");
  EXPECT_EQ(parameter_count(model->module()), 86'567'656);
  EXPECT_EQ(reference.at("parameters").get<std::int64_t>(), 86'567'656);
  expect_each_parameter_once(model->module());
  EXPECT_EQ(shapes_of(model->module()), shapes_in(reference));
  // torchvision's model docs quote 17.56 GFLOPS (multiply-adds) at 224x224; 197 tokens.
  const double flops = forward_flops(*model);
  EXPECT_NEAR(flops / 2, 17.56e9, 0.02 * 17.56e9);
  EXPECT_EQ(flops, reference.at("forward_flops_224").get<double>());
}

TEST(StandardModels, VitB16TrainsOneStepOnTheCpu) { expect_trains_one_step("vit_b_16", 32); }

TEST(StandardModels, VitB16RefusesWhatItCannotTake) {
  EXPECT_THROW(make("vit_b_16", images(200)), InputError);  // not a multiple of the 16-pixel patch
  EXPECT_THROW(make("vit_b_16", tokens(64)), InputError);
}

// Both torchvision models against a fresh dump, when a python can import torchvision
// (scripts/setup.sh installs it into the venv).
TEST(StandardModels, MatchTorchvisionItself) {
  const std::string python = python_with_torchvision();
  if (python.empty()) GTEST_SKIP() << "no python with torchvision (scripts/setup.sh installs it into the venv)";
  for (const char* model : {"resnet50", "vit_b_16"}) {
    SCOPED_TRACE(model);
    expect_matches_torchvision(python, model);
  }
}

// ------------------------------------------------------------------------------ GPT-2 small

// GPT2LMHeadModel's named_parameters() with GPT2Config() (n_layer 12, n_embd 768, vocab 50257,
// n_positions 1024): Conv1D weights are [in, out]; lm_head.weight is wte's and so not listed.
Shapes hugging_face_gpt2_shapes() {
  constexpr std::int64_t d = 768;
  Shapes s = {{"transformer.wte.weight", {50257, d}},
              {"transformer.wpe.weight", {1024, d}},
              {"transformer.ln_f.weight", {d}},
              {"transformer.ln_f.bias", {d}}};
  for (int i = 0; i < 12; ++i) {
    const std::string h = "transformer.h." + std::to_string(i) + ".";
    for (const char* ln : {"ln_1", "ln_2"}) s[h + ln + ".weight"] = s[h + ln + ".bias"] = {d};
    s[h + "attn.c_attn.weight"] = {d, 3 * d};
    s[h + "attn.c_attn.bias"] = {3 * d};
    s[h + "attn.c_proj.weight"] = {d, d};
    s[h + "attn.c_proj.bias"] = {d};
    s[h + "mlp.c_fc.weight"] = {d, 4 * d};
    s[h + "mlp.c_fc.bias"] = {4 * d};
    s[h + "mlp.c_proj.weight"] = {4 * d, d};
    s[h + "mlp.c_proj.bias"] = {d};
  }
  return s;
}

TEST(StandardModels, Gpt2HasThe124MParameterCountWithTiedEmbeddings) {
  const auto model = make("gpt2", tokens(1024));
  EXPECT_EQ(parameter_count(model->module()), 124'439'808);
  expect_each_parameter_once(model->module());
  EXPECT_EQ(model->tokens_per_sample(), 1024);
}

TEST(StandardModels, Gpt2HasHuggingFacesParameterNamesAndShapes) {
  const auto model = make("gpt2", tokens(1024));
  const auto expected = hugging_face_gpt2_shapes();
  EXPECT_EQ(shapes_of(model->module()), expected);
  std::int64_t total = 0;
  for (const auto& [name, shape] : expected) {
    std::int64_t n = 1;
    for (const auto side : shape) n *= side;
    total += n;
  }
  EXPECT_EQ(total, 124'439'808);  // the list itself is the published model
}

// Convention: Kaplan et al. 2020 (Scaling Laws, Table 1): forward FLOPs per token
// 2N + 2 * n_layer * n_ctx * d_model, N the non-embedding parameters 12 * n_layer * d_model^2
// (matmul weights only; biases and norms ignored), the attention term being the causal half of
// QK^T and AV; plus the LM head, 2 * d_model * vocab per token, which that formula leaves out.
double kaplan_forward_flops_per_token(double n_ctx) {
  const double n_layer = 12, d = 768, vocab = 50257;
  const double non_embedding = 12 * n_layer * d * d;
  return 2 * non_embedding + 2 * n_layer * n_ctx * d + 2 * d * vocab;
}

TEST(StandardModels, Gpt2ForwardFlopsAreKaplansFormulaPlusTheHead) {
  for (const std::int64_t n_ctx : {1024, 128}) {
    const auto model = make("gpt2", tokens(n_ctx));
    const double per_token = forward_flops(*model) / static_cast<double>(n_ctx);
    EXPECT_NEAR(per_token, kaplan_forward_flops_per_token(static_cast<double>(n_ctx)), 1e-9 * per_token)
        << "n_ctx " << n_ctx;
  }
  // About 2 x 124M (all parameters but the position table) plus attention: the "6N per token"
  // rule's forward third, within the attention term.
  const double per_token = forward_flops(*make("gpt2", tokens(1024))) / 1024;
  EXPECT_NEAR(per_token, 2 * (124'439'808.0 - 1024 * 768), 2 * 12 * 1024 * 768 * 1.01);
}

TEST(StandardModels, Gpt2TrainsOneStepOnTheCpuAndTheHeadIsTheEmbedding) {
  torch::manual_seed(0);
  const auto model = make("gpt2", tokens(16));
  model->module().train();
  const auto input = at::randint(0, 1000, {1, 16}, at::kLong);
  const auto logits = model->forward(input);
  EXPECT_EQ(logits.sizes().vec(), (std::vector<std::int64_t>{1, 16, 50257}));
  const auto loss = model->loss(logits, at::randint(0, 1000, {1, 16}, at::kLong));
  EXPECT_TRUE(at::isfinite(loss).item<bool>());
  loss.backward();
  for (const auto& item : model->module().named_parameters()) {
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    EXPECT_TRUE(at::isfinite(item.value().grad()).all().item<bool>()) << item.key();
  }
  // A token that never appears in the input gets a gradient only through the head: the head is
  // the embedding.
  const auto wte = model->module().named_parameters()["transformer.wte.weight"];
  EXPECT_GT(wte.grad()[50000].abs().sum().item<double>(), 0.0);
}

TEST(StandardModels, Gpt2RefusesWhatItCannotTake) {
  EXPECT_THROW(make("gpt2", tokens(1025)), InputError);          // beyond the 1024-token context
  EXPECT_THROW(make("gpt2", {{64}, 0, 50258, 64}), InputError);  // a larger vocabulary
  EXPECT_THROW(make("gpt2", images(224)), InputError);
}

TEST(StandardModels, EachNamesItsReference) {
  for (const char* name : {"resnet50", "vit_b_16", "gpt2"})
    EXPECT_FALSE(Registry::instance().model(name).reference.empty()) << name;
}

}  // namespace
}  // namespace tb
