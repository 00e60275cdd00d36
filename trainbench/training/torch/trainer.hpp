// The training step: k micro-batches (loss / k, backward each), then one optimizer step and
// zero_grad, as in the article's gradient accumulation; autocast and gradient scaling per the
// scenario's precision. Data-parallel: a GradientReducer all-reduces the gradients during the
// last micro-batch's backward only (the others accumulate locally, as under DDP's no_sync), and
// the time backward then waits for the collective is charged to the comm phase. This is the measured region: it allocates, formats and logs nothing of
// its own.
#pragma once
#include <memory>

#include <c10/core/Device.h>
#include <torch/data/example.h>
#include <torch/optim/optimizer.h>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/measure/torch/step_timer.hpp>
#include <trainbench/training/torch/batch_stream.hpp>
#include <trainbench/training/torch/c10d_adapter.hpp>
#include <trainbench/training/torch/grad_scaler.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const ScenarioParams& params,
                                                        torch::nn::Module& module);

class Trainer {
 public:
  // `reducer` (may be null: one process) is built on the model's parameters once they are on
  // `device`: construct the Trainer first, then the reducer, then attach_reducer().
  Trainer(const ScenarioParams& params, TrainableModel& model, BatchStream& data,
          c10::Device device);
  void attach_reducer(dist::GradientReducer* reducer) { reducer_ = reducer; }

  // Runs one optimizer step and reports its timing, loss and whether it stepped.
  void step(StepSample& out);

  const GradScaler& scaler() const { return scaler_; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }

 private:
  const ScenarioParams& params_;
  TrainableModel& model_;
  BatchStream& data_;
  c10::Device device_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  GradScaler scaler_;
  std::unique_ptr<StepTimer> timer_;
  torch::data::Example<> batch_;
  at::Tensor loss_sum_;  // on the device: summed without a host sync per micro-batch
  dist::GradientReducer* reducer_ = nullptr;
};

}  // namespace tb
