// Argument checks shared by every host entry point, ladder and production alike.
// They run before anything is launched or written, so a rejected call has no side effects.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "warpfold/error.hpp"

namespace warpfold::detail {

inline void require_non_negative(std::int64_t n, const char* api) {
  if (n < 0)
    throw invalid_argument(std::string(api) + ": size n = " + std::to_string(n) +
                           " is negative");
}

// The driver's cuPointerGetAttributes, reached through the runtime so that nothing links
// libcuda (a machine without a driver, such as CI, can still load warpfold's binaries). Null
// where the driver does not offer it. Looked up once.
using pointer_attributes_query = CUresult (*)(unsigned int, CUpointer_attribute*, void**, CUdeviceptr);

inline pointer_attributes_query driver_pointer_attributes() {
  static const pointer_attributes_query query = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return pointer_attributes_query{nullptr};
    }
    return reinterpret_cast<pointer_attributes_query>(entry);
  }();
  return query;
}

// True for memory that a kernel on the current device may read: device allocations and
// managed memory. Host memory (pageable or pinned) is rejected: reading it from a kernel is
// either illegal or silently slow, and a reduction library should say so.
// Every asynchronous call checks two pointers, so the check is kept cheap: the driver is asked
// for just the two attributes needed, which took 0.06 us on the lent H100 (2026-11-22) against
// 0.09-0.15 us for cudaPointerGetAttributes, which fills in six. Nothing is cached: memory can
// be freed and its addresses reused between two calls.
inline bool is_device_accessible(const void* p) {
  if (const pointer_attributes_query query = driver_pointer_attributes()) {
    unsigned int memory_type = 0;
    unsigned int managed = 0;
    CUpointer_attribute which[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void* values[2] = {&memory_type, &managed};
    // Unknown (pageable host) addresses succeed with both attributes zero.
    if (query(2, which, values, reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS)
      return memory_type == CU_MEMORYTYPE_DEVICE || managed != 0;
  }
  cudaPointerAttributes attributes{};
  cudaError_t status = cudaPointerGetAttributes(&attributes, p);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky-free error so later calls do not see it
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

// The checks every reduction input gets: size, null, and that it lives on the device.
inline void require_device_input(const void* p, std::int64_t n, const char* api) {
  require_non_negative(n, api);
  if (n == 0) return;  // an empty input is never dereferenced
  if (p == nullptr)
    throw invalid_argument(std::string(api) + ": input pointer is null but n = " +
                           std::to_string(n));
  if (!is_device_accessible(p))
    throw invalid_argument(std::string(api) +
                           ": input pointer is not device memory (a host pointer? copy the "
                           "data to the GPU first, e.g. with cudaMemcpy)");
}

// Output pointers of the asynchronous forms must be device memory as well.
inline void require_device_output(const void* p, const char* api) {
  if (p == nullptr) throw invalid_argument(std::string(api) + ": output pointer is null");
  if (!is_device_accessible(p))
    throw invalid_argument(std::string(api) + ": output pointer is not device memory");
}

}  // namespace warpfold::detail
