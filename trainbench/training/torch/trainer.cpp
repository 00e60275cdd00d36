#include <trainbench/training/torch/trainer.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <ATen/ATen.h>

#include <trainbench/measure/torch/phase_scope.hpp>
#include <trainbench/profiling/nvtx.hpp>
#include <trainbench/profiling/torch/trace_ranges.hpp>
#include <trainbench/training/torch/precision.hpp>

namespace tb {

Trainer::Trainer(const ScenarioParams& params, TrainableModel& model, BatchStream& data, c10::Device device)
    : params_(params),
      model_(model),
      data_(data),
      device_(device),
      input_format_(params.memory_format == MemoryFormatKind::channels_last ? c10::MemoryFormat::ChannelsLast
                                                                            : c10::MemoryFormat::Preserve),
      scaler_(device, GradScalerOptions().enabled(needs_grad_scaler(params.precision))),
      timer_(StepTimer::create(device, boundaries_per_step(params.accumulation))),
      micro_losses_(static_cast<std::size_t>(std::max(1, params.accumulation))) {
  auto& module = model_.module();
  module.to(device_);
  if (input_format_ == c10::MemoryFormat::ChannelsLast)
    for (auto& p : module.parameters())
      if (p.dim() == 4) p.set_data(p.contiguous(c10::MemoryFormat::ChannelsLast));
  module.train();
  // After the layout change: fused and foreach state is made like its parameters.
  optimizer_ = make_optimizer(params, module.parameters());
  if (device_resident_data(params)) {
    make_resident_batches();
  } else if (params.pin_memory && !params.cuda_graphs) {
    prefetcher_ = std::make_unique<DevicePrefetcher>(data_, device_, input_format_);
  }
}

void Trainer::make_resident_batches() {
  // A few different batches, so the step does not see one batch over and over (a model could
  // memorise it and its loss would say so), few enough to cost little device memory.
  constexpr int kResidentBatches = 4;
  const int count = std::max(kResidentBatches, params_.accumulation);
  for (int i = 0; i < count; ++i) {
    data_.next(batch_);
    resident_inputs_.push_back(copy_to_device(batch_.data, device_, input_format_).clone(c10::MemoryFormat::Preserve));
    resident_targets_.push_back(copy_to_device(batch_.target, device_, input_format_).clone());
  }
}

Trainer::~Trainer() = default;

void Trainer::forward_backward(int micro, const at::Tensor& input, const at::Tensor& target, bool sync,
                               dist::CommTiming& comm) {
  const int k = params_.accumulation;
  at::Tensor loss;
  {
    std::optional<PhaseScope> phase;
    if (!capturing_) phase.emplace(*timer_, Phase::forward);  // no timer events inside a capture
    if (sync) reducer_->before_sync_forward();
    AutocastScope autocast(params_.precision, device_.type());
    loss = model_.loss(model_.forward(input), target);
    if (k > 1) loss = loss * (1.0 / static_cast<double>(k));  // the article's loss / k; no extra op when k == 1
  }
  {
    std::optional<PhaseScope> phase;
    if (!capturing_) phase.emplace(*timer_, Phase::backward);
    if (sync) reducer_->before_sync_backward();
    scaler_.scale(loss).backward();
    if (sync) {
      profiling::TraceRange wait(Phase::comm);  // the exposed all-reduce wait, inside backward
      comm = reducer_->after_sync_backward();
    }
  }
  micro_losses_[static_cast<std::size_t>(micro)] = loss.detach();  // a handle: no kernel, no sync
}

double Trainer::step_loss() const {
  // The step's mean loss: the micro-batch losses are already divided by k, so their sum. Read
  // here, after finish_step, where the device is idle; k == 1 costs what a bare loop's one
  // loss.item() costs. On the CPU each read is a load; on a GPU one read after one reduction.
  if (micro_losses_.size() == 1) return micro_losses_[0].item<double>();
  if (!device_.is_cuda()) {
    double sum = 0;
    for (const auto& loss : micro_losses_) sum += loss.item<double>();
    return sum;
  }
  return at::stack(micro_losses_).sum().item<double>();
}

void Trainer::update(StepSample& out) {
  if (scaler_.enabled()) {
    out.stepped = scaler_.step(*optimizer_);
    scaler_.update();
  } else {
    optimizer_->step();
    out.stepped = true;
  }
  optimizer_->zero_grad();
}

void Trainer::step(StepSample& out) {
  TB_NVTX_STEP();
  if (graph_ && graph_->captured()) return graph_step(out);
  const int k = params_.accumulation;
  timer_->start_step();
  dist::CommTiming comm;
  for (int micro = 0; micro < k; ++micro) {
    const bool sync = reducer_ != nullptr && micro == k - 1;  // DDP's no_sync for the others
    at::Tensor input, target;
    if (!resident_inputs_.empty()) {
      // Compute only: the next resident batch, already on the device; no data_wait, no h2d.
      input = resident_inputs_[next_resident_];
      target = resident_targets_[next_resident_];
      next_resident_ = (next_resident_ + 1) % resident_inputs_.size();
      forward_backward(micro, input, target, sync, comm);
      continue;
    }
    {
      PhaseScope phase(*timer_, Phase::data_wait);
      if (prefetcher_) prefetcher_->fetch();
      else data_.next(batch_);
    }
    {
      PhaseScope phase(*timer_, Phase::h2d);
      if (prefetcher_) {
        prefetcher_->hand_out(input, target);
      } else {
        input = copy_to_device(batch_.data, device_, input_format_);
        target = copy_to_device(batch_.target, device_, input_format_);
      }
    }
    forward_backward(micro, input, target, sync, comm);
  }
  {
    PhaseScope phase(*timer_, Phase::optimizer);
    update(out);
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
  out.loss = step_loss();
}

void Trainer::prepare_graph(int eager_steps) {
  if (!device_.is_cuda()) throw std::invalid_argument("cuda_graphs needs a CUDA device");
  StepSample scratch;
  for (int i = 0; i < eager_steps; ++i) step(scratch);
  // Static inputs: the graph reads these addresses on every replay; each step copies into them.
  static_inputs_.clear();
  static_targets_.clear();
  for (int micro = 0; micro < params_.accumulation; ++micro) {
    if (!resident_inputs_.empty()) {  // compute only: the graph reads the resident batches
      static_inputs_.push_back(resident_inputs_[static_cast<std::size_t>(micro)]);
      static_targets_.push_back(resident_targets_[static_cast<std::size_t>(micro)]);
      continue;
    }
    data_.next(batch_);
    static_inputs_.push_back(copy_to_device(batch_.data, device_, input_format_).clone(c10::MemoryFormat::Preserve));
    static_targets_.push_back(copy_to_device(batch_.target, device_, input_format_).clone());
  }
  graph_ = std::make_unique<StepGraph>(device_);
  // Gradients unset: the captured backward makes them in the graph's memory, and every replay
  // writes the first micro-batch's gradient there instead of adding to the last step's.
  optimizer_->zero_grad();
  capturing_ = true;
  graph_->capture([&] {
    dist::CommTiming no_comm;  // the captured losses are graph outputs: every replay rewrites them
    for (std::size_t micro = 0; micro < static_inputs_.size(); ++micro)
      forward_backward(static_cast<int>(micro), static_inputs_[micro], static_targets_[micro], /*sync=*/false, no_comm);
    optimizer_->step();  // no scaler: float16 is refused before a graph is made
  });
  capturing_ = false;
}

void Trainer::graph_step(StepSample& out) {
  const int k = params_.accumulation;
  timer_->start_step();
  for (int micro = 0; micro < k; ++micro) {
    if (resident_inputs_.empty()) {
      {
        PhaseScope phase(*timer_, Phase::data_wait);
        data_.next(batch_);
      }
      PhaseScope phase(*timer_, Phase::h2d);
      static_inputs_[micro].copy_(batch_.data, /*non_blocking=*/true);
      static_targets_[micro].copy_(batch_.target, /*non_blocking=*/true);
    }
    {
      // Forward, backward and optimizer of every micro-batch are one replay, charged here.
      PhaseScope phase(*timer_, Phase::forward);
      if (micro == k - 1) graph_->replay();
    }
    PhaseScope backward(*timer_, Phase::backward);
  }
  { PhaseScope phase(*timer_, Phase::optimizer); }
  timer_->finish_step(out);
  out.stepped = true;
  out.loss = step_loss();
}

}  // namespace tb
