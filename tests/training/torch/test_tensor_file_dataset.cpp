// The "tensors" dataset: files written in Python with torch.save (tests/fixtures/python_models/
// save_tensors.py, run with the venv's python) are read by LibTorch; classes, token sequences
// and regression targets fill DatasetInfo; every malformed file is an InputError naming
// dataset_options.path.
#include <gtest/gtest.h>

#include <fstream>

#include <ATen/ATen.h>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>

#include "tests/helpers/python_torch.hpp"

namespace tb {
namespace {

class TensorFileDataset : public ::testing::Test {
 protected:
  // One python run writes every file (starting python with torch takes seconds).
  static void SetUpTestSuite() {
    python_ = test::python_with_torch();
    if (python_.empty()) return;
    dir_ = test::suite_scratch_dir("TensorFileDataset").string();
    saved_ = test::run_shell(python_ + " " + test::python_fixture("save_tensors.py") + " " + dir_) == 0;
  }
  void SetUp() override {
    if (python_.empty()) GTEST_SKIP() << "no python that imports torch beside LibTorch (" << TB_TORCH_LIB_DIR << ")";
    ASSERT_TRUE(saved_) << "save_tensors.py failed";
  }
  // The file save_tensors.py wrote for `kind`.
  static std::string saved(const std::string& kind) { return dir_ + "/" + kind + ".pt"; }
  static std::shared_ptr<SampleSource> open(const std::string& path) {
    return Registry::instance().dataset("tensors").factory({{{"path", path}}, 1});
  }
  inline static std::string python_, dir_;
  inline static bool saved_ = false;
};

TEST_F(TensorFileDataset, ClassLabelsGiveTheNumberOfClasses) {
  const auto source = open(saved("classes"));
  EXPECT_EQ(source->size(), 20u);
  EXPECT_EQ(source->info().input_shape, (std::vector<std::int64_t>{3, 4, 4}));
  EXPECT_EQ(source->info().num_classes, 7);  // labels 0..6
  const auto sample = source->get(9);
  EXPECT_EQ(sample.data.scalar_type(), at::kFloat);
  EXPECT_EQ(sample.target.item<std::int64_t>(), 2);  // 9 % 7
}

TEST_F(TensorFileDataset, IntegerSequencesAreTokens) {
  const auto source = open(saved("tokens"));
  EXPECT_EQ(source->info().seq_len, 8);
  EXPECT_GE(source->info().vocab_size, 50);
  EXPECT_LE(source->info().vocab_size, 60);
  EXPECT_EQ(source->info().num_classes, 0);
  EXPECT_EQ(source->get(0).data.scalar_type(), at::kLong);
}

TEST_F(TensorFileDataset, FloatingTargetsAreRegressionAndFloat64BecomesFloat32) {
  const auto source = open(saved("regression"));
  EXPECT_EQ(source->info().num_classes, 0);
  EXPECT_EQ(source->info().vocab_size, 0);
  EXPECT_EQ(source->get(0).data.scalar_type(), at::kFloat);
  EXPECT_EQ(source->get(0).target.sizes(), (std::vector<std::int64_t>{2}));
}

TEST_F(TensorFileDataset, MalformedFilesAreErrorsNamingThePath) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing_targets", "has no \"targets\" entry"},
      {"different_lengths", "inputs have 20 samples but targets 15"},
      {"not_tensor", ", not a tensor"},
      {"empty", "holds no samples"},
      {"list", "not a dict"},
  };
  for (const auto& [kind, needle] : cases) {
    try {
      open(saved(kind));
      ADD_FAILURE() << kind << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "dataset_options.path") << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << kind << ": " << e.what();
    }
  }
  std::ofstream(dir_ + "/text.pt") << "hello\n";
  for (const auto& [path, needle] : {std::pair{dir_ + "/text.pt", "is not a file written by torch.save"},
                                     std::pair{dir_ + "/absent.pt", "no such file"}}) {
    try {
      open(path);
      ADD_FAILURE() << path << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "dataset_options.path") << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tb
