#include <trainbench/profiling/chrome_trace_logger.hpp>

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include <trainbench/results/durable_file.hpp>
#include <trainbench/support/safe_file_stem.hpp>

namespace tb::profiling {
namespace {

constexpr long kHostPid = 1;
constexpr long kGpuPidBase = 100;
constexpr long kOverheadTid = 999'999;
constexpr long kApiTidBase = 1'000'000;
constexpr long kSyncTid = 0;  // per GPU process; streams use stream id + 1

struct Slice {
  long pid, tid;
  std::int64_t begin, end;
  std::string_view name;
  std::string_view cat;
  std::string args;  // JSON object text, or empty
};

struct Track {
  std::string name;
  long sort_index;
};

void append_escaped(std::string& out, std::string_view s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
}

// Microseconds with nanosecond precision, from a non-negative nanosecond offset.
void append_us(std::string& out, std::int64_t ns) {
  if (ns < 0) ns = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  out += buf;
}

void append_int(std::string& out, long long v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_double(std::string& out, double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

bool has_time(const GpuActivity& a) { return a.start_ns != 0 || a.end_ns != 0; }

void append_metadata(std::string& out, const char* what, long pid, long tid, bool with_tid, const std::string& key,
                     const std::string& name, long sort) {
  out += "{\"ph\":\"M\",\"name\":\"";
  out += what;
  out += "_name\",\"pid\":";
  append_int(out, pid);
  if (with_tid) {
    out += ",\"tid\":";
    append_int(out, tid);
  }
  out += ",\"args\":{\"" + key + "\":";
  append_escaped(out, name);
  out += "}},\n{\"ph\":\"M\",\"name\":\"";
  out += what;
  out += "_sort_index\",\"pid\":";
  append_int(out, pid);
  if (with_tid) {
    out += ",\"tid\":";
    append_int(out, tid);
  }
  out += ",\"args\":{\"sort_index\":";
  append_int(out, sort);
  out += "}},\n";
}

// The steady-clock time of the earliest event, or 0 for an empty trace.
std::int64_t earliest_event_ns(const std::vector<HostSpan>& spans, const std::vector<GpuActivity>& activities,
                               const std::vector<RuntimeCall>& calls, const std::vector<CounterSample>& counters) {
  std::int64_t t0 = std::numeric_limits<std::int64_t>::max();
  for (const auto& s : spans) t0 = std::min(t0, s.begin_ns);
  for (const auto& a : activities) t0 = std::min(t0, std::min(a.start_ns, a.end_ns));
  for (const auto& c : calls) t0 = std::min(t0, c.start_ns);
  for (const auto& c : counters) t0 = std::min(t0, c.ts_ns);
  return t0 == std::numeric_limits<std::int64_t>::max() ? 0 : t0;
}

// What ts 0 is on the steady clock: the earliest event, so that every ts is >= 0, or, with a
// time base, Kineto's base moved onto the steady clock (then baseTimeNanoseconds is written too).
struct TraceOrigin {
  std::int64_t t0 = 0;
  std::optional<std::int64_t> base_time_ns;
};
TraceOrigin trace_origin(const TraceInfo& info, std::int64_t earliest_ns) {
  if (!info.time_base) return {earliest_ns, std::nullopt};
  constexpr std::int64_t kSecond = 1'000'000'000;
  const std::int64_t first_unix_ns = earliest_ns + info.time_base->unix_minus_steady_ns;
  const std::int64_t base_time_ns = info.time_base->base_time_ns.value_or(first_unix_ns - first_unix_ns % kSecond);
  return {base_time_ns - info.time_base->unix_minus_steady_ns, base_time_ns};
}

// An arrow from a CUDA API call to the GPU work it launched.
struct Flow {
  std::uint32_t id;
  long call_tid;
  std::int64_t call_ts;
  long pid, tid;
  std::int64_t ts;
};

// The trace's processes, tracks, slices and flows before they are written.
struct TraceLayout {
  std::map<std::pair<long, long>, Track> tracks;  // (pid, tid) -> name, sort index
  std::map<long, Track> processes = {{kHostPid, {"Host (trainbench)", 0}}};
  std::vector<Slice> slices;
  std::vector<Flow> flows;
};

// Host spans on one track per recorded thread.
void add_host_spans(TraceLayout& layout, const std::vector<ThreadInfo>& threads, const std::vector<HostSpan>& spans) {
  for (const auto& t : threads)
    layout.tracks[{kHostPid, static_cast<long>(t.id) + 1}] = {t.name, static_cast<long>(t.id)};
  for (const auto& s : spans) {
    const long tid = static_cast<long>(s.thread) + 1;
    if (!layout.tracks.count({kHostPid, tid}))
      layout.tracks[{kHostPid, tid}] = {"thread " + std::to_string(s.thread), tid};
    std::string args;
    if (s.step >= 0) {
      args = "{\"step\":";
      append_int(args, s.step);
      args += '}';
    }
    layout.slices.push_back({kHostPid, tid, s.begin_ns, s.end_ns, s.name, s.category, std::move(args)});
  }
}

// The CUDA API calls' tracks, and which call launched each correlation id (for the flows).
struct ApiCalls {
  std::unordered_map<std::uint32_t, long> tid_of_thread;
  std::unordered_map<std::uint32_t, const RuntimeCall*> launcher;  // correlation -> call
};

// CUDA API calls: one track per OS thread.
ApiCalls add_api_calls(TraceLayout& layout, const std::vector<RuntimeCall>& calls) {
  ApiCalls api;
  for (const auto& c : calls) {
    auto [it, added] =
        api.tid_of_thread.emplace(c.thread_id, kApiTidBase + static_cast<long>(api.tid_of_thread.size()));
    if (added)
      layout.tracks[{kHostPid, it->second}] = {"CUDA API (tid " + std::to_string(c.thread_id) + ")",
                                               500 + static_cast<long>(api.tid_of_thread.size())};
    std::string args = "{\"correlation\":";
    append_int(args, c.correlation_id);
    args += ",\"cbid\":";
    append_int(args, c.cbid);
    args += c.is_driver ? ",\"driver\":true}" : ",\"driver\":false}";
    layout.slices.push_back({kHostPid, it->second, c.start_ns, c.end_ns, c.name,
                             c.is_driver ? "cuda_driver" : "cuda_runtime", std::move(args)});
    if (c.correlation_id == 0) continue;
    auto [lit, inserted] = api.launcher.emplace(c.correlation_id, &c);
    if (!inserted && !c.is_driver) lit->second = &c;  // the runtime call encloses the driver call
  }
  return api;
}

// The slice's args: correlation, device and stream, bytes and bandwidth of a copy or set.
std::string activity_args(const GpuActivity& a) {
  std::string args = "{\"correlation\":";
  append_int(args, a.correlation_id);
  if (a.kind != GpuActivityKind::overhead) {
    args += ",\"device\":";
    append_int(args, a.device);
    args += ",\"stream\":";
    append_int(args, a.stream);
  }
  if (a.kind == GpuActivityKind::memcpy || a.kind == GpuActivityKind::memset) {
    args += ",\"bytes\":";
    append_int(args, static_cast<long long>(a.bytes));
    if (a.end_ns > a.start_ns) {
      args += ",\"bandwidth_gb_s\":";
      append_double(args, static_cast<double>(a.bytes) / static_cast<double>(a.end_ns - a.start_ns));
    }
  }
  args += '}';
  return args;
}

// GPU work: one process per device, one track per stream; a flow from each launching call to
// the first work it launched.
void add_gpu_work(TraceLayout& layout, const std::vector<GpuActivity>& activities, const ApiCalls& api) {
  // A synchronization names its context only: its device is the one that context's work ran on.
  std::unordered_map<std::uint32_t, std::uint32_t> device_of_context;
  for (const auto& a : activities)
    if (is_device_work(a)) device_of_context.emplace(a.context, a.device);
  std::set<std::uint32_t> flow_ids;
  for (const auto& a : activities) {
    long pid = kHostPid, tid = kOverheadTid;
    if (a.kind == GpuActivityKind::overhead) {
      layout.tracks[{pid, tid}] = {"CUPTI overhead", 999};
    } else {
      std::uint32_t device = a.device;
      if (a.kind == GpuActivityKind::sync) {
        auto it = device_of_context.find(a.context);
        device = it == device_of_context.end() ? 0 : it->second;
      }
      pid = kGpuPidBase + static_cast<long>(device);
      layout.processes[pid] = {"GPU " + std::to_string(device), pid};
      if (a.kind == GpuActivityKind::sync) {
        tid = kSyncTid;
        layout.tracks[{pid, tid}] = {"Synchronization", 0};
      } else {
        tid = static_cast<long>(a.stream) + 1;
        layout.tracks[{pid, tid}] = {"Stream " + std::to_string(a.stream), tid};
      }
    }
    layout.slices.push_back(
        {pid, tid, a.start_ns, std::max(a.start_ns, a.end_ns), a.name, to_string(a.kind), activity_args(a)});

    if (!is_device_work(a)) continue;
    auto it = api.launcher.find(a.correlation_id);
    if (it == api.launcher.end() && a.runtime_correlation_id != 0) it = api.launcher.find(a.runtime_correlation_id);
    if (it == api.launcher.end() || !flow_ids.insert(it->second->correlation_id).second) continue;
    layout.flows.push_back({it->second->correlation_id, api.tid_of_thread.at(it->second->thread_id),
                            it->second->start_ns, pid, tid, a.start_ns});
  }
}

// Within a track, slices must nest: clamp a child that outlives its parent (clock skew
// between CUPTI and the host can cause sub-microsecond partial overlaps). Sorts the slices by
// track, then by start, a parent before its children.
void nest_slices(std::vector<Slice>& slices) {
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.tid != b.tid) return a.tid < b.tid;
    if (a.begin != b.begin) return a.begin < b.begin;
    return a.end > b.end;
  });
  std::vector<std::int64_t> open_ends;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    if (i == 0 || slices[i].pid != slices[i - 1].pid || slices[i].tid != slices[i - 1].tid) open_ends.clear();
    auto& s = slices[i];
    if (s.end < s.begin) s.end = s.begin;
    while (!open_ends.empty() && s.begin >= open_ends.back()) open_ends.pop_back();
    if (!open_ends.empty() && s.end > open_ends.back()) s.end = open_ends.back();
    open_ends.push_back(s.end);
  }
}

