// Which path a CPU or GPU computes bf16 and fp16 by, from /proc/cpuinfo flags, the dispatch caps
// (ONEDNN_MAX_CPU_ISA) and a compute capability; and reading it back from a run's manifest.
#include <gtest/gtest.h>

#include <trainbench/measure/precision_support.hpp>

namespace tb {
namespace {

// Flag lines of three CPU classes seen on 2-core VMs: AMD EPYC without AVX-512, Intel Xeon with
// AVX-512 BF16/FP16 but no AMX, and a Sapphire Rapids with AMX.
constexpr const char* kEpycAvx2 = "processor\t: 0\nflags\t\t: fpu sse sse2 avx avx2 fma f16c hypervisor\n";
constexpr const char* kXeonAvx512Bf16 =
    "processor\t: 0\nflags\t\t: avx avx2 avx512f avx512bw avx512_bf16 avx512_fp16 avx512_vnni\n"
    "processor\t: 1\nflags\t\t: ignored_second_cpu\n";
constexpr const char* kSapphireAmx = "flags\t: avx2 avx512f avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8\n";

TEST(PrecisionSupport, FlagsAreTheFirstCpusLine) {
  const auto flags = parse_cpu_flags(kXeonAvx512Bf16);
  EXPECT_TRUE(flags.count("avx512_bf16"));
  EXPECT_FALSE(flags.count("ignored_second_cpu"));
  EXPECT_TRUE(parse_cpu_flags("processor : 0\nFeatures : fp asimd bf16\n").count("bf16"));  // arm64 spelling
  EXPECT_TRUE(parse_cpu_flags("model name : x\n").empty());
}

TEST(PrecisionSupport, CpuWithoutAvx512Bf16EmulatesBf16AndSaysWhy) {
  const auto p = cpu_precision_path(parse_cpu_flags(kEpycAvx2), ReducedDtype::bfloat16, {});
  EXPECT_FALSE(p.native);
  EXPECT_EQ(p.path, "emulated");
  EXPECT_NE(p.detail.find("this CPU has no native bf16 (no AVX-512 BF16 or AMX): autocast runs it emulated"),
            std::string::npos)
      << p.detail;
}

TEST(PrecisionSupport, NativePathsAreNamedBestFirst) {
  const auto xeon = parse_cpu_flags(kXeonAvx512Bf16);
  EXPECT_EQ(cpu_precision_path(xeon, ReducedDtype::bfloat16, {}).path, "AVX-512 BF16");
  EXPECT_EQ(cpu_precision_path(xeon, ReducedDtype::float16, {}).path, "AVX-512 FP16");
  EXPECT_TRUE(cpu_precision_path(xeon, ReducedDtype::bfloat16, {}).native);
  const auto spr = parse_cpu_flags(kSapphireAmx);
  EXPECT_EQ(cpu_precision_path(spr, ReducedDtype::bfloat16, {}).path, "AMX");
  // amx_fp16 is a later generation: this one has AVX-512 FP16 only.
  EXPECT_EQ(cpu_precision_path(spr, ReducedDtype::float16, {}).path, "AVX-512 FP16");
  // AMX without its tile state is not usable.
  EXPECT_EQ(cpu_precision_path({"amx_bf16", "avx512_bf16"}, ReducedDtype::bfloat16, {}).path, "AVX-512 BF16");
}

TEST(PrecisionSupport, AnIsaCapBelowThePathMakesItEmulatedAndNamesTheVariable) {
  const auto xeon = parse_cpu_flags(kXeonAvx512Bf16);
  const auto capped = cpu_precision_path(xeon, ReducedDtype::bfloat16, {"avx2", "AVX2"});
  EXPECT_FALSE(capped.native);
  EXPECT_NE(capped.detail.find("ONEDNN_MAX_CPU_ISA=AVX2"), std::string::npos) << capped.detail;
  EXPECT_NE(capped.detail.find("AVX-512 BF16"), std::string::npos) << capped.detail;
  // A cap at or above the path's level, in any case, or one oneDNN does not know, leaves it.
  EXPECT_TRUE(cpu_precision_path(xeon, ReducedDtype::bfloat16, {"", "avx512_core_bf16"}).native);
  EXPECT_TRUE(cpu_precision_path(xeon, ReducedDtype::bfloat16, {"", "ALL"}).native);
  // AMX capped to AVX-512 BF16 falls back to the vector path, still native.
  const auto spr = cpu_precision_path(parse_cpu_flags(kSapphireAmx), ReducedDtype::bfloat16, {"", "AVX512_CORE_BF16"});
  EXPECT_TRUE(spr.native);
  EXPECT_EQ(spr.path, "AVX-512 BF16");
}

TEST(PrecisionSupport, GpuTensorCoresByComputeCapability) {
  EXPECT_EQ(gpu_precision_path(9, 0, ReducedDtype::bfloat16).detail, "tensor cores (sm_90)");
  EXPECT_TRUE(gpu_precision_path(8, 0, ReducedDtype::bfloat16).native);
  EXPECT_FALSE(gpu_precision_path(7, 5, ReducedDtype::bfloat16).native);
  EXPECT_TRUE(gpu_precision_path(7, 0, ReducedDtype::float16).native);
  EXPECT_EQ(gpu_precision_path(6, 1, ReducedDtype::float16).path, "CUDA cores");
  EXPECT_FALSE(gpu_precision_path(5, 0, ReducedDtype::float16).native);
}

TEST(PrecisionSupport, ReadBackFromTheManifest) {
  nlohmann::json env = {{"cpu", {{"model", "x"}}}, {"gpu", nlohmann::json::array()}};
  EXPECT_FALSE(recorded_precision_path(env, "cpu", ReducedDtype::bfloat16));  // an older run
  env["cpu"]["reduced_precision"] = {
      {"bf16", cpu_precision_path(parse_cpu_flags(kEpycAvx2), ReducedDtype::bfloat16, {})}};
  const auto p = recorded_precision_path(env, "cpu", ReducedDtype::bfloat16);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->path, "emulated");
  EXPECT_FALSE(recorded_precision_path(env, "cpu", ReducedDtype::float16));
  EXPECT_FALSE(recorded_precision_path(env, "cuda", ReducedDtype::bfloat16));
  env["gpu"].push_back({{"reduced_precision", {{"bf16", gpu_precision_path(9, 0, ReducedDtype::bfloat16)}}}});
  EXPECT_TRUE(recorded_precision_path(env, "cuda", ReducedDtype::bfloat16)->native);
  EXPECT_FALSE(recorded_precision_path(nlohmann::json("bad"), "cpu", ReducedDtype::bfloat16));
}

TEST(PrecisionSupport, ThisMachineHasAnAnswerForBoth) {
  const auto j = cpu_reduced_precision();
  for (const char* t : {"bf16", "fp16"}) {
    ASSERT_TRUE(j.contains(t)) << t;
    EXPECT_FALSE(j[t].get<PrecisionPath>().path.empty()) << t;
  }
}

}  // namespace
}  // namespace tb
