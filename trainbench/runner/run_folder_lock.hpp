// One run per output folder. Two runs given the same --out would both finish "ok" while the
// last writer's results.json silently replaced the other's, so the second is refused at once,
// before it measures anything.
#pragma once
#include <filesystem>
#include <string>

namespace tb {

// Holds DIR/.trainbench.lock with flock(LOCK_EX) for the life of the object. The kernel drops
// the lock when the process ends, however it ends (a crash or SIGKILL leaves no stale lock), and
// the descriptor is close-on-exec, so --isolate workers and launched ranks never hold it: the
// run that owns the folder (rank 0 of a data-parallel run) takes it once.
class RunFolderLock {
 public:
  // InputError (field "--out", exit 2) when another live process holds the folder, naming its
  // pid and command as the lock file records them; OutputError when the lock file cannot be made.
  RunFolderLock(const std::filesystem::path& dir, const std::string& command);
  ~RunFolderLock();
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace tb
