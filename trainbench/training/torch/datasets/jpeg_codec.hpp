// JPEG encode/decode through libjpeg(-turbo): the per-sample CPU work of the image dataset.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // interleaved RGB, row-major
};

// Writes `image` as a baseline JPEG; throws std::runtime_error naming the path on failure.
void write_jpeg(const std::string& path, const RgbImage& image, int quality = 90);

// Decodes a JPEG file into RGB; throws std::runtime_error naming the path on failure.
RgbImage read_jpeg(const std::string& path);

}  // namespace tb
