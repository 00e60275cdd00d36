// "images": JPEG files on disk, decoded and augmented per sample (random crop, bilinear resize,
// horizontal flip, normalisation), so that data-loader workers matter as they do for ImageNet.
// trainbench writes the files itself on first use: each class is a coloured pattern plus noise.
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <stdexcept>

#include <ATen/ATen.h>

#include <trainbench/profiling/host_recorder.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/training/cache_manifest.hpp>
#include <trainbench/training/torch/datasets/jpeg_codec.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

namespace fs = std::filesystem;

constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};

std::string default_root(std::int64_t samples, std::int64_t classes, std::int64_t stored) {
  const char* home = std::getenv("HOME");
  const fs::path base = std::getenv("TRAINBENCH_DATA")
                            ? fs::path(std::getenv("TRAINBENCH_DATA"))
                            : fs::path(home ? home : "/tmp") / ".cache" / "trainbench" / "datasets";
  return (base /
          ("images-n" + std::to_string(samples) + "-c" + std::to_string(classes) + "-s" + std::to_string(stored)))
      .string();
}

std::string relative_name(std::int64_t index, std::int64_t classes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "class_%02lld/img_%06lld.jpg", static_cast<long long>(index % classes),
                static_cast<long long>(index));
  return buf;
}

std::string file_name(const std::string& root, std::int64_t index, std::int64_t classes) {
  return (fs::path(root) / relative_name(index, classes)).string();
}

// Class c: stripes whose angle and frequency depend on c, tinted by a class colour, plus noise.
RgbImage make_image(std::int64_t index, std::int64_t classes, int size, std::mt19937& rng) {
  const auto c = static_cast<double>(index % classes);
  const double angle = c * M_PI / static_cast<double>(classes);
  const double freq = 0.15 + 0.05 * std::fmod(c, 3.0);
  const double tint[3] = {0.5 + 0.5 * std::sin(c), 0.5 + 0.5 * std::sin(c + 2.0), 0.5 + 0.5 * std::sin(c + 4.0)};
  std::normal_distribution<double> noise(0.0, 20.0);
  std::uniform_real_distribution<double> phase(0.0, 2 * M_PI);
  const double ph = phase(rng);
  RgbImage img{size, size, std::vector<std::uint8_t>(static_cast<std::size_t>(size) * size * 3)};
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const double t = std::sin(freq * (x * std::cos(angle) + y * std::sin(angle)) + ph);
      for (int ch = 0; ch < 3; ++ch) {
        const double v = 128.0 + 100.0 * t * tint[ch] + noise(rng);
        img.pixels[(static_cast<std::size_t>(y) * size + x) * 3 + ch] =
            static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
      }
    }
  return img;
}

// COMPLETE is written last, after the manifest (trainbench/training/cache_manifest.hpp), and removed
// first: a cache interrupted while being written or rebuilt is never trusted.
void generate(const std::string& root, std::int64_t samples, std::int64_t classes, int stored) {
  std::remove((fs::path(root) / "COMPLETE").c_str());
  for (std::int64_t c = 0; c < classes; ++c) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "class_%02lld", static_cast<long long>(c));
    fs::create_directories(fs::path(root) / dir);
  }
  std::mt19937 rng(1234);  // fixed: the files are a cache shared by every run
  std::vector<std::string> names;
  for (std::int64_t i = 0; i < samples; ++i) {
    // Renamed into place: another process reading the cache while this one rebuilds it sees
    // the old file or the new one (the same bytes), never half of one.
    const std::string target = file_name(root, i, classes);
    const std::string temporary = temporary_path_for(target).string();
    write_jpeg(temporary, make_image(i, classes, stored, rng));
    if (std::rename(temporary.c_str(), target.c_str()) != 0) {
      std::remove(temporary.c_str());
      throw std::runtime_error("cannot write " + target + ": " + std::strerror(errno));
    }
    names.push_back(relative_name(i, classes));
  }
  write_cache_manifest(root, names);
  write_file_durably(fs::path(root) / "COMPLETE",
                     std::to_string(samples) + " " + std::to_string(classes) + " " + std::to_string(stored) + "\n");
}

class ImageFolderSource final : public SampleSource {
 public:
  explicit ImageFolderSource(const DatasetRequest& req) : seed_(req.seed) {
    samples_ = option_int(req.options, "dataset_options", "samples", 2048);
    classes_ = option_int(req.options, "dataset_options", "classes", 10);
    stored_ = static_cast<int>(option_int(req.options, "dataset_options", "stored_size", 96));
    out_ = static_cast<int>(option_int(req.options, "dataset_options", "image_size", 64));
    TB_CHECK_INPUT(out_ <= stored_, "matrix", "dataset_options.image_size", "must not exceed stored_size (", stored_,
                   "), got ", out_);
    const bool create = req.options.value("create", true);
    if (req.options.contains("path")) {
      root_ = req.options.at("path").get<std::string>();
    } else {
      root_ = default_root(samples_, classes_, stored_);
    }
    if (!fs::exists(fs::path(root_) / "COMPLETE")) {
      TB_CHECK_INPUT(create, "matrix", "dataset_options.path", "no image dataset at '", root_,
                     "' and dataset_options.create is false");
      generate(root_, samples_, classes_, stored_);
    } else if (const std::string damage = verify_cache(root_); !damage.empty()) {
      TB_CHECK_INPUT(create, "matrix", "dataset_options.path", "the image dataset at '", root_, "' is damaged (",
                     damage, ") and dataset_options.create is false");
      std::cerr << "dataset cache " << root_ << " was damaged (" << damage << "); rebuilding\n";
      generate(root_, samples_, classes_, stored_);
    }
    TB_CHECK_INPUT(fs::exists(file_name(root_, samples_ - 1, classes_)), "matrix", "dataset_options.path", "'", root_,
                   "' holds fewer than ", samples_, " images");
    info_.input_shape = {3, out_, out_};
    info_.num_classes = classes_;
  }

