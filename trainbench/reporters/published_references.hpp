// Published training throughputs of the standard workloads (data/published_throughputs.json:
// every figure quoted from its source, with the GPU, precision and batch it was measured at),
// and what a run's figures are beside them: when the run's GPU class (A100, H100, H200) and a
// scenario's model and precision match entries, the best measured scenario of that model and
// precision as a ratio of the best published figure, with its MFU against the measured peak and
// against the datasheet's. A capacity planner reading "841 images/s" needs to know whether that
// is the hardware or the harness.
#pragma once
#include <string>
#include <vector>

#include <trainbench/results/results.hpp>

namespace tb::report {

struct PublishedEntry {
  std::string workload;    // resnet50, vit_b_16, gpt2 (the model's name)
  std::string gpu;         // as the source names it
  std::string gpu_class;   // A100, H100, H200
  std::string precision;   // bf16, fp16, amp (mixed, fp16 unless stated), tf32, fp32
  std::string unit;        // images/s or tokens/s
  std::string framework;   // e.g. "PyTorch eager ..."
  std::string title, url;  // the source
  double throughput_per_gpu = 0;
  int batch_per_gpu = 0;             // 0: not stated
  double datasheet_peak_tflops = 0;  // the GPU class's dense 16-bit tensor peak
};

// The table at `path`. InputError naming the file and the entry when it is malformed.
std::vector<PublishedEntry> load_published_references(const std::string& path);

// The repository's table: $TRAINBENCH_PUBLISHED, else data/published_throughputs.json of the
// source tree this trainbench was built from; empty when neither can be read (reports then say
// nothing about published figures).
const std::vector<PublishedEntry>& published_references();

// "H200" for "NVIDIA H200", "H100" for "NVIDIA H100 80GB HBM3", "A100" for
// "NVIDIA A100-SXM4-80GB"; "" for anything else.
std::string gpu_class_of(const std::string& gpu_name);

// Whether a published precision is the scenario's: bf16 and fp16 autocast match "amp" too (a
// source's mixed precision), fp32 matches tf32 (PyTorch's default for convolutions on these GPUs).
bool precision_matches(Precision scenario, const std::string& published);

// One sentence per (model, precision) of the run that has published figures on its GPU class.
std::vector<std::string> published_reference_lines(const RunResult& run, const std::vector<PublishedEntry>& table);

}  // namespace tb::report
