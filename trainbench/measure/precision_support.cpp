#include <trainbench/measure/precision_support.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tb {

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// oneDNN's ISA names in increasing order (dnnl_cpu_isa_t); a cap allows its own level and those
// below. Names that are not here (a newer oneDNN's) are treated as no cap.
constexpr std::array<const char*, 12> kOnednnIsaOrder = {
    "SSE41",
    "AVX",
    "AVX2",
    "AVX2_VNNI",
    "AVX2_VNNI_2",
    "AVX512_CORE",
    "AVX512_CORE_VNNI",
    "AVX512_CORE_BF16",
    "AVX512_CORE_FP16",
    "AVX512_CORE_AMX",
    "AVX512_CORE_AMX_FP16",
    "AVX10_1_512_AMX_FP16",
};

// The cap's rank in kOnednnIsaOrder; nullopt when there is no cap (unset, ALL, DEFAULT, unknown).
std::optional<std::size_t> isa_rank(const std::string& isa) {
  const std::string name = upper(isa);
  for (std::size_t i = 0; i < kOnednnIsaOrder.size(); ++i)
    if (name == kOnednnIsaOrder[i]) return i;
  return std::nullopt;
}

bool cap_allows(const DispatchCaps& caps, const char* needed) {
  const auto cap = isa_rank(caps.onednn_max_isa);
  const auto need = isa_rank(needed);
  return !cap || !need || *cap >= *need;
}

const char* type_name(ReducedDtype t) { return t == ReducedDtype::bfloat16 ? "bf16" : "fp16"; }

PrecisionPath float32_path() { return {true, "float32", "float32 (no reduced type)"}; }

}  // namespace

void to_json(nlohmann::json& j, const PrecisionPath& p) {
  j = {{"native", p.native}, {"path", p.path}, {"detail", p.detail}};
}

void from_json(const nlohmann::json& j, PrecisionPath& p) {
  p.native = j.value("native", false);
  p.path = j.value("path", "");
  p.detail = j.value("detail", "");
}

DispatchCaps dispatch_caps_from_environment() {
  DispatchCaps caps;
  caps.aten_cpu_capability = env_or_empty("ATEN_CPU_CAPABILITY");
  caps.onednn_max_isa = env_or_empty("ONEDNN_MAX_CPU_ISA");
  if (caps.onednn_max_isa.empty()) caps.onednn_max_isa = env_or_empty("DNNL_MAX_CPU_ISA");
  return caps;
}

std::set<std::string> parse_cpu_flags(std::string_view cpuinfo) {
  std::istringstream in{std::string(cpuinfo)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0 && line.rfind("Features", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream words(line.substr(colon + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

PrecisionPath cpu_precision_path(const std::set<std::string>& flags, ReducedDtype type, const DispatchCaps& caps) {
  if (type == ReducedDtype::none) return float32_path();
  const bool bf16 = type == ReducedDtype::bfloat16;
  struct Candidate {
    const char* flag;
    const char* isa;  // the oneDNN level that uses it
    const char* path;
  };
  const std::array<Candidate, 2> candidates =
      bf16 ? std::array<Candidate, 2>{{{"amx_bf16", "AVX512_CORE_AMX", "AMX"},
                                       {"avx512_bf16", "AVX512_CORE_BF16", "AVX-512 BF16"}}}
           : std::array<Candidate, 2>{
                 {{"amx_fp16", "AVX512_CORE_AMX_FP16", "AMX"}, {"avx512_fp16", "AVX512_CORE_FP16", "AVX-512 FP16"}}};
  std::string capped;  // the best path the CPU has but the cap forbids
  for (const auto& c : candidates) {
    if (!flags.count(c.flag)) continue;
    if (std::string(c.flag).rfind("amx", 0) == 0 && !flags.count("amx_tile")) continue;
    if (!cap_allows(caps, c.isa)) {
      if (capped.empty()) capped = c.path;
      continue;
    }
    return {true, c.path, std::string(c.path) + " (" + c.flag + ")"};
  }
  PrecisionPath p;
  p.path = "emulated";
  const std::string what = type_name(type);
  const std::string how = ": autocast runs it emulated, converting to fp32 and back around each kernel";
  if (!capped.empty())
    p.detail =
        "this CPU's native " + what + " (" + capped + ") is capped by ONEDNN_MAX_CPU_ISA=" + caps.onednn_max_isa + how;
  else
    p.detail = "this CPU has no native " + what + " (no " +
               (bf16 ? "AVX-512 BF16 or AMX" : "AVX-512 FP16 or AMX-FP16") + ")" + how;
  return p;
}

PrecisionPath gpu_precision_path(int major, int minor, ReducedDtype type) {
  if (type == ReducedDtype::none) return float32_path();
  const int sm = major * 10 + minor;
  const std::string arch = "sm_" + std::to_string(sm);
  const int tensor_cores_from = type == ReducedDtype::bfloat16 ? 80 : 70;
  if (sm >= tensor_cores_from) return {true, "tensor cores", "tensor cores (" + arch + ")"};
  if (type == ReducedDtype::float16 && sm >= 53)
    return {true, "CUDA cores", "CUDA cores, no tensor cores for fp16 before sm_70 (" + arch + ")"};
  return {false, "emulated",
          "this GPU (" + arch + ") has no " + type_name(type) + " tensor cores (sm_" +
              std::to_string(tensor_cores_from) + " and later): autocast runs it emulated"};
}

nlohmann::json cpu_reduced_precision() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  const auto flags = parse_cpu_flags(text.str());
  const auto caps = dispatch_caps_from_environment();
  nlohmann::json j = {{"bf16", cpu_precision_path(flags, ReducedDtype::bfloat16, caps)},
                      {"fp16", cpu_precision_path(flags, ReducedDtype::float16, caps)}};
  if (!caps.aten_cpu_capability.empty()) j["aten_cpu_capability"] = caps.aten_cpu_capability;
  if (!caps.onednn_max_isa.empty()) j["onednn_max_cpu_isa"] = caps.onednn_max_isa;
  return j;
}

std::optional<PrecisionPath> recorded_precision_path(const nlohmann::json& environment, std::string_view device,
                                                     ReducedDtype type) {
  if (!environment.is_object() || type == ReducedDtype::none) return std::nullopt;
  const char* key = type_name(type);
  const nlohmann::json* holder = nullptr;
  if (device == "cpu") {
    const auto cpu = environment.find("cpu");
    if (cpu != environment.end() && cpu->is_object()) {
      const auto rp = cpu->find("reduced_precision");
      if (rp != cpu->end() && rp->is_object()) holder = &*rp;
    }
  } else {
    const auto gpus = environment.find("gpu");
    if (gpus != environment.end() && gpus->is_array() && !gpus->empty() && gpus->front().is_object()) {
      const auto rp = gpus->front().find("reduced_precision");
      if (rp != gpus->front().end() && rp->is_object()) holder = &*rp;
    }
  }
  if (!holder || !holder->contains(key) || !holder->at(key).is_object()) return std::nullopt;
  return holder->at(key).get<PrecisionPath>();
}

}  // namespace tb
