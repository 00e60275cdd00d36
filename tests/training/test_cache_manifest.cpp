// The manifest of an on-disk cache (trainbench/training/cache_manifest.hpp): a cache as written verifies;
// each kind of damage is named with the file; checksums are skipped above the size limit.
#include <trainbench/training/cache_manifest.hpp>

#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& contents) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << contents;
}

class CacheManifest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tb_test_cache_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    write(dir_ / "a" / "one.jpg", "first file");
    write(dir_ / "a" / "two with space.jpg", "second file, longer");
    write(dir_ / "b" / "three.jpg", "");
    tb::write_cache_manifest(dir_.string(), {"a/one.jpg", "a/two with space.jpg", "b/three.jpg"});
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CacheManifest, CacheAsWrittenVerifies) {
  EXPECT_EQ(tb::verify_cache(dir_.string()), "");
  const auto f = tb::describe_cache_file(dir_.string(), "a/one.jpg");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->size, 10u);
  EXPECT_EQ(f->crc32, 0x00effe3au) << std::hex << f->crc32;  // zlib's crc32 of "first file"
}

TEST_F(CacheManifest, EachDamageIsNamedWithItsFile) {
  struct Case {
    const char* what;
    std::function<void(const fs::path&)> damage;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"truncated", [](const fs::path& d) { write(d / "a" / "one.jpg", "firs"); },
       "a/one.jpg: size mismatch (4 bytes, expected 10)"},
      {"garbage of the same size",
       [](const fs::path& d) { write(d / "a" / "two with space.jpg", std::string(19, 'x')); },
       "a/two with space.jpg: checksum mismatch"},
      {"removed", [](const fs::path& d) { fs::remove(d / "b" / "three.jpg"); }, "b/three.jpg: missing"},
      {"no manifest", [](const fs::path& d) { fs::remove(d / "MANIFEST"); }, "MANIFEST: missing"},
      {"foreign manifest", [](const fs::path& d) { write(d / "MANIFEST", "something else\n"); },
       "MANIFEST: unknown format"},
      {"garbled line",
       [](const fs::path& d) { write(d / "MANIFEST", "trainbench cache manifest 1\n10 zz a/one.jpg\n"); },
       "MANIFEST: malformed line 2"},
  };
  for (const auto& c : cases) {
    SetUp();
    c.damage(dir_);
    EXPECT_EQ(tb::verify_cache(dir_.string()), c.problem) << c.what;
  }
}

TEST_F(CacheManifest, AboveTheLimitOnlySizesAreChecked) {
  write(dir_ / "a" / "one.jpg", "FIRST FILE");  // same size, other bytes
  EXPECT_EQ(tb::verify_cache(dir_.string(), /*checksum_limit_bytes=*/28), "");
  EXPECT_EQ(tb::verify_cache(dir_.string(), /*checksum_limit_bytes=*/29), "a/one.jpg: checksum mismatch");
}

TEST_F(CacheManifest, UnreadableFileCannotBeListed) {
  EXPECT_THROW(tb::write_cache_manifest(dir_.string(), {"a/absent.jpg"}), std::runtime_error);
}

}  // namespace
