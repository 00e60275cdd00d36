// Decoding of CUPTI activity records into plain GpuActivity / RuntimeCall structs, without
// calling libcupti: the collector hands each record from cuptiActivityGetNextRecord to
// decode_record, and tests build records in memory. Needs only the CUPTI headers.
#pragma once
#include <cstddef>
#include <cstdint>

#include <trainbench/profiling/gpu_activity.hpp>

#if defined(TRAINBENCH_HAVE_CUPTI_HEADERS)
#include <cupti_activity.h>

namespace tb::profiling {

// Appends one record's decoded form. Kinds trainbench does not use are counted in
// records.unknown_records. Returns false for those.
bool decode_record(const CUpti_Activity* record, DecodedRecords& records);

// Size in bytes of a record of this kind in a CUDA 13 activity buffer (latest struct version),
// 0 when the kind is not one trainbench decodes.
std::size_t activity_record_size(CUpti_ActivityKind kind);

// Walks a completed buffer record by record, using activity_record_size (each record starts on
// an 8-byte boundary). Stops at the first kind of unknown size, counting the rest as dropped.
// Returns the number of records decoded. Real collection uses cuptiActivityGetNextRecord, which
// knows every kind; this path serves tests and offline buffer dumps.
std::size_t decode_activity_buffer(const std::uint8_t* buffer, std::size_t valid_size, DecodedRecords& records);

// Name of a runtime / driver API callback id for the common calls (launches, copies, syncs);
// "cbid N" otherwise. The collector prefers cuptiGetCallbackName when libcupti is there.
std::string api_callback_name(std::uint32_t cbid, bool is_driver);

}  // namespace tb::profiling

#endif  // TRAINBENCH_HAVE_CUPTI_HEADERS
