// The matrix's "capacity" section as an option table (matrix.hpp): the batch search's bounds
// and the time-to-train projection's inputs.
#include <trainbench/matrix/matrix.hpp>

#include <limits>

#include <trainbench/capacity/projection.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/json_input.hpp>

namespace tb {

using nlohmann::json;

const OptionSet& capacity_option_set() {
  static constexpr double kIntMax = std::numeric_limits<int>::max();  // static: clang needs no capture
  static const OptionSet set = [] {
    OptionSet s;
    s.options = {
        {"batch",
         OptionType::string_enum,
         {},
         {},
         {"max"},
         nullptr,
         "\"max\": find the batch by the capacity search (same as axes.batch = \"max\")"},
        {"memory_budget",
         OptionType::byte_size,
         {},
         {},
         {},
         nullptr,
         "memory limit of a batch-search probe (required on the CPU unless --memory-budget)"},
        {"start", OptionType::integer, 1, kIntMax, {}, 8, "first batch the search probes"},
        {"max_batch", OptionType::integer, 1, kIntMax, {}, 4096, "largest batch the search probes"},
        {"multiple_of", OptionType::integer, 1, kIntMax, {}, 8, "every probed batch is a multiple of this"},
        {"measure_peak",
         OptionType::boolean,
         {},
         {},
         {},
         true,
         "measure the matmul peak for utilization (false: the GPU table's peak, if any)"},
        {"target",
         OptionType::custom,
         {},
         {},
         {},
         nullptr,
         "time-to-train target: \"1e9 samples\", \"2e12 tokens\", \"3 epochs\" (a number: samples)",
         [](const json& v) -> std::string {
           if (!v.is_string() && !v.is_number())
             return "must be a training target like \"1e9 samples\", got " + excerpt(v);
           try {
             capacity::parse_target(v.is_string() ? v.get<std::string>() : v.dump(), "target");
           } catch (const InputError& e) {
             // what() is "<file>: <field>: <message>"; keep the message.
             return std::string(e.what()).substr(e.file().size() + e.field().size() + 4);
           }
           return "";
         }},
        {"devices",
         OptionType::integer,
         1,
         kIntMax,
         {},
         1,
         "devices one run occupies (scales device-hours, cost, energy)"},
        {"price_per_device_hour",
         OptionType::number,
         0,
         {},
         {},
         nullptr,
         "price of one device-hour, for the cost projection"},
        {"avg_power_watts",
         OptionType::number,
         0,
         {},
         {},
         nullptr,
         "average power per device, for the energy projection"},
        {"price_per_kwh",
         OptionType::number,
         0,
         {},
         {},
         nullptr,
         "electricity price per kWh, for the energy cost projection"},
    };
    // The search probes multiples of multiple_of from start (rounded up) to max_batch.
    s.rules = {{"start", [](const json&, const json& o) -> std::string {
                  const auto start = o["start"].get<long long>(), max = o["max_batch"].get<long long>();
                  const auto step = o["multiple_of"].get<long long>();
                  if ((start + step - 1) / step * step <= max) return "";
                  return detail::concat("no batch to probe: ", start,
                                        " rounded up to a multiple of capacity.multiple_of (", step,
                                        ") exceeds capacity.max_batch (", max, ")");
                }}};
    return s;
  }();
  return set;
}

}  // namespace tb
