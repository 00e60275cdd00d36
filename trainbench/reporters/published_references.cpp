#include <trainbench/reporters/published_references.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include <trainbench/build_config.hpp>
#include <trainbench/results/machine.hpp>
#include <trainbench/support/error.hpp>

namespace tb::report {

std::vector<PublishedEntry> load_published_references(const std::string& path) {
  std::ifstream in(path);
  TB_CHECK_INPUT(in.good(), path, "", "cannot read the published-throughputs table");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  TB_CHECK_INPUT(!j.is_discarded() && j.is_object() && j.contains("entries") && j["entries"].is_array(), path,
                 "entries", "not a published-throughputs table (an object with an \"entries\" list)");
  std::vector<PublishedEntry> out;
  for (std::size_t i = 0; i < j["entries"].size(); ++i) {
    const auto& e = j["entries"][i];
    const std::string where = "entries[" + std::to_string(i) + "]";
    TB_CHECK_INPUT(e.is_object() && e.value("throughput_per_gpu", 0.0) > 0 && e.contains("workload") &&
                       e.contains("gpu_class") && e.contains("source") && e["source"].is_object() &&
                       e["source"].contains("url"),
                   path, where, "needs workload, gpu_class, a positive throughput_per_gpu and a source with its url");
    PublishedEntry p;
    p.workload = e.value("workload", "");
    p.gpu = e.value("gpu", "");
    p.gpu_class = e.value("gpu_class", "");
    p.precision = e.value("precision", "");
    p.unit = e.value("unit", "");
    p.framework = e.value("framework", "");
    p.title = e["source"].value("title", "");
    p.url = e["source"].value("url", "");
    p.throughput_per_gpu = e.value("throughput_per_gpu", 0.0);
    if (e.contains("batch_per_gpu") && e["batch_per_gpu"].is_number_integer()) p.batch_per_gpu = e["batch_per_gpu"];
    if (e.contains("datasheet_peak_tflops") && e["datasheet_peak_tflops"].is_number())
      p.datasheet_peak_tflops = e["datasheet_peak_tflops"];
    out.push_back(std::move(p));
  }
  return out;
}

const std::vector<PublishedEntry>& published_references() {
  static const std::vector<PublishedEntry> table = [] {
    const char* env = std::getenv("TRAINBENCH_PUBLISHED");
    const std::string path =
        env && *env ? std::string(env) : std::string(TRAINBENCH_SOURCE_DIR) + "/data/published_throughputs.json";
    try {
      return load_published_references(path);
    } catch (const std::exception&) {
      return std::vector<PublishedEntry>{};  // an installed trainbench without its source tree
    }
  }();
  return table;
}

std::string gpu_class_of(const std::string& gpu_name) {
  // GH200 holds an H200-class die too, but it is not an H200 board: no match rather than a wrong one.
  if (gpu_name.find("GH200") != std::string::npos) return "";
  for (const char* c : {"H200", "H100", "A100"})
    if (gpu_name.find(c) != std::string::npos) return c;
  return "";
}

bool precision_matches(Precision scenario, const std::string& published) {
  switch (scenario) {
    case Precision::amp_bf16: return published == "bf16" || published == "amp";
    case Precision::amp_fp16: return published == "fp16" || published == "amp";
    case Precision::fp32:
    case Precision::tf32: return published == "fp32" || published == "tf32";
  }
  return false;
}

namespace {

std::string published_figure(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.1f", v);
  return buf;
}

std::string published_percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * part / whole);
  return buf;
}

}  // namespace

std::vector<std::string> published_reference_lines(const RunResult& run, const std::vector<PublishedEntry>& table) {
  const auto gpus = gpu_names(run.environment);
  const std::string cls = gpus.empty() ? "" : gpu_class_of(gpus.front());
  if (cls.empty() || table.empty()) return {};
  // The best measured scenario of each model and precision (the highest throughput).
  std::map<std::pair<std::string, Precision>, const ScenarioResult*> best;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok || s.samples_per_s <= 0) continue;
    auto& slot = best[{s.params.model, s.params.precision}];
    if (slot == nullptr || s.samples_per_s > slot->samples_per_s) slot = &s;
  }
  std::vector<std::string> lines;
  for (const auto& [key, s] : best) {
    const PublishedEntry* ref = nullptr;
    for (const auto& e : table)
      if (e.workload == key.first && e.gpu_class == cls && precision_matches(key.second, e.precision) &&
          (ref == nullptr || e.throughput_per_gpu > ref->throughput_per_gpu))
        ref = &e;
    if (ref == nullptr) continue;
    const bool tokens = ref->unit == "tokens/s";
    const double measured = tokens ? s->tokens_per_s : s->samples_per_s;
    if (measured <= 0) continue;
    std::string line = s->id + ": " + published_figure(measured) + " " + ref->unit + " = " +
                       published_figure(measured / ref->throughput_per_gpu * 100) + "% of the best published " +
                       ref->gpu_class + " figure, " + published_figure(ref->throughput_per_gpu) + " " + ref->unit +
                       " (" + ref->gpu + ", " + ref->precision +
                       (ref->batch_per_gpu > 0 ? ", batch " + std::to_string(ref->batch_per_gpu) : std::string()) +
                       ", " + ref->framework + "; " + ref->url + ")";
    if (s->capacity && s->capacity->achieved_flops_per_s > 0) {
      std::string mfu;
      if (s->capacity->peak_flops_per_s > 0 && s->capacity->mfu_error.empty())
        mfu = published_percent(s->capacity->achieved_flops_per_s, s->capacity->peak_flops_per_s) + " of the " +
              (s->capacity->peak_source.empty() ? std::string("measured") : s->capacity->peak_source) + " peak";
      if (ref->datasheet_peak_tflops > 0)
        mfu += (mfu.empty() ? "" : ", ") +
               published_percent(s->capacity->achieved_flops_per_s, ref->datasheet_peak_tflops * 1e12) +
               " of the datasheet's " + published_figure(ref->datasheet_peak_tflops) + " TFLOPS";
      if (!mfu.empty()) line += "; MFU " + mfu;
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace tb::report
