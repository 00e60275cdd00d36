#include <trainbench/capacity/probe.hpp>

namespace tb::capacity {

void to_json(nlohmann::json& j, const Probe& p) {
  j = nlohmann::json{
      {"batch", p.batch}, {"fits", p.fits}, {"samples_per_s", p.samples_per_s}, {"peak_bytes", p.peak_bytes}};
  if (!p.note.empty()) j["note"] = p.note;
}

void from_json(const nlohmann::json& j, Probe& p) {
  p.batch = j.value("batch", 0);
  p.fits = j.value("fits", false);
  p.samples_per_s = j.value("samples_per_s", 0.0);
  p.peak_bytes = j.value("peak_bytes", std::int64_t{0});
  p.note = j.value("note", std::string());
}

}  // namespace tb::capacity
