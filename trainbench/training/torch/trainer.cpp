#include <trainbench/training/torch/trainer.hpp>

#include <algorithm>

#include <ATen/ATen.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>

#include <trainbench/measure/torch/phase_scope.hpp>
#include <trainbench/profiling/nvtx.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/precision.hpp>

namespace tb {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const ScenarioParams& params,
                                                        torch::nn::Module& module) {
  if (params.optimizer == "adam")
    return std::make_unique<torch::optim::Adam>(
        module.parameters(), torch::optim::AdamOptions(params.learning_rate));
  if (params.optimizer == "sgd")
    return std::make_unique<torch::optim::SGD>(
        module.parameters(), torch::optim::SGDOptions(params.learning_rate).momentum(params.momentum));
  throw InputError("matrix", "optimizer", "unknown optimizer '" + params.optimizer + "' (adam, sgd)");
}

Trainer::Trainer(const ScenarioParams& params, TrainableModel& model, BatchStream& data,
                 c10::Device device)
    : params_(params),
      model_(model),
      data_(data),
      device_(device),
      optimizer_(make_optimizer(params, model.module())),
      scaler_(device, GradScalerOptions().enabled(needs_grad_scaler(params.precision))),
      timer_(StepTimer::create(device, boundaries_per_step(params.accumulation))),
      loss_sum_(at::zeros({}, at::TensorOptions().device(device).dtype(at::kFloat))) {
  model_.module().to(device_);
  model_.module().train();
}

void Trainer::step(StepSample& out) {
  TB_NVTX_STEP();
  const int k = params_.accumulation;
  const double inv_k = 1.0 / static_cast<double>(k);
  const auto device_type = device_.type();
  timer_->start_step();
  loss_sum_.zero_();
  dist::CommTiming comm;
  for (int micro = 0; micro < k; ++micro) {
    const bool sync = reducer_ != nullptr && micro == k - 1;  // DDP's no_sync for the others
    {
      PhaseScope phase(*timer_, Phase::data_wait);
      data_.next(batch_);
    }
    at::Tensor input, target;
    {
      PhaseScope phase(*timer_, Phase::h2d);
      input = batch_.data.to(device_, /*non_blocking=*/true);
      target = batch_.target.to(device_, /*non_blocking=*/true);
    }
    at::Tensor loss;
    {
      PhaseScope phase(*timer_, Phase::forward);
      if (sync) reducer_->before_sync_forward();
      AutocastScope autocast(params_.precision, device_type);
      loss = model_.loss(model_.forward(input), target);
      if (k > 1) loss = loss * inv_k;  // the article's loss / k; no extra op when k == 1
    }
    {
      PhaseScope phase(*timer_, Phase::backward);
      if (sync) reducer_->before_sync_backward();
      scaler_.scale(loss).backward();
      if (sync) comm = reducer_->after_sync_backward();
      loss_sum_.add_(loss.detach());
    }
  }
  {
    PhaseScope phase(*timer_, Phase::optimizer);
    if (scaler_.enabled()) {
      out.stepped = scaler_.step(*optimizer_);
      scaler_.update();
    } else {
      optimizer_->step();
      out.stepped = true;
    }
    optimizer_->zero_grad();
  }
  timer_->finish_step(out);
  if (reducer_ != nullptr) {
    // The wait for the all-reduce happened inside backward: move it to its own phase.
    auto& backward = out.phase_s[static_cast<int>(Phase::backward)];
    const double exposed = std::min(comm.exposed_s, backward);
    backward -= exposed;
    out.phase_s[static_cast<int>(Phase::comm)] = exposed;
    out.overlapped_comm_s = comm.overlapped_s;
  }
  out.loss = loss_sum_.item<double>();  // the device is idle here: finish_step synchronized
}

}  // namespace tb
