// Argument checks shared by every host entry point, ladder and production alike.
// They run before anything is launched or written, so a rejected call has no side effects.
#pragma once

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

// True for memory that a kernel on the current device may read: device allocations and
// managed memory. Host memory (pageable or pinned) is rejected: reading it from a kernel is
// either illegal or silently slow, and a reduction library should say so.
inline bool is_device_accessible(const void* p) {
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
