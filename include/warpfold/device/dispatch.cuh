// Grid layer of the production reduce: how many blocks, the scratch they need, and the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "warpfold/blocks/cluster_finish.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/grid.cuh"
#include "warpfold/device/device_facts.hpp"
#include "warpfold/device/launcher.hpp"
#include "warpfold/device/reduce_kernel.cuh"
#include "warpfold/error.hpp"

namespace warpfold::device {

struct launch_shape {
  std::int64_t grid;
  int block;
  unsigned cluster_blocks;  // 0: no clusters; else the whole grid is one cluster of this many blocks

  // Only the one-pass finish of a multi-block grid needs scratch: a partial per block, the
  // arrivals on the launch word.
  template <typename Acc>
  scratch_request scratch() const {
    if (grid == 1 || cluster_blocks > 0) return {};
    return {1, 0, grid * std::int64_t(sizeof(Acc))};
  }
};

// Four shapes, by input size:
// - small: one block, no finish at all;
// - up to Policy::cluster_max_bytes, where the device runs clusters that large: one cluster,
//   each block reading its share in one round of loads, finished through distributed shared
//   memory;
// - mid: enough blocks that each thread gets a few 16-byte vectors, capped at one resident
//   wave, finished by the last block to arrive;
// - large: the streaming shape (few big blocks per SM), finished the same way.
// `arrays` arrays of n elements each are read (two for a dot product).
template <typename Policy, typename T, typename Kernel>
launch_shape launch_shape_for(std::int64_t n, Kernel kernel, const device_facts& dev, int arrays = 1) {
  const std::int64_t bytes = n * std::int64_t(sizeof(T)) * arrays;
  if (bytes <= Policy::single_block_max_bytes) return {1, Policy::block_size, 0};
  if (bytes <= Policy::cluster_max_bytes) {
    const std::int64_t blocks = blocks::ceil_div(bytes, Policy::cluster_block_bytes);
    if (blocks <= blocks::largest_cluster(kernel, Policy::cluster_block_size, Policy::cluster_max_blocks, dev.device))
      return {blocks, Policy::cluster_block_size, static_cast<unsigned>(blocks)};
  }
  if (bytes >= Policy::large_input_bytes) {
    const int per_sm = std::min(Policy::large_blocks_per_sm, blocks::blocks_per_sm(kernel, Policy::large_block_size, dev.device));
    return {std::min<std::int64_t>(std::int64_t(dev.sm_count) * per_sm, Policy::max_grid), Policy::large_block_size, 0};
  }
  const std::int64_t wave = std::int64_t(dev.sm_count) * blocks::blocks_per_sm(kernel, Policy::block_size, dev.device);
  const std::int64_t per_block = std::int64_t(Policy::block_size) * Policy::min_vectors_per_thread * blocks::vector16<T>::size / arrays;
  return {std::max<std::int64_t>(1, std::min<std::int64_t>({wave, Policy::max_grid, blocks::ceil_div(n, per_block)})),
          Policy::block_size, 0};
}

// Enqueues the whole reduction of `input` (device/reduce_input.cuh): one kernel. Arguments are
// already validated.
template <typename Policy, typename Acc, typename Input, typename Op, typename ToAcc, typename Store>
void launch_reduce_input(Input input, Op op, ToAcc to_acc, Store store, launcher& l) {
  static_assert(Policy::cluster_max_blocks <= blocks::max_cluster_blocks, "warpfold: clusters have at most 16 blocks");
  using T = typename Input::element;
  auto kernel = reduce_kernel<Policy, Input, Acc, Op, ToAcc, Store>;
  const launch_shape shape = launch_shape_for<Policy, T>(input.n, kernel, l.facts(), Input::arrays);
  l.launch_with_scratch(kernel, static_cast<unsigned>(shape.grid), shape.block, shape.cluster_blocks, shape.scratch<Acc>(),
                        input, op, to_acc, store);
}

// One array (y unused), or x and y side by side when Pairs.
template <typename Policy, typename Acc, bool Pairs, typename T, typename Op, typename ToAcc, typename Store>
void launch_reduce_arrays(const T* x, const T* y, std::int64_t n, Op op, ToAcc to_acc, Store store, launcher& l) {
  if constexpr (Pairs) launch_reduce_input<Policy, Acc>(two_arrays<T>{x, y, n}, op, to_acc, store, l);
  else launch_reduce_input<Policy, Acc>(one_array<T>{x, n}, op, to_acc, store, l);
}

template <typename Policy, typename T, typename Acc, typename Op, typename ToAcc, typename Store>
void launch_reduce(const T* in, std::int64_t n, Op op, ToAcc to_acc, Store store, launcher& l) {
  launch_reduce_input<Policy, Acc>(one_array<T>{in, n}, op, to_acc, store, l);
}

}  // namespace warpfold::device
