// The scratch memory of the axis reductions, owned by the library like the production
// reduce's (device/workspace.hpp): one per (device, stream), created by the first axis call
// on that pair, which allocates and synchronizes. Later asynchronous calls only enqueue.
//
// Its size is fixed, so no shape ever makes a later call allocate: the launch planner
// splits an output's work over at most as many blocks as these partials and counters hold.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "warpfold/detail/buffer.hpp"
#include "warpfold/device/workspace.hpp"
#include "warpfold/error.hpp"

namespace warpfold::axis {

struct workspace {
  // Partial results of outputs whose work is split over several blocks. 16 MiB is 4 M
  // float partials: a 4096-block grid that each leaves 1024 columns.
  static constexpr std::size_t partial_bytes = std::size_t{16} << 20;
  // One arrival counter per split output (or column tile), zero between launches.
  static constexpr std::int64_t counters = 16384;

  warpfold::detail::device_buffer<unsigned char> partials;
  warpfold::detail::device_buffer<unsigned int> arrivals;
  warpfold::detail::device_buffer<unsigned char> output;  // the blocking forms' device output, grown on demand

  int device = 0;
  int sm_count = 0;

  explicit workspace(int device_ordinal) : device(device_ordinal) {
    WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    partials.reserve(partial_bytes);
    arrivals.reserve(counters);
    WARPFOLD_CUDA_CHECK(cudaMemset(arrivals.get(), 0, counters * sizeof(unsigned int)));
    WARPFOLD_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

inline workspace& workspace_for(cudaStream_t stream) { return device::per_device_and_stream<workspace>(stream); }

}  // namespace warpfold::axis
