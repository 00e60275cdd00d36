#include <trainbench/profiling/host_recorder.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <map>
#include <utility>

namespace tb::profiling {
namespace {

std::atomic<HostRecorder*> g_active{nullptr};
std::atomic<std::uint64_t> g_next_epoch{1};

// Per thread: its chosen name, and its id in the recorder it last recorded into.
struct ThreadState {
  std::string name;
  std::uint64_t epoch = 0;
  std::uint32_t id = 0;
};
thread_local ThreadState t_state;

std::mutex g_os_names_mutex;
std::map<std::int64_t, std::string>& os_thread_names() {
  static auto* names = new std::map<std::int64_t, std::string>();  // never destroyed: threads outlive statics
  return *names;
}

}  // namespace

HostRecorder* active_recorder() noexcept { return g_active.load(std::memory_order_acquire); }
void set_active_recorder(HostRecorder* recorder) noexcept { g_active.store(recorder, std::memory_order_release); }

HostRecorder::HostRecorder(std::size_t span_capacity, std::size_t counter_capacity)
    : epoch_(g_next_epoch.fetch_add(1)), created_ns_(now_ns()) {
  spans_.reserve(span_capacity);
  counters_.reserve(counter_capacity);
  threads_.reserve(64);
}

std::uint32_t HostRecorder::thread_id_locked() {
  if (t_state.epoch != epoch_) {
    const auto id = static_cast<std::uint32_t>(threads_.size());
    std::string name = t_state.name.empty() ? "thread " + std::to_string(id) : t_state.name;
    threads_.push_back(ThreadInfo{id, std::move(name)});
    t_state.epoch = epoch_;
    t_state.id = id;
  }
  return t_state.id;
}

void HostRecorder::record_span(const char* name, const char* category, std::int64_t begin_ns, std::int64_t end_ns,
                               std::int64_t step) {
  std::lock_guard lock(mutex_);
  const std::uint32_t thread = thread_id_locked();
  if (spans_.size() == spans_.capacity()) {
    ++dropped_;  // never reallocate while recording: that would stall the training loop
    return;
  }
  spans_.push_back(HostSpan{thread, name, category, begin_ns, end_ns < begin_ns ? begin_ns : end_ns, step});
}

void HostRecorder::record_counter(const char* name, double value, std::int64_t ts_ns) {
  std::lock_guard lock(mutex_);
  if (counters_.size() == counters_.capacity()) {
    ++dropped_;
    return;
  }
  counters_.push_back(CounterSample{name, ts_ns, value});
}

void HostRecorder::set_thread_name(const std::string& name) {
  t_state.name = name;
  {
    std::lock_guard lock(g_os_names_mutex);
    os_thread_names()[static_cast<std::int64_t>(::syscall(SYS_gettid))] = name;
  }
  HostRecorder* rec = active_recorder();
  if (rec == nullptr) return;
  std::lock_guard lock(rec->mutex_);
  const std::uint32_t id = rec->thread_id_locked();
  rec->threads_[id].name = name;
}

std::vector<std::pair<std::int64_t, std::string>> HostRecorder::named_os_threads() {
  std::lock_guard lock(g_os_names_mutex);
  return {os_thread_names().begin(), os_thread_names().end()};
}

std::vector<HostSpan> HostRecorder::spans() const {
  std::lock_guard lock(mutex_);
  return spans_;
}
std::vector<CounterSample> HostRecorder::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}
std::vector<ThreadInfo> HostRecorder::threads() const {
  std::lock_guard lock(mutex_);
  return threads_;
}
std::size_t HostRecorder::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}
void HostRecorder::clear() {
  std::lock_guard lock(mutex_);
  spans_.clear();
  counters_.clear();
  dropped_ = 0;
}

}  // namespace tb::profiling
