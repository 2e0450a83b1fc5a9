// What one GPU keeps to stream host arrays through itself (host_arrays.hpp): a ring of pinned
// staging buffers and device buffers of one chunk each, a stream for the copy engine and one for
// the reductions, and the events that pass each buffer from one to the other.
//
// Pinned memory is slow to allocate (tens of milliseconds for the ring), so sets are kept in a
// pool and reused by later calls; concurrent calls take different sets.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <memory>

#include "warpfold/detail/buffer.hpp"

namespace warpfold::host {

// Four buffers: one on the link, one queued behind it, two being filled by the host threads
// (which thus have two chunks' time on the link to fill each, and absorb a slow thread).
inline constexpr int staging_slots = 4;

struct staging_set {
  int device = -1;
  std::size_t chunk_bytes = 0;
  std::array<detail::pinned_buffer<unsigned char>, staging_slots> pinned;
  std::array<detail::device_buffer<unsigned char>, staging_slots> on_device;
  detail::device_buffer<unsigned char> results;  // one partial result per chunk
  cudaStream_t copy_stream = nullptr;
  cudaStream_t reduce_stream = nullptr;
  std::array<cudaEvent_t, staging_slots> copied{};   // the chunk in slot s is on the GPU
  std::array<cudaEvent_t, staging_slots> reduced{};  // the chunk in slot s is reduced

  staging_set(int device, std::size_t chunk_bytes);  // on `device`, which must be current
  ~staging_set();
  staging_set(const staging_set&) = delete;
  staging_set& operator=(const staging_set&) = delete;

 private:
  void release_handles() noexcept;
};

struct staging_returner {
  void operator()(staging_set* s) const;
};
using staging_handle = std::unique_ptr<staging_set, staging_returner>;

// A set for `device` (the current device) with chunks of `chunk_bytes`: a spare one from the
// pool, or a new one. It goes back to the pool when the handle is dropped.
staging_handle take_staging(int device, std::size_t chunk_bytes);

// Frees the spare sets (warpfold::release_host_staging).
void release_spare_staging();

}  // namespace warpfold::host
