// Argument checks shared by every host entry point, ladder and production alike.
// They run before anything is launched or written, so a rejected call has no side effects.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
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

// Where a pointer points, as far as a kernel is concerned.
struct pointer_facts {
  bool device_memory = false;  // device memory (cudaMalloc, cudaMallocAsync, pools)
  bool managed = false;        // managed memory: readable from any device
  int device = -1;             // the device that owns device memory
};

// Every asynchronous call checks two pointers, so the check is kept cheap: the driver is asked
// for just the three attributes needed, which took 0.06 us on an H100 (2026-11-22) against
// 0.09-0.15 us for cudaPointerGetAttributes, which fills in six. Nothing is cached: memory can
// be freed and its addresses reused between two calls.
inline pointer_facts facts_of_pointer(const void* p) {
  pointer_facts facts;
  if (const pointer_attributes_query query = driver_pointer_attributes()) {
    unsigned int memory_type = 0;
    unsigned int managed = 0;
    int device = -1;
    CUpointer_attribute which[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void* values[3] = {&memory_type, &managed, &device};
    // Unknown (pageable host) addresses succeed with the first two attributes zero.
    if (query(3, which, values, reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS) {
      facts.managed = managed != 0;
      facts.device_memory = memory_type == CU_MEMORYTYPE_DEVICE && !facts.managed;
      facts.device = device;
      return facts;
    }
  }
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky-free error so later calls do not see it
    return facts;
  }
  facts.managed = attributes.type == cudaMemoryTypeManaged;
  facts.device_memory = attributes.type == cudaMemoryTypeDevice;
  facts.device = attributes.device;
  return facts;
}

// Host memory (pageable or pinned) is rejected: reading it from a kernel is either illegal or
// silently slow, and a reduction library should say so. Device memory must belong to the
// device the call runs on (`device`, the current device; -1: ask for it here): scratch and
// kernels live there, and reading another device's memory would need peer access.
inline void require_device_memory(const void* p, const std::string& what, const char* api, int device) {
  const pointer_facts facts = facts_of_pointer(p);
  if (facts.managed) return;
  if (!facts.device_memory)
    throw invalid_argument(std::string(api) + ": " + what +
                           " is not device memory (a host pointer? copy the data to the GPU first, e.g. with cudaMemcpy)");
  if (device < 0) {
    device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) (void)cudaGetLastError();
  }
  if (facts.device != device)
    throw invalid_argument(std::string(api) + ": " + what + " is on device " + std::to_string(facts.device) +
                           ", but the call runs on the current device, " + std::to_string(device) +
                           ": call cudaSetDevice(" + std::to_string(facts.device) + ") first");
}

// The allocation that holds p, [begin, end), as the driver knows it; {0, 0} when it does not.
struct address_range {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  bool holds(const void* p, std::size_t bytes) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return a >= begin && a + bytes <= end && end > begin;
  }
};
inline address_range allocation_of(const void* p) {
  address_range r;
  if (const pointer_attributes_query query = driver_pointer_attributes()) {
    CUdeviceptr start = 0;
    std::size_t size = 0;
    CUpointer_attribute which[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void* values[2] = {&start, &size};
    if (query(2, which, values, reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS && size > 0) {
      r.begin = static_cast<std::uintptr_t>(start);
      r.end = r.begin + size;
    }
  }
  return r;
}

// The checks every reduction input gets: size, null, and that it lives on the device.
inline void require_device_input(const void* p, std::int64_t n, const char* api, int device = -1) {
  require_non_negative(n, api);
  if (n == 0) return;  // an empty input is never dereferenced
  if (p == nullptr)
    throw invalid_argument(std::string(api) + ": input pointer is null but n = " +
                           std::to_string(n));
  require_device_memory(p, "input pointer", api, device);
}

// Two inputs of n elements each, read side by side (dot, transform_reduce of pairs).
inline void require_device_pair(const void* x, const void* y, std::int64_t n, const char* api, int device = -1) {
  require_non_negative(n, api);
  if (n == 0) return;  // neither is dereferenced
  if (x == nullptr) throw invalid_argument(std::string(api) + ": x is null but n = " + std::to_string(n));
  if (y == nullptr) throw invalid_argument(std::string(api) + ": y is null but n = " + std::to_string(n));
  require_device_memory(x, "x", api, device);
  require_device_memory(y, "y", api, device);
}

// Output pointers of the asynchronous forms must be device memory as well.
inline void require_device_output(const void* p, const char* api, int device = -1) {
  if (p == nullptr) throw invalid_argument(std::string(api) + ": output pointer is null");
  require_device_memory(p, "output pointer", api, device);
}

}  // namespace warpfold::detail