// Everything before the events: the time unit, the time base, otherData.
void append_header(std::string& out, const TraceInfo& info, const TraceOrigin& origin) {
  out += "{\"displayTimeUnit\":\"ms\",\n";
  if (origin.base_time_ns) {
    out += "\"baseTimeNanoseconds\":";
    append_int(out, *origin.base_time_ns);
    out += ",\n";
  }
  out += "\"otherData\":";
  nlohmann::json other = info.metadata.is_object() ? info.metadata : nlohmann::json::object();
  other["generator"] = "trainbench";
  other["name"] = info.name;
  other["trace_start_steady_ns"] = origin.t0;  // the steady-clock time of ts 0 (rank_trace_merge aligns on it)
  out += other.dump();
  out += ",\n\"traceEvents\":[\n";
}

void append_slices(std::string& out, const std::vector<Slice>& slices, std::int64_t t0) {
  for (const auto& s : slices) {
    out += "{\"ph\":\"X\",\"name\":";
    append_escaped(out, s.name);
    out += ",\"cat\":";
    append_escaped(out, s.cat);
    out += ",\"pid\":";
    append_int(out, s.pid);
    out += ",\"tid\":";
    append_int(out, s.tid);
    out += ",\"ts\":";
    append_us(out, s.begin - t0);
    out += ",\"dur\":";
    append_us(out, s.end - s.begin);
    if (!s.args.empty()) {
      out += ",\"args\":";
      out += s.args;
    }
    out += "},\n";
  }
}

