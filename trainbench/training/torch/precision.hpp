// Numeric precision modes of a training scenario in LibTorch: which (precision, device) pairs
// are real, and the RAII switches that put LibTorch into each mode. What each mode is (autocast
// and its dtype, TF32, loss scaling, where it runs) comes from the precision table,
// trainbench/matrix/precision_table.hpp; this file only turns it into LibTorch calls.
#pragma once
#include <string>

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <trainbench/matrix/scenario.hpp>

namespace tb {

struct PrecisionSupport {
  bool supported = false;
  std::string reason;  // why not, when unsupported (recorded as the scenario's skip message)
};

// Whether `precision` is a meaningful training mode on `device` in this process (CUDA cases look
// at the current GPU).
PrecisionSupport check_precision(Precision precision, DeviceKind device);

// Loss scaling is needed for float16 only: bfloat16 has float32's exponent range.
bool needs_grad_scaler(Precision precision);

// LibTorch's type for a table dtype: kHalf, kBFloat16, or kFloat for none.
c10::ScalarType scalar_type(ReducedDtype dtype);

// The autocast compute dtype (kHalf / kBFloat16), or kFloat for the non-autocast modes.
c10::ScalarType autocast_dtype(Precision precision);

// cpu -> kCPU, cuda -> kCUDA.
c10::DeviceType device_type_of(DeviceKind device);

// Sets the TF32 flags for a scenario's lifetime (on for tf32, off for every other mode so that
// fp32 regions measure IEEE float32), restoring the previous flags on destruction.
class PrecisionGuard {
 public:
  explicit PrecisionGuard(Precision precision);
  ~PrecisionGuard();
  PrecisionGuard(const PrecisionGuard&) = delete;
  PrecisionGuard& operator=(const PrecisionGuard&) = delete;

 private:
  bool previous_tf32_cublas_;
  bool previous_tf32_cudnn_;
};

// torch.autocast as a C++ scope, meant around forward + loss of each micro-batch. A no-op for
// the modes the table does not autocast (fp32, tf32). Mirrors torch.autocast's __enter__/
// __exit__: saves and restores the device's autocast flag and dtype and the cache flag, and
// clears the cast cache when the outermost scope exits.
class AutocastScope {
 public:
  AutocastScope(Precision precision, c10::DeviceType device_type);
  AutocastScope(Precision precision, DeviceKind device) : AutocastScope(precision, device_type_of(device)) {}
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

  bool active() const { return active_; }

 private:
  c10::DeviceType device_type_;
  bool active_ = false;
  bool previous_enabled_ = false;
  c10::ScalarType previous_dtype_ = c10::ScalarType::Undefined;
  bool previous_cache_enabled_ = true;
};

}  // namespace tb
