// The "torchscript" model: Python models (tests/fixtures/python_models/) exported during the test
// with scripts/export_model.py and the venv's python; their gradients after a forward/backward
// match eager PyTorch's for the same weights and batch (on the first call and on the later calls
// the profiling executor optimises); bf16 autocast reaches the ops inside the scripted module;
// they train through the Trainer; bad files and mismatched datasets are InputErrors naming the field.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include <ATen/ATen.h>
#include <torch/serialize.h>
#include <torch/utils.h>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/batch_stream.hpp>
#include <trainbench/training/torch/precision.hpp>
#include <trainbench/training/torch/registry.hpp>
#include <trainbench/training/torch/trainer.hpp>

#include "tests/helpers/python_torch.hpp"

namespace tb {
namespace {

using nlohmann::json;
using test::python_fixture;
using test::run_shell;

// Models as a user would bring them: an image classifier (conv, batch norm, softmax(QK^T)V), a
// forward(input, target) that returns its own loss, a regression model, and one only tracing
// exports.
struct PythonModel {
  const char* spec;  // FILE.py:CLASS under tests/fixtures/python_models
  const char* shape;
  int classes;
  const char* loss;
};
const PythonModel kConvAttention{"conv_attention.py:ConvAttention", "3,8,8", 4, "cross_entropy"};
const PythonModel kLossReturning{"loss_returning.py:LossReturning", "12", 5, "output"};
const PythonModel kRegressor{"regressor.py:Regressor", "5", 0, "mse"};                // on the user's own tensors
const PythonModel kTracedOnly{"traced_only.py:TracedOnly", "6", 3, "cross_entropy"};  // script fails
const PythonModel* const kModels[] = {&kConvAttention, &kLossReturning, &kRegressor, &kTracedOnly};

class TorchScriptModel : public ::testing::Test {
 protected:
  // One python run exports the models (scripts/export_model.py's main), writes PyTorch's
  // reference gradients and the tensor files (prepare_torchscript_tests.py).
  static void SetUpTestSuite() {
    python_ = test::python_with_torch();
    if (python_.empty()) return;
    dir_ = test::suite_scratch_dir("TorchScriptModel").string();
    std::string models;
    for (const auto* m : kModels)
      models += std::string(" ") + m->spec + ":" + m->shape + ":" + std::to_string(m->classes) + ":" + m->loss;
    exported_ = sh(python_ + " " + python_fixture("prepare_torchscript_tests.py") + " " + dir_ + models) == 0;
  }
  void SetUp() override {
    if (python_.empty()) GTEST_SKIP() << "no python that imports torch beside LibTorch (" << TB_TORCH_LIB_DIR << ")";
    ASSERT_TRUE(exported_) << test::slurp(dir_ + "/log.txt");
  }

  static int sh(const std::string& cmd) { return run_shell(cmd + " >> " + dir_ + "/log.txt 2>&1"); }
  static std::string archive(const PythonModel& m) {
    return dir_ + "/" + std::string(m.spec).substr(0, std::string(m.spec).find('.')) + ".pt";
  }
  static DatasetInfo info_for(const PythonModel& m) {
    DatasetInfo info;
    for (std::size_t at = 0, next; at != std::string::npos; at = next == std::string::npos ? next : next + 1) {
      next = std::string(m.shape).find(',', at);
      info.input_shape.push_back(std::stoll(std::string(m.shape).substr(at, next - at)));
    }
    info.num_classes = m.classes;
    return info;
  }
  static std::unique_ptr<TrainableModel> load(const PythonModel& m, json options = json::object()) {
    options["path"] = archive(m);
    if (!options.contains("loss")) options["loss"] = m.loss;
    return Registry::instance().model("torchscript").factory(options, info_for(m));
  }