// Each flow as its start ("s", on the API call) and its end ("f", bound to the enclosing slice).
void append_flows(std::string& out, const std::vector<Flow>& flows, std::int64_t t0) {
  for (const auto& f : flows) {
    out += "{\"ph\":\"s\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":";
    append_int(out, f.id);
    out += ",\"pid\":";
    append_int(out, kHostPid);
    out += ",\"tid\":";
    append_int(out, f.call_tid);
    out += ",\"ts\":";
    append_us(out, f.call_ts - t0);
    out += "},\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":";
    append_int(out, f.id);
    out += ",\"pid\":";
    append_int(out, f.pid);
    out += ",\"tid\":";
    append_int(out, f.tid);
    out += ",\"ts\":";
    append_us(out, f.ts - t0);
    out += "},\n";
  }
}

// Counters as "C" events; a non-finite value (JSON has none) is left out.
void append_counters(std::string& out, const std::vector<CounterSample>& counters, std::int64_t t0) {
  for (const auto& c : counters) {
    if (!std::isfinite(c.value)) continue;
    out += "{\"ph\":\"C\",\"name\":";
    append_escaped(out, c.name);
    out += ",\"pid\":";
    append_int(out, kHostPid);
    out += ",\"ts\":";
    append_us(out, c.ts_ns - t0);
    out += ",\"args\":{\"value\":";
    append_double(out, c.value);
    out += "}},\n";
  }
}

}  // namespace

ChromeTraceLogger::ChromeTraceLogger(std::string path, bool gzip) : path_(std::move(path)), gzip_(gzip) {}

