// The scratch memory of the production reduce, owned by the library: the caller never
// queries or passes temp storage.
//
// One workspace per (device, stream), created by the first call on that pair: that call
// allocates and synchronizes; every later call on the pair only enqueues its kernel, so it
// can be captured in a CUDA graph (make one call on the stream before capturing). Keying by
// stream keeps two streams from sharing the finishing counter while their kernels overlap.
// A captured graph keeps using the workspace of the stream it was captured on: don't replay
// it concurrently with direct calls on that stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::device {

struct workspace {
  // Large enough for any accumulator warpfold uses (value_index<double> is 16 bytes; a user type may take up to 32) times
  // the widest grid the dispatcher launches.
  static constexpr std::size_t slot_bytes = 32;
  static constexpr int max_blocks = 4096;

  detail::device_buffer<unsigned char> partials;   // max_blocks * slot_bytes
  detail::device_buffer<unsigned int> arrivals;    // one counter, kept at zero between launches
  detail::device_buffer<unsigned char> result;     // the blocking forms' device result
  detail::pinned_buffer<unsigned char> host_result;

  int device = 0;     // the device it lives on, and that device's SM count, asked once here
  int sm_count = 0;   // rather than on every call

  explicit workspace(int device_ordinal) : device(device_ordinal) {
    WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    partials.reserve(max_blocks * slot_bytes);
    arrivals.reserve(1);
    result.reserve(slot_bytes);
    host_result.reserve(slot_bytes);
    WARPFOLD_CUDA_CHECK(cudaMemset(arrivals.get(), 0, sizeof(unsigned int)));
    WARPFOLD_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

// One Workspace per (current device, `stream`), created on first use by
// Workspace(device ordinal). Workspaces live until the program ends.
// Each thread remembers the last pair it asked for, so the usual pattern (one thread calling
// on one stream again and again) skips the lock and the map; workspaces are never freed, so
// the remembered pointer stays valid.
template <typename Workspace>
Workspace& per_device_and_stream(cudaStream_t stream) {
  int device = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
  struct last_lookup {
    int device;
    cudaStream_t stream;
    Workspace* workspace;
  };
  thread_local last_lookup last{-1, nullptr, nullptr};
  if (last.workspace != nullptr && last.device == device && last.stream == stream) return *last.workspace;

  static std::mutex guard;
  static std::map<std::pair<int, cudaStream_t>, std::unique_ptr<Workspace>> workspaces;
  std::lock_guard<std::mutex> lock(guard);
  std::unique_ptr<Workspace>& slot = workspaces[{device, stream}];
  if (!slot) slot = std::make_unique<Workspace>(device);
  last = {device, stream, slot.get()};
  return *slot;
}

// The production reduce's workspace for the current device and `stream`.
inline workspace& workspace_for(cudaStream_t stream) { return per_device_and_stream<workspace>(stream); }

}  // namespace warpfold::device
