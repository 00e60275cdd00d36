#include <trainbench/profiling/cupti_collector.hpp>

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <unordered_map>

#include <trainbench/profiling/cupti_records.hpp>

namespace tb::profiling {
namespace {

constexpr std::size_t kBufferSize = 8u << 20;  // CUPTI recommends a few MB per buffer
constexpr std::size_t kBufferAlign = 8;

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
};

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  throw std::runtime_error(std::string("CUPTI ") + what + ": " + (msg ? msg : "unknown error"));
}

// Records carry steady_clock time, the host timeline of HostRecorder.
std::uint64_t CUPTIAPI steady_timestamp() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferSize));
  *size = *buffer != nullptr ? kBufferSize : 0;
  *max_records = 0;  // as many as fit
}

// The running collector; buffers completing with none running (after stop) are discarded.
std::mutex g_active_mutex;
CuptiCollector* g_active = nullptr;
bool g_callbacks_registered = false;

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t /*size*/,
                               std::size_t valid_size) {
  std::size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(context, stream, &dropped);
  {
    std::lock_guard lock(g_active_mutex);
    if (g_active != nullptr) g_active->on_buffer_completed(buffer, valid_size, dropped);
  }
  std::free(buffer);
}

// CUPTI's own names for every callback id, cached (names are static strings in libcupti).
void name_calls(DecodedRecords& records) {
  std::unordered_map<std::uint64_t, std::string> cache;
  for (auto& c : records.calls) {
    const std::uint64_t key = (std::uint64_t{c.is_driver} << 32) | c.cbid;
    auto it = cache.find(key);
    if (it == cache.end()) {
      const char* name = nullptr;
      const auto domain = c.is_driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
      std::string resolved =
          cuptiGetCallbackName(domain, c.cbid, &name) == CUPTI_SUCCESS && name ? std::string(name) : c.name;
      // Runtime names carry a version suffix ("cudaLaunchKernel_v7000"): drop it for display.
      if (auto pos = resolved.rfind("_v"); pos != std::string::npos && pos + 2 < resolved.size() &&
                                           resolved.find_first_not_of("0123456789", pos + 2) == std::string::npos)
        resolved.resize(pos);
      it = cache.emplace(key, std::move(resolved)).first;
    }
    c.name = it->second;
  }
}

}  // namespace

CuptiCollector::~CuptiCollector() {
  if (!running_) return;
  try {
    stop();
  } catch (...) {  // destructor: records are discarded anyway
  }
}

void CuptiCollector::start() {
  if (running_) return;
  {
    std::lock_guard lock(g_active_mutex);
    if (g_active != nullptr) throw std::runtime_error("CUPTI: another collector is already running");
    if (!g_callbacks_registered) {
      // Must precede enabling any kind. If CUPTI refuses, the measured offset below converts.
      cuptiActivityRegisterTimestampCallback(steady_timestamp);
      check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "register callbacks");
      g_callbacks_registered = true;
    }
    g_active = this;
  }
  {
    // steady - CUPTI, sampled around one cuptiGetTimestamp (0 when our callback is the clock).
    const auto before = static_cast<std::int64_t>(steady_timestamp());
    std::uint64_t cupti_now = 0;
    const bool ok = cuptiGetTimestamp(&cupti_now) == CUPTI_SUCCESS;
    const auto after = static_cast<std::int64_t>(steady_timestamp());
    const std::int64_t offset = ok ? (before + after) / 2 - static_cast<std::int64_t>(cupti_now) : 0;
    // Within a millisecond means CUPTI already uses steady_clock (our timestamp callback).
    clock_offset_ns_ = (offset > -1'000'000 && offset < 1'000'000) ? 0 : offset;
  }
  {
    std::lock_guard lock(mutex_);
    store_ = DecodedRecords{};
  }
  for (const auto kind : kKinds) {
    const CUptiResult r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
      for (const auto k : kKinds) cuptiActivityDisable(k);
      std::lock_guard lock(g_active_mutex);
      g_active = nullptr;
      check(r, "enable activity kind (is another profiler, e.g. Kineto, active?)");
    }
  }
  running_ = true;
}

DecodedRecords CuptiCollector::stop() {
  if (!running_) return {};
  cudaDeviceSynchronize();  // the window's GPU work must be complete before flushing
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (const auto kind : kKinds) cuptiActivityDisable(kind);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // records of calls made while disabling
  running_ = false;
  {
    std::lock_guard lock(g_active_mutex);
    g_active = nullptr;
  }
  DecodedRecords out;
  {
    std::lock_guard lock(mutex_);
    out = std::move(store_);
    store_ = DecodedRecords{};
  }
  name_calls(out);
  if (clock_offset_ns_ != 0) shift_timestamps(out, clock_offset_ns_);
  return out;
}

void CuptiCollector::on_buffer_completed(std::uint8_t* buffer, std::size_t valid_size, std::uint64_t dropped) {
  // Decode outside the lock; CUDA 13 may complete per-thread buffers concurrently.
  DecodedRecords local;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) decode_record(record, local);
  std::lock_guard lock(mutex_);
  auto move_append = [](auto& dst, auto& src) {
    dst.insert(dst.end(), std::make_move_iterator(src.begin()), std::make_move_iterator(src.end()));
  };
  move_append(store_.activities, local.activities);
  move_append(store_.calls, local.calls);
  store_.overhead_ns += local.overhead_ns;
  store_.unknown_records += local.unknown_records;
  store_.dropped_records += dropped;
}

}  // namespace tb::profiling
