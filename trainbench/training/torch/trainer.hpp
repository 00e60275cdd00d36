// The training step: k micro-batches (loss / k, backward each), then one optimizer step and
// zero_grad, as in the article's gradient accumulation; autocast and gradient scaling per the
// scenario's precision. Data-parallel: a GradientReducer all-reduces the gradients during the
// last micro-batch's backward only (the others accumulate locally, as under DDP's no_sync), and
// the time backward then waits for the collective is charged to the comm phase. This is the
// measured region: it allocates, formats and logs nothing of its own.
//
// The optimisation axes change the step here: channels_last converts the 4-d parameters once
// and every 4-d input on its copy; pin_memory takes batches through a DevicePrefetcher (copy of
// the next micro-batch on a side stream); cuda_graphs captures the whole step once
// (prepare_graph) and then replays it: inputs are copied into static buffers and the replay,
// forward, backward and optimizer together, is charged to the forward phase. With
// dataset_options.placement "device" (compute only, as published throughput benchmarks measure)
// a few batches are made once on the device and reused: the step loads and copies nothing.
#pragma once
#include <memory>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/MemoryFormat.h>
#include <torch/data/example.h>
#include <torch/optim/optimizer.h>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/measure/torch/step_timer.hpp>
#include <trainbench/training/torch/batch_stream.hpp>
#include <trainbench/training/torch/c10d_adapter.hpp>
#include <trainbench/training/torch/device_prefetcher.hpp>
#include <trainbench/training/torch/grad_scaler.hpp>
#include <trainbench/training/torch/optimizer_factory.hpp>
#include <trainbench/training/torch/registry.hpp>
#include <trainbench/training/torch/step_graph.hpp>

namespace tb {

class Trainer {
 public:
  // `reducer` (may be null: one process) is built on the model's parameters once they are on
  // `device`: construct the Trainer first, then the reducer, then attach_reducer().
  Trainer(const ScenarioParams& params, TrainableModel& model, BatchStream& data, c10::Device device);
  ~Trainer();
  void attach_reducer(dist::GradientReducer* reducer) { reducer_ = reducer; }

  // cuda_graphs: runs `eager_steps` ordinary steps (the warm-up CUDA graphs need: lazily made
  // optimizer state, cuBLAS workspaces, autotuning), then captures the step. Throws what the
  // capture throws (a host sync inside the model, say).
  void prepare_graph(int eager_steps = 3);

  // Runs one optimizer step and reports its timing, loss and whether it stepped.
  void step(StepSample& out);

  const GradScaler& scaler() const { return scaler_; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }

 private:
  // The work of one micro-batch on the device, shared by the eager step and the captured one.
  void forward_backward(int micro, const at::Tensor& input, const at::Tensor& target, bool sync,
                        dist::CommTiming& comm);
  double step_loss() const;
  void update(StepSample& out);
  void graph_step(StepSample& out);
  // dataset_options.placement "device": a few batches on the device, made once (compute only).
  void make_resident_batches();

  const ScenarioParams& params_;
  TrainableModel& model_;
  BatchStream& data_;
  c10::Device device_;
  c10::MemoryFormat input_format_;  // of 4-d inputs: channels_last or preserve
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  GradScaler scaler_;
  std::unique_ptr<StepTimer> timer_;
  torch::data::Example<> batch_;
  std::vector<at::Tensor> micro_losses_;  // the step's micro-batch losses, detached: read after the step
  dist::GradientReducer* reducer_ = nullptr;
  std::unique_ptr<DevicePrefetcher> prefetcher_;                // pin_memory
  std::unique_ptr<StepGraph> graph_;                            // cuda_graphs
  bool capturing_ = false;                                      // inside the capture: no timer boundaries
  std::vector<at::Tensor> static_inputs_, static_targets_;      // a graph's inputs, one per micro-batch
  std::vector<at::Tensor> resident_inputs_, resident_targets_;  // placement "device": reused every step
  std::size_t next_resident_ = 0;
};

}  // namespace tb
