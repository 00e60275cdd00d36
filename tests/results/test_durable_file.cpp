// Durable writes: the target is replaced whole or not at all, the previous file survives every
// injected failure (file size limit, full tmpfs, read-only folder, a file where a folder should
// be), no temporary file is left behind, and the error names the artefact and the reason.
#include <trainbench/results/durable_file.hpp>

#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/support/error.hpp>
#include "tests/helpers/tmpfs_mount.hpp"

namespace {

namespace fs = std::filesystem;
using tb::OutputError;
using tb::testing::TmpfsMount;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// Makes write() fail with EFBIG past `bytes` (SIGXFSZ ignored), as a full disk would mid-file.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t old_handler_;
};

class DurableFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tb_test_durable_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    umount2(dir_.c_str(), MNT_DETACH);  // left over by a crashed earlier run
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(DurableFile, WritesCreatesFolderAndReplacesWhole) {
  const fs::path target = dir_ / "a" / "b" / "results.json";
  tb::write_file_durably(target, "first version, longer than the second\n");
  tb::write_file_durably(target, "second\n");
  EXPECT_EQ(read_file(target), "second\n");
  EXPECT_EQ(names_in(target.parent_path()), std::set<std::string>{"results.json"});
}

TEST_F(DurableFile, PathWithoutFolderIsRelativeToTheWorkingDirectory) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  tb::write_file_durably("plain.txt", "x");
  fs::current_path(cwd);
  EXPECT_EQ(read_file(dir_ / "plain.txt"), "x");
}

TEST_F(DurableFile, TemporaryNamesAreUniqueAndBesideTheTarget) {
  const fs::path target = dir_ / "results.json";
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const fs::path tmp = tb::temporary_path_for(target);
    EXPECT_EQ(tmp.parent_path(), dir_);
    EXPECT_EQ(tmp.filename().string().rfind("results.json.tmp-" + std::to_string(getpid()) + "-", 0), 0u) << tmp;
    seen.insert(tmp.string());
  }
  EXPECT_EQ(seen.size(), 100u);
}

// Every failure below happens with a good previous file in place: it must survive, whole.
struct Fault {
  const char* name;
  // Prepares the fault and returns the target to write; "" skips the case (with the reason in
  // `skip`).
  std::function<fs::path(const fs::path& dir, std::unique_ptr<TmpfsMount>& mount, std::string& skip)> setup;
  const char* reason;  // part of what() after "cannot write <target>: "
};

TEST_F(DurableFile, FailedWriteKeepsThePreviousFileAndLeavesNoTemporary) {
  const std::string big(256 * 1024, 'x');  // larger than the 64 KiB limit and tmpfs
  const Fault faults[] = {
      {"file size limit mid-write", [](const fs::path& dir, auto&, std::string&) { return dir / "results.json"; },
       "write failed: file too large"},
      {"full disk (64 KiB tmpfs)",
       [](const fs::path& dir, std::unique_ptr<TmpfsMount>& mount, std::string& skip) {
         mount = std::make_unique<TmpfsMount>(dir / "full");
         if (!mount->mounted()) skip = mount->skip_reason();
         return dir / "full" / "results.json";
       },
       "no space left on device"},
      {"target is a folder",
       [](const fs::path& dir, auto&, std::string&) {
         fs::create_directories(dir / "report.html" / "keep");
         return dir / "report.html";
       },
       "cannot replace the file: is a directory"},
  };
  for (const auto& f : faults) {
    SCOPED_TRACE(f.name);
    const fs::path case_dir = dir_ / f.name;
    fs::create_directories(case_dir);
    std::unique_ptr<TmpfsMount> mount;
    std::string skip;
    const fs::path target = f.setup(case_dir, mount, skip);
    if (!skip.empty()) {
      std::cout << "[  SKIPPED ] " << f.name << ": " << skip << "\n";
      continue;
    }
    const bool is_folder = fs::is_directory(target);
    if (!is_folder) tb::write_file_durably(target, "{\"good\": true}\n");
    const auto before = names_in(target.parent_path());
    try {
      std::unique_ptr<FileSizeLimit> limit;
      if (std::string(f.name).find("size limit") != std::string::npos)
        limit = std::make_unique<FileSizeLimit>(64 * 1024);
      tb::write_file_durably(target, big);
      ADD_FAILURE() << "no OutputError";
    } catch (const OutputError& e) {
      EXPECT_EQ(e.path(), target.string());
      EXPECT_NE(std::string(e.what()).find("cannot write " + target.string() + ": "), std::string::npos) << e.what();
      EXPECT_NE(e.reason().find(f.reason), std::string::npos) << e.reason();
    }
    if (is_folder) {
      EXPECT_TRUE(fs::is_directory(target / "keep"));
    } else {
      EXPECT_EQ(read_file(target), "{\"good\": true}\n");
    }
    EXPECT_EQ(names_in(target.parent_path()), before) << "a temporary file was left behind";
  }
}

TEST_F(DurableFile, ParentThatIsAFileIsAnOutputErrorNamingTheArtefact) {
  std::ofstream(dir_ / "not_a_folder") << "x";
  const fs::path target = dir_ / "not_a_folder" / "results.json";
  try {
    tb::write_file_durably(target, "{}");
    FAIL() << "no OutputError";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + target.string() + ": cannot create folder " +
                                         (dir_ / "not_a_folder").string() + ": not a directory");
  }
}

TEST_F(DurableFile, WritableDirIsCreatedAndLeftEmpty) {
  const fs::path out = dir_ / "results" / "run-1";
  tb::ensure_writable_dir(out);
  EXPECT_TRUE(fs::is_directory(out));
  EXPECT_TRUE(fs::is_empty(out)) << "the probe file was left behind";
  tb::ensure_writable_dir(out);  // existing is fine
}

TEST_F(DurableFile, UnwritableDirIsReportedNamingTheFolder) {
  std::ofstream(dir_ / "file") << "x";
  const fs::path under_file = dir_ / "file" / "out";
  EXPECT_THROW(
      {
        try {
          tb::ensure_writable_dir(under_file);
        } catch (const OutputError& e) {
          EXPECT_EQ(e.path(), under_file.string());
          throw;
        }
      },
      OutputError);

  TmpfsMount read_only(dir_ / "ro", MS_RDONLY);
  if (!read_only.mounted()) GTEST_SKIP() << read_only.skip_reason();
  try {
    tb::ensure_writable_dir(dir_ / "ro");
    FAIL() << "a read-only folder passed the check";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), (dir_ / "ro").string());
    EXPECT_NE(e.reason().find("read-only file system"), std::string::npos) << e.reason();
  }
}

TEST_F(DurableFile, FullDiskFailsTheWritableCheckOnlyWhenNothingFits) {
  TmpfsMount full(dir_ / "full");
  if (!full.mounted()) GTEST_SKIP() << full.skip_reason();
  tb::ensure_writable_dir(dir_ / "full");  // room left: passes
  EXPECT_THROW(tb::write_file_durably(dir_ / "full" / "huge.bin", std::string(TmpfsMount::kBytes * 2, 'x')),
               OutputError);
  EXPECT_TRUE(fs::is_empty(dir_ / "full"));
}

}  // namespace
