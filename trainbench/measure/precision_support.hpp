// Whether this machine computes a reduced precision (bf16, fp16) natively, and by which path:
// what a report says beside a precision's effect, so that a reader knows whether a slow bf16
// belongs to the hardware or to the loop. Pure functions over /proc/cpuinfo text, the dispatch
// variables PyTorch and oneDNN read, and a GPU's compute capability; tested without torch.
//
// Why the dispatch variables matter: ATEN_CPU_CAPABILITY (ATen's vector kernels) and
// ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA (oneDNN's matmuls and convolutions) cap the instruction
// set below what the CPU has. With ONEDNN_MAX_CPU_ISA=AVX2 on a CPU with AVX-512 BF16, autocast
// bf16 runs emulated, exactly as on a CPU without it; the report must say so.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/precision_table.hpp>

namespace tb {

struct PrecisionPath {
  bool native = false;
  // "AMX", "AVX-512 BF16", "AVX-512 FP16", "tensor cores (sm_90)", or "emulated".
  std::string path;
  // For a report: "AVX-512 BF16 (avx512_bf16)", "tensor cores (sm_90)", or for an emulated path
  // the sentence that says why: "this CPU has no native bf16 (no AVX-512 BF16 or AMX): autocast
  // runs it emulated, ...", "this CPU's native bf16 (AVX-512 BF16) is capped by ...".
  std::string detail;
};

void to_json(nlohmann::json& j, const PrecisionPath& p);
void from_json(const nlohmann::json& j, PrecisionPath& p);

// The instruction-set caps in force (empty when unset).
struct DispatchCaps {
  std::string aten_cpu_capability;  // ATEN_CPU_CAPABILITY: default, avx2, avx512, ...
  std::string onednn_max_isa;       // ONEDNN_MAX_CPU_ISA, else DNNL_MAX_CPU_ISA: AVX2, AVX512_CORE_BF16, ...
};

// The caps of this process's environment.
DispatchCaps dispatch_caps_from_environment();

// The "flags" line of /proc/cpuinfo text (the first one), as a set; empty when there is none
// (non-x86 kernels spell it "Features", read too).
std::set<std::string> parse_cpu_flags(std::string_view cpuinfo);

// How this CPU computes `type` (bfloat16 or float16; none reads as native float32): AMX (amx_bf16 / amx_fp16 with amx_tile), AVX-512 (avx512_bf16 /
// avx512_fp16), else emulated; a oneDNN ISA cap below the path makes it emulated and the detail
// names the variable.
PrecisionPath cpu_precision_path(const std::set<std::string>& flags, ReducedDtype type, const DispatchCaps& caps);

// How a CUDA GPU of compute capability major.minor computes `type`: tensor cores from sm_80 for
// bf16 and sm_70 for fp16; below, emulated (bf16) or without tensor cores (fp16 on sm_53+ is
// native in CUDA cores).
PrecisionPath gpu_precision_path(int major, int minor, ReducedDtype type);

// This machine's CPU paths for bf16 and fp16 ({"bf16": PrecisionPath, "fp16": ...}), read from
// /proc/cpuinfo and the environment: the manifest's environment["cpu"]["reduced_precision"].
nlohmann::json cpu_reduced_precision();

// The recorded path for a reduced type on a device ("cpu" or "cuda") from a run's environment
// manifest; nullopt when the run did not record one (older results).
std::optional<PrecisionPath> recorded_precision_path(const nlohmann::json& environment, std::string_view device,
                                                     ReducedDtype type);

}  // namespace tb
