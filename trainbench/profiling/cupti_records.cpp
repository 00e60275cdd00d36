#include <trainbench/profiling/cupti_records.hpp>

#if defined(TRAINBENCH_HAVE_CUPTI_HEADERS)

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <string>

namespace tb::profiling {
namespace {

CopyKind copy_kind_of(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return CopyKind::h2d;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return CopyKind::d2h;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return CopyKind::d2d;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return CopyKind::h2h;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return CopyKind::p2p;
    default: return CopyKind::other;
  }
}

const char* memcpy_name(CopyKind k) {
  switch (k) {
    case CopyKind::h2d: return "Memcpy HtoD";
    case CopyKind::d2h: return "Memcpy DtoH";
    case CopyKind::d2d: return "Memcpy DtoD";
    case CopyKind::h2h: return "Memcpy HtoH";
    case CopyKind::p2p: return "Memcpy PtoP";
    default: return "Memcpy";
  }
}

const char* sync_name(CUpti_ActivitySynchronizationType t) {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "cudaEventSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "cudaStreamWaitEvent";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "cudaStreamSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "cudaDeviceSynchronize";
    default: return "Synchronization";
  }
}

std::int64_t ns(std::uint64_t t) { return static_cast<std::int64_t>(t); }

}  // namespace

std::string api_callback_name(std::uint32_t cbid, bool is_driver) {
  if (is_driver) {
    switch (cbid) {
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: return "cuLaunchKernel";
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: return "cuLaunchKernelEx";
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2: return "cuMemcpyHtoDAsync";
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2: return "cuMemcpyDtoHAsync";
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync: return "cuMemcpyAsync";
      case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize: return "cuStreamSynchronize";
      case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize: return "cuCtxSynchronize";
      default: return "driver cbid " + std::to_string(cbid);
    }
  }
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: return "cudaLaunchKernel";
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060: return "cudaLaunchKernelExC";
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020: return "cudaMemcpy";
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020: return "cudaMemcpyAsync";
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020: return "cudaMemsetAsync";
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020: return "cudaStreamSynchronize";
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020: return "cudaDeviceSynchronize";
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020: return "cudaEventSynchronize";
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020: return "cudaEventRecord";
    default: return "runtime cbid " + std::to_string(cbid);
  }
}

bool decode_record(const CUpti_Activity* record, DecodedRecords& out) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      GpuActivity a;
      a.kind = GpuActivityKind::kernel;
      a.name = demangle(k->name);
      a.start_ns = ns(k->start);
      a.end_ns = ns(k->end);
      a.device = k->deviceId;
      a.context = k->contextId;
      a.stream = k->streamId;
      a.correlation_id = k->correlationId;
      out.activities.push_back(std::move(a));
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      GpuActivity a;
      a.kind = GpuActivityKind::memcpy;
      a.copy_kind = copy_kind_of(m->copyKind);
      a.name = memcpy_name(a.copy_kind);
      a.start_ns = ns(m->start);
      a.end_ns = ns(m->end);
      a.device = m->deviceId;
      a.context = m->contextId;
      a.stream = m->streamId;
      a.correlation_id = m->correlationId;
      a.runtime_correlation_id = m->runtimeCorrelationId;
      a.bytes = m->bytes;
      out.activities.push_back(std::move(a));
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      GpuActivity a;
      a.kind = GpuActivityKind::memset;
      a.name = "Memset";
      a.start_ns = ns(m->start);
      a.end_ns = ns(m->end);
      a.device = m->deviceId;
      a.context = m->contextId;
      a.stream = m->streamId;
      a.correlation_id = m->correlationId;
      a.bytes = m->bytes;
      out.activities.push_back(std::move(a));
      return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      RuntimeCall c;
      c.is_driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
      c.cbid = api->cbid;
      c.name = api_callback_name(api->cbid, c.is_driver);
      c.start_ns = ns(api->start);
      c.end_ns = ns(api->end);
      c.process_id = api->processId;
      c.thread_id = api->threadId;
      c.correlation_id = api->correlationId;
      out.calls.push_back(std::move(c));
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      GpuActivity a;
      a.kind = GpuActivityKind::sync;
      a.name = sync_name(s->type);
      a.start_ns = ns(s->start);
      a.end_ns = ns(s->end);
      a.context = s->contextId;
      a.stream = s->streamId;
      a.correlation_id = s->correlationId;
      out.activities.push_back(std::move(a));
      return true;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
      GpuActivity a;
      a.kind = GpuActivityKind::overhead;
      a.name = "CUPTI overhead";
      a.start_ns = ns(o->start);
      a.end_ns = ns(o->end);
      if (o->objectKind == CUPTI_ACTIVITY_OBJECT_DEVICE) a.device = o->objectId.dcs.deviceId;
      a.correlation_id = o->correlationId;
      if (o->end > o->start) out.overhead_ns += o->end - o->start;
      out.activities.push_back(std::move(a));
      return true;
    }
    default: ++out.unknown_records; return false;
  }
}

std::size_t activity_record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
    default: return 0;
  }
}

std::size_t decode_activity_buffer(const std::uint8_t* buffer, std::size_t valid_size, DecodedRecords& records) {
  constexpr std::size_t kAlign = 8;
  std::size_t offset = 0;
  std::size_t decoded = 0;
  while (offset + sizeof(CUpti_Activity) <= valid_size) {
    const auto* rec = reinterpret_cast<const CUpti_Activity*>(buffer + offset);
    const std::size_t size = activity_record_size(rec->kind);
    if (size == 0 || offset + size > valid_size) {
      ++records.dropped_records;  // unknown layout: the rest of the buffer cannot be walked
      break;
    }
    if (decode_record(rec, records)) ++decoded;
    offset += (size + kAlign - 1) / kAlign * kAlign;
  }
  return decoded;
}

}  // namespace tb::profiling

#endif  // TRAINBENCH_HAVE_CUPTI_HEADERS