void ChromeTraceLogger::handle_thread(const ThreadInfo& thread) { threads_.push_back(thread); }
void ChromeTraceLogger::handle_host_span(const HostSpan& span) { spans_.push_back(span); }
void ChromeTraceLogger::handle_gpu_activity(const GpuActivity& activity) {
  if (has_time(activity)) activities_.push_back(activity);
}
void ChromeTraceLogger::handle_runtime_call(const RuntimeCall& call) { calls_.push_back(call); }
void ChromeTraceLogger::handle_counter(const CounterSample& counter) { counters_.push_back(counter); }

std::size_t ChromeTraceLogger::event_count() const {
  return spans_.size() + activities_.size() + calls_.size() + counters_.size();
}

std::string ChromeTraceLogger::serialize(const TraceInfo& info) const {
  const TraceOrigin origin = trace_origin(info, earliest_event_ns(spans_, activities_, calls_, counters_));
  TraceLayout layout;
  layout.slices.reserve(event_count());
  add_host_spans(layout, threads_, spans_);
  const ApiCalls api = add_api_calls(layout, calls_);
  add_gpu_work(layout, activities_, api);
  nest_slices(layout.slices);

  std::string out;
  out.reserve(256 + layout.slices.size() * 160 + layout.flows.size() * 200 + counters_.size() * 100);
  append_header(out, info, origin);
  for (const auto& [pid, p] : layout.processes)
    append_metadata(out, "process", pid, 0, false, "name", p.name, p.sort_index);
  for (const auto& [key, t] : layout.tracks)
    append_metadata(out, "thread", key.first, key.second, true, "name", t.name, t.sort_index);
  append_slices(out, layout.slices, origin.t0);
  append_flows(out, layout.flows, origin.t0);
  append_counters(out, counters_, origin.t0);
  if (out.ends_with(",\n")) out.resize(out.size() - 2);
  out += "\n]}\n";
  return out;
}

void ChromeTraceLogger::finalize(const TraceInfo& info) { write_text_file(path_, serialize(info), gzip_); }

// The gzip file format (level 6) in memory, so the trace goes through the durable writer.
std::string gzip_compress(const std::string& text, const std::string& path) {
  z_stream z{};
  constexpr int kGzipWindowBits = 15 + 16;  // 16: gzip header and trailer instead of zlib's
  if (deflateInit2(&z, 6, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error(path + ": cannot start gzip compression");
  std::string out;
  std::string buf(1 << 16, '\0');
  std::size_t done = 0;
  for (;;) {
    if (z.avail_in == 0 && done < text.size()) {  // avail_in is 32-bit: feed at most 1 GiB
      const auto chunk = static_cast<uInt>(std::min<std::size_t>(text.size() - done, 1u << 30));
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + done));
      z.avail_in = chunk;
      done += chunk;
    }
    z.next_out = reinterpret_cast<Bytef*>(buf.data());
    z.avail_out = static_cast<uInt>(buf.size());
    const int rc = deflate(&z, done == text.size() ? Z_FINISH : Z_NO_FLUSH);
    out.append(buf.data(), buf.size() - z.avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK) {
      deflateEnd(&z);
      throw std::runtime_error(path + ": gzip compression failed");
    }
  }
  deflateEnd(&z);
  return out;
}

void write_text_file(const std::string& path, const std::string& text, bool gzip) {
  write_file_durably(path, gzip ? gzip_compress(text, path) : text);
}

void write_chrome_trace(const HostRecorder& recorder, const std::vector<GpuActivity>& activities,
                        const std::vector<RuntimeCall>& calls, const std::string& path, bool gzip,
                        const TraceInfo& info) {
  ChromeTraceLogger logger(path, gzip);
  DecodedRecords records;
  records.activities = activities;
  records.calls = calls;
  replay(recorder, records, logger);
  logger.finalize(info);
}

TraceTimeBase unix_time_base(std::optional<std::int64_t> base_time_ns) {
  // The Unix clock read between two steady reads: the pair is at most their gap apart.
  const std::int64_t before = now_ns();
  const std::int64_t unix_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const std::int64_t after = now_ns();
  return TraceTimeBase{unix_ns - (before + (after - before) / 2), base_time_ns};
}

std::string trace_file_name(const std::string& scenario_id, const std::string& kind, bool gzip) {
  std::string name = safe_file_stem(scenario_id);
  if (name.empty()) name = "scenario";
  name += '.' + kind + (gzip ? ".json.gz" : ".json");
  return name;
}

}  // namespace tb::profiling
