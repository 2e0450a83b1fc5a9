// Grid layer of the production reduce: how many blocks, and the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "warpfold/blocks/cluster_finish.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/grid.cuh"
#include "warpfold/device/reduce_kernel.cuh"
#include "warpfold/device/workspace.hpp"
#include "warpfold/error.hpp"

namespace warpfold::device {

struct launch_shape {
  std::int64_t grid;
  int block;
  unsigned cluster_blocks;  // 0: no clusters; else the whole grid is one cluster of this many blocks
};

// Four shapes, by input size:
// - small: one block, no finish at all;
// - up to Policy::cluster_max_bytes, where the device runs clusters that large: one cluster,
//   each block reading its share in one round of loads, finished through distributed shared
//   memory;
// - mid: enough blocks that each thread gets a few 16-byte vectors, capped at one resident
//   wave, finished by the last block to arrive;
// - large: the streaming shape (few big blocks per SM), finished the same way.
template <typename Policy, typename T, typename Kernel>
launch_shape launch_shape_for(std::int64_t n, Kernel kernel, const workspace& ws) {
  const std::int64_t bytes = n * std::int64_t(sizeof(T));
  if (bytes <= Policy::single_block_max_bytes) return {1, Policy::block_size, 0};
  if (bytes <= Policy::cluster_max_bytes) {
    const std::int64_t blocks = blocks::ceil_div(bytes, Policy::cluster_block_bytes);
    if (blocks <= blocks::largest_cluster(kernel, Policy::cluster_block_size, Policy::cluster_max_blocks, ws.device))
      return {blocks, Policy::cluster_block_size, static_cast<unsigned>(blocks)};
  }
  if (bytes >= Policy::large_input_bytes) {
    const int per_sm = std::min(Policy::large_blocks_per_sm, blocks::blocks_per_sm(kernel, Policy::large_block_size, ws.device));
    return {std::min<std::int64_t>(std::int64_t(ws.sm_count) * per_sm, workspace::max_blocks), Policy::large_block_size, 0};
  }
  const std::int64_t wave = std::int64_t(ws.sm_count) * blocks::blocks_per_sm(kernel, Policy::block_size, ws.device);
  const std::int64_t per_block = std::int64_t(Policy::block_size) * Policy::min_vectors_per_thread * blocks::vector16<T>::size;
  return {std::max<std::int64_t>(1, std::min<std::int64_t>({wave, std::int64_t(workspace::max_blocks), blocks::ceil_div(n, per_block)})),
          Policy::block_size, 0};
}

// Enqueues the whole reduction: one kernel. Arguments are already validated.
template <typename Policy, typename T, typename Acc, typename Op, typename ToAcc, typename Store>
void launch_reduce(const T* in, std::int64_t n, Op op, ToAcc to_acc, Store store, workspace& ws, cudaStream_t stream) {
  static_assert(sizeof(Acc) <= workspace::slot_bytes, "warpfold: accumulator types of more than 32 bytes are not supported");
  static_assert(Policy::cluster_max_blocks <= blocks::max_cluster_blocks, "warpfold: clusters have at most 16 blocks");
  auto kernel = reduce_kernel<Policy, T, Acc, Op, ToAcc, Store>;
  const launch_shape shape = launch_shape_for<Policy, T>(n, kernel, ws);
  const reduce_workspace_view<Acc> view{reinterpret_cast<Acc*>(ws.partials.get()), ws.arrivals.get()};
  blocks::launch_dependent_clustered(kernel, static_cast<unsigned>(shape.grid), shape.block, shape.cluster_blocks, stream, in, n,
                                     view, op, to_acc, store);
}

}  // namespace warpfold::device
