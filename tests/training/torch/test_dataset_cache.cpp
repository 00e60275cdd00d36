// The image dataset's cache heals itself: a file truncated or overwritten with garbage after the
// cache was written is found through its manifest when the dataset is next opened, reported in
// one line, and the cache is rebuilt so that every sample decodes again (issue 9).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <trainbench/support/error.hpp>
#include <trainbench/training/cache_manifest.hpp>
#include <trainbench/training/torch/registry.hpp>
#include "tests/helpers/scratch_dir.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<SampleSource> open_images(const fs::path& root, bool create = true) {
  DatasetRequest request;
  request.options = {{"path", root.string()}, {"samples", 12},   {"classes", 3},
                     {"stored_size", 16},     {"image_size", 8}, {"create", create}};
  return Registry::instance().dataset("images").factory(request);
}

void overwrite(const fs::path& file, const std::string& bytes) { std::ofstream(file, std::ios::binary) << bytes; }

TEST(DatasetCache, DamagedFileIsReportedAndTheCacheRebuilt) {
  const fs::path root = test::scratch_dir("dataset_cache") / "images";
  open_images(root);
  ASSERT_EQ(verify_cache(root.string()), "");
  const fs::path victim = root / "class_01" / "img_000004.jpg";
  const auto size = fs::file_size(victim);

  struct Case {
    const char* what;
    std::string garbage;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"truncated", "garbage",
       "class_01/img_000004.jpg: size mismatch (7 bytes, expected " + std::to_string(size) + ")"},
      {"garbage of the same size", std::string(size, '\x5a'), "class_01/img_000004.jpg: checksum mismatch"},
  };
  for (const auto& c : cases) {
    overwrite(victim, c.garbage);
    ::testing::internal::CaptureStderr();
    const auto images = open_images(root);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(),
              "dataset cache " + root.string() + " was damaged (" + c.problem + "); rebuilding\n")
        << c.what;
    EXPECT_EQ(verify_cache(root.string()), "") << c.what;
    EXPECT_NO_THROW(images->get(4)) << c.what;
  }
  // Healthy again: opened without a word.
  ::testing::internal::CaptureStderr();
  open_images(root);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(DatasetCache, DamagedCacheIsNotRebuiltWhenCreateIsFalse) {
  const fs::path root = test::scratch_dir("dataset_cache_no_create") / "images";
  open_images(root);
  overwrite(root / "class_00" / "img_000000.jpg", "x");
  try {
    open_images(root, /*create=*/false);
    FAIL() << "a damaged cache was used";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged (class_00/img_000000.jpg: size mismatch"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tb