  inline static std::string python_, dir_;
  inline static bool exported_ = false;
};

c10::Dict<c10::IValue, c10::IValue> read_torch_save(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return torch::pickle_load(bytes).toGenericDict();
}

at::Tensor entry(const c10::Dict<c10::IValue, c10::IValue>& dict, const std::string& key) {
  return dict.at(c10::IValue(key)).toTensor();
}

// The holder's parameter "a__b__weight" is the scripted module's "a.b.weight".
std::string dotted(std::string name) {
  for (std::size_t at = name.find("__"); at != std::string::npos; at = name.find("__", at + 1))
    name.replace(at, 2, ".");
  return name;
}

void expect_gradients_match_pytorch(TrainableModel& model, const std::string& reference) {
  const auto ref = read_torch_save(reference);
  const at::Tensor input = entry(ref, "input"), target = entry(ref, "target");
  std::size_t reference_grads = 0;
  for (const auto& item : ref) reference_grads += item.key().toStringRef().rfind("grad.", 0) == 0;
  ASSERT_EQ(model.module().parameters().size(), reference_grads);
  // Call 0 runs the unoptimised graph; by call 3 the profiling executor has specialised it.
  for (int call = 0; call < 4; ++call) {
    model.module().zero_grad();
    const at::Tensor loss = model.loss(model.forward(input), target);
    loss.backward();
    EXPECT_NEAR(loss.item<double>(), entry(ref, "loss").item<double>(), 1e-5) << "call " << call;
    for (const auto& p : model.module().named_parameters()) {
      const at::Tensor expected = entry(ref, "grad." + dotted(p.key()));
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_TRUE(at::allclose(p.value().grad(), expected, /*rtol=*/1e-4, /*atol=*/1e-6))
          << p.key() << " on call " << call << ": max difference "
          << (p.value().grad() - expected).abs().max().item<double>();
    }
  }
}

TEST_F(TorchScriptModel, ConvAttentionGradientsMatchPyTorch) {
  auto model = load(kConvAttention);
  expect_gradients_match_pytorch(*model, archive(kConvAttention) + ".grads");
}

TEST_F(TorchScriptModel, LossReturningForwardGradientsMatchPyTorch) {
  auto model = load(kLossReturning);
  expect_gradients_match_pytorch(*model, archive(kLossReturning) + ".grads");
}

// torch.jit.script refuses it; the export says it fell back to tracing, and the traced module
// trains with PyTorch's gradients too.
TEST_F(TorchScriptModel, TracedFallbackGradientsMatchPyTorch) {
  EXPECT_NE(test::slurp(dir_ + "/log.txt").find("TracedOnly with torch.jit.trace on an example input"),
            std::string::npos);
  auto model = load(kTracedOnly);
  expect_gradients_match_pytorch(*model, archive(kTracedOnly) + ".grads");
}

TEST_F(TorchScriptModel, BFloat16AutocastRunsInsideTheScriptedModule) {
  auto model = load(kConvAttention);
  const at::Tensor x = at::randn({4, 3, 8, 8});
  const at::Tensor target = at::zeros({4}, at::kLong);
  for (int call = 0; call < 4; ++call) {  // also once the executor has optimised the graph
    {
      const AutocastScope autocast(Precision::amp_bf16, c10::kCPU);
      ASSERT_TRUE(autocast.active());
      const at::Tensor logits = model->forward(x);
      // The last op (the head's linear) ran in bf16 inside the module: autocast was not bypassed.
      EXPECT_EQ(logits.scalar_type(), at::kBFloat16) << "call " << call;
      model->loss(logits, target).backward();
    }
    EXPECT_EQ(model->forward(x).scalar_type(), at::kFloat) << "call " << call << " without autocast";
  }
}

// `steps` training steps of `model` on `source` through the real Trainer; whether the mean loss
// of the last four fell below that of the first four.
bool loss_falls(TrainableModel& model, const ScenarioParams& p, std::shared_ptr<SampleSource> source, int steps) {
  BatchStream stream(std::move(source), p.batch, 0);
  Trainer trainer(p, model, stream, c10::Device(c10::kCPU));
  StepSample s;
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    trainer.step(s);
    losses.push_back(s.loss);
  }
  const auto mean_of_four = [&](std::size_t from) {
    return (losses[from] + losses[from + 1] + losses[from + 2] + losses[from + 3]) / 4;
  };
  return mean_of_four(losses.size() - 4) < mean_of_four(0);
}

// Both models through the real training step; the parameters the optimizer updates are the
// scripted module's own (its output moves), and the loss falls.
TEST_F(TorchScriptModel, TrainsThroughTheTrainer) {
  for (const auto& [m, precision] :
       {std::pair{&kConvAttention, Precision::fp32}, std::pair{&kLossReturning, Precision::amp_bf16}}) {
    ScenarioParams p;
    p.model = "torchscript";
    p.batch = 16;
    p.learning_rate = 1e-2;
    p.precision = precision;
    const DatasetInfo info = info_for(*m);
    p.dataset_options = {{"samples", 64}, {"shape", info.input_shape}, {"classes", m->classes}};
    torch::manual_seed(3);
    auto source = Registry::instance().dataset("synthetic").factory({p.dataset_options, 3});
    auto model = load(*m);
    const at::Tensor one = source->get(0).data.unsqueeze(0);
    const at::Tensor probe = at::cat({one, one});
    const auto output_of = [&] {
      const torch::NoGradGuard no_grad;
      model->module().eval();
      const at::Tensor out =
          m == &kLossReturning ? model->loss(probe, at::zeros({2}, at::kLong)) : model->forward(probe);
      model->module().train();
      return out.clone();
    };
    const at::Tensor before = output_of();
    EXPECT_TRUE(loss_falls(*model, p, source, 30)) << m->spec;
    EXPECT_FALSE(at::allclose(before, output_of())) << m->spec << ": the scripted module's weights did not move";
  }
}

// Any dataset feeds it: here the user's own regression tensors ("tensors", torch.save'd by
// save_tensors.py) with loss mse.
TEST_F(TorchScriptModel, TrainsOnTheUsersOwnTensorsWithMse) {
  ScenarioParams p;
  p.model = "torchscript";
  p.batch = 8;
  p.learning_rate = 1e-2;
  p.dataset_options = {{"path", dir_ + "/regression.pt"}};
  auto source = Registry::instance().dataset("tensors").factory({p.dataset_options, 3});
  auto model = Registry::instance()
                   .model("torchscript")
                   .factory({{"path", archive(kRegressor)}, {"loss", "mse"}}, source->info());
  EXPECT_TRUE(loss_falls(*model, p, source, 40));
}

// `call` throws an InputError whose field is `field` and whose message holds `needle`.
template <typename F>
void expect_input_error(F&& call, const std::string& field, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one on " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST_F(TorchScriptModel, BadFilesAreErrorsNamingThePath) {
  const auto& factory = Registry::instance().model("torchscript").factory;
  const DatasetInfo info = info_for(kConvAttention);
  expect_input_error([&] { factory({{"path", dir_ + "/absent.pt"}}, info); }, "model_options.path", "no such file");
  expect_input_error([&] { factory(json::object(), info); }, "model_options.path", "required");
  std::ofstream(dir_ + "/text.pt") << "not an archive\n";
  expect_input_error(
      [&] {
        factory({{"path", dir_ + "/text.pt"}}, info);
      },
      "model_options.path", "is not a TorchScript archive");
  // A torch.save'd dict is a zip archive too, but not a module.
  expect_input_error(
      [&] {
        factory({{"path", archive(kConvAttention) + ".grads"}}, info);
      },
      "model_options.path", "is not a TorchScript archive");
}

TEST_F(TorchScriptModel, DatasetThatDoesNotFitIsAnErrorNamingShapesAndDatasetOptions) {
  DatasetInfo five_channels = info_for(kConvAttention);
  five_channels.input_shape = {5, 8, 8};
  expect_input_error(
      [&] {
        Registry::instance().model("torchscript").factory({{"path", archive(kConvAttention)}}, five_channels);
      },
      "model_options.path", "input [2, 5, 8, 8] float32");
  expect_input_error(
      [&] {
        Registry::instance().model("torchscript").factory({{"path", archive(kConvAttention)}}, five_channels);
      },
      "model_options.path", "dataset_options");
  DatasetInfo more_classes = info_for(kConvAttention);
  more_classes.num_classes = 10;
  expect_input_error(
      [&] {
        Registry::instance().model("torchscript").factory({{"path", archive(kConvAttention)}}, more_classes);
      },
      "model_options.loss", "returns 4 logits per sample, but the dataset has 10 classes");
  // The loss does not fit the module's forward, either way round.
  expect_input_error(
      [&] {
        load(kLossReturning, {{"loss", "cross_entropy"}});
      },
      "model_options.loss", "has forward with 2 argument(s)");
  expect_input_error(
      [&] {
        load(kConvAttention, {{"loss", "output"}});
      },
      "model_options.loss", "must take (input, target)");
}

TEST_F(TorchScriptModel, ValidationLeavesTheLoadedWeightsAsTheyWere) {
  // The construction-time forward runs in training mode; the batch-norm statistics it moved
  // are put back, so the model starts from exactly the exported state.
  auto model = load(kConvAttention);
  for (const auto& b : model->module().named_buffers()) {
    if (b.key().find("running_mean") != std::string::npos) {
      EXPECT_TRUE(b.value().eq(0).all().item<bool>()) << b.key();
    } else if (b.key().find("running_var") != std::string::npos) {
      EXPECT_TRUE(b.value().eq(1).all().item<bool>()) << b.key();
    } else if (b.key().find("num_batches_tracked") != std::string::npos) {
      EXPECT_EQ(b.value().item<std::int64_t>(), 0);
    }
  }
  EXPECT_FALSE(model->module().named_buffers().is_empty());
}

}  // namespace
}  // namespace tb
