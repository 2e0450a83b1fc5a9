// Grid layer: how many blocks to launch.
// Brent's argument: a reduction needs only about n / log n threads to stay work-efficient;
// beyond the number of blocks the GPU can hold at once, extra blocks only add partials to
// combine. So grid-stride kernels launch one full wave of resident blocks and loop.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "warpfold/error.hpp"

namespace warpfold::blocks {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Blocks of `kernel` that fit on the current device at once (one "wave").
template <typename Kernel>
int resident_blocks(Kernel kernel, int block_size, std::size_t dynamic_shared_bytes = 0) {
  int device = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
  int sm_count = 0;
  WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  int blocks_per_sm = 0;
  WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block_size,
                                                                    dynamic_shared_bytes));
  return std::max(1, sm_count * blocks_per_sm);
}

// The same, per SM, for the device that the caller names; asked once per (kernel, block size,
// device) and then remembered, because the occupancy query costs more than a launch's
// arithmetic.
template <typename Kernel>
int blocks_per_sm(Kernel kernel, int block_size, int device) {
  static std::mutex guard;
  static std::map<std::tuple<const void*, int, int>, int> known;
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), block_size, device);
  std::lock_guard<std::mutex> lock(guard);
  auto found = known.find(key);
  if (found != known.end()) return found->second;
  int blocks = 0;
  WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_size, 0));
  blocks = std::max(1, blocks);
  known.emplace(key, blocks);
  return blocks;
}

}  // namespace warpfold::blocks
