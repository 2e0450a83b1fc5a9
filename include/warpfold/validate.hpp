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
//
// The query costs about 0.15 us, a few percent of a small reduction, and callers pass the
// same buffers again and again, so each thread remembers the last few pointers that were
// device memory and skips the query for them. Only positive answers are remembered: a host
// pointer is always asked about. A remembered address that was freed and reused can only be
// a new device allocation or pinned host memory, which kernels can also read, or unmapped
// memory, which faults and surfaces as a cuda_error; never a silent wrong answer.
inline bool is_device_accessible(const void* p) {
  constexpr int remembered = 4;
  thread_local const void* recent[remembered] = {};
  thread_local int next_slot = 0;
  for (const void* known : recent)
    if (known == p) return true;
  cudaPointerAttributes attributes{};
  cudaError_t status = cudaPointerGetAttributes(&attributes, p);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky-free error so later calls do not see it
    return false;
  }
  const bool device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  if (device) {
    recent[next_slot] = p;
    next_slot = (next_slot + 1) % remembered;
  }
  return device;
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