  torch::data::Example<> get(std::size_t index) override {
    const auto i = static_cast<std::int64_t>(index);
    RgbImage img;
    {
      TB_HOST_SPAN("decode_jpeg");
      img = read_jpeg(file_name(root_, i, classes_));
    }
    TB_HOST_SPAN("augment");
    std::mt19937 rng(static_cast<std::uint32_t>(seed_ * 1000003u + draws_.fetch_add(1)));
    std::uniform_real_distribution<float> scale(0.7f, 1.0f);
    const int crop = std::max(out_, static_cast<int>(scale(rng) * img.width));
    std::uniform_int_distribution<int> ox(0, img.width - crop), oy(0, img.height - crop);
    const int x0 = ox(rng), y0 = oy(rng);
    const bool flip = std::bernoulli_distribution(0.5)(rng);
    auto out = at::empty({3, out_, out_}, at::kFloat);
    float* dst = out.data_ptr<float>();
    const float step = static_cast<float>(crop) / static_cast<float>(out_);
    for (int y = 0; y < out_; ++y) {
      const float sy = std::min(y0 + (y + 0.5f) * step - 0.5f, static_cast<float>(img.height - 1));
      const int yi = std::max(0, static_cast<int>(sy));
      const int yj = std::min(yi + 1, img.height - 1);
      const float fy = std::max(0.f, sy - yi);
      for (int x = 0; x < out_; ++x) {
        const int xo = flip ? out_ - 1 - x : x;
        const float sx = std::min(x0 + (x + 0.5f) * step - 0.5f, static_cast<float>(img.width - 1));
        const int xi = std::max(0, static_cast<int>(sx));
        const int xj = std::min(xi + 1, img.width - 1);
        const float fx = std::max(0.f, sx - xi);
        for (int ch = 0; ch < 3; ++ch) {
          auto px = [&](int yy, int xx) {
            return static_cast<float>(img.pixels[(static_cast<std::size_t>(yy) * img.width + xx) * 3 + ch]);
          };
          const float v =
              (1 - fy) * ((1 - fx) * px(yi, xi) + fx * px(yi, xj)) + fy * ((1 - fx) * px(yj, xi) + fx * px(yj, xj));
          dst[(ch * out_ + y) * out_ + xo] = (v / 255.f - kMean[ch]) / kStd[ch];
        }
      }
    }
    return {out, at::scalar_tensor(i % classes_, at::kLong)};
  }

  std::size_t size() const override { return static_cast<std::size_t>(samples_); }
  const DatasetInfo& info() const override { return info_; }

 private:
  std::uint64_t seed_;
  std::int64_t samples_ = 0, classes_ = 0;
  int stored_ = 0, out_ = 0;
  std::string root_;
  DatasetInfo info_;
  std::atomic<std::uint64_t> draws_{0};
};

const DatasetRegistrar kRegister({
    "images",
    "JPEG files on disk, decoded + augmented per sample",
    [](const DatasetRequest& req) { return std::make_shared<ImageFolderSource>(req); },
    {{"samples", OptionType::integer, 1, {}, {}, 2048, "images (written on first use)"},
     {"classes", OptionType::integer, 1, {}, {}, 10, "classes (one folder each)"},
     {"stored_size", OptionType::integer, 1, 65535, {}, 96, "side of the stored JPEG files, in pixels"},
     {"image_size", OptionType::integer, 1, 65535, {}, 64, "side of the cropped, resized sample (<= stored_size)"},
     {"path",
      OptionType::path,
      {},
      {},
      {},
      nullptr,
      "folder of the files (default: a cache under ~/.cache/trainbench/datasets)"},
     {"create", OptionType::boolean, {}, {}, {}, true, "write the files when the folder has none"}},
    {{"image_size",
      [](const nlohmann::json&, const nlohmann::json& o) -> std::string {
        const auto image = o.at("image_size").get<std::int64_t>(), stored = o.at("stored_size").get<std::int64_t>();
        return image <= stored
                   ? ""
                   : "must not exceed stored_size (" + std::to_string(stored) + "), got " + std::to_string(image);
      }}},
});

}  // namespace
}  // namespace tb
