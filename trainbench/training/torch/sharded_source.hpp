// One rank's share of a dataset in data-parallel training: samples rank, rank + n, rank + 2n, ...
// (as torch.utils.data.DistributedSampler strides them, without padding: every rank gets
// floor(size / n) samples, so all ranks run the same number of batches per epoch). Each rank
// then shuffles its share with the scenario's seed, as a one-process run shuffles the whole set.
#pragma once
#include <memory>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {

class ShardedSource final : public SampleSource {
 public:
  ShardedSource(std::shared_ptr<SampleSource> all, int rank, int ranks)
      : all_(std::move(all)), rank_(static_cast<std::size_t>(rank)), ranks_(static_cast<std::size_t>(ranks)) {
    TB_CHECK_INPUT(all_->size() >= ranks_, "matrix", "dataset_options.samples", "the dataset's ", all_->size(),
                   " samples cannot be shared by ", ranks, " ranks");
  }
  torch::data::Example<> get(std::size_t index) override { return all_->get(index * ranks_ + rank_); }
  std::size_t size() const override { return all_->size() / ranks_; }
  const DatasetInfo& info() const override { return all_->info(); }

 private:
  std::shared_ptr<SampleSource> all_;
  std::size_t rank_, ranks_;
};

}  // namespace tb
