// Grid layer of the production reduce: how many blocks, and the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/grid.cuh"
#include "warpfold/device/reduce_kernel.cuh"
#include "warpfold/device/workspace.hpp"
#include "warpfold/error.hpp"

namespace warpfold::device {

struct launch_shape {
  std::int64_t grid;
  int block;
};

// One block for small inputs; for large ones the streaming shape (few big blocks per SM);
// in between, enough 512-thread blocks that each thread gets a few 16-byte vectors, capped at
// one resident wave.
template <typename Policy, typename T, typename Kernel>
launch_shape launch_shape_for(std::int64_t n, Kernel kernel, int device, int sm_count) {
  const std::int64_t bytes = n * std::int64_t(sizeof(T));
  if (bytes <= Policy::single_block_max_bytes) return {1, Policy::block_size};
  if (bytes >= Policy::large_input_bytes) {
    const int per_sm = std::min(Policy::large_blocks_per_sm, blocks::blocks_per_sm(kernel, Policy::large_block_size, device));
    return {std::min<std::int64_t>(std::int64_t(sm_count) * per_sm, workspace::max_blocks), Policy::large_block_size};
  }
  const std::int64_t wave = std::int64_t(sm_count) * blocks::blocks_per_sm(kernel, Policy::block_size, device);
  const std::int64_t per_block = std::int64_t(Policy::block_size) * Policy::min_vectors_per_thread * blocks::vector16<T>::size;
  return {std::max<std::int64_t>(1, std::min<std::int64_t>({wave, std::int64_t(workspace::max_blocks), blocks::ceil_div(n, per_block)})),
          Policy::block_size};
}

// Enqueues the whole reduction: one kernel. Arguments are already validated.
template <typename Policy, typename T, typename Acc, typename Op, typename ToAcc, typename Store>
void launch_reduce(const T* in, std::int64_t n, Op op, ToAcc to_acc, Store store, workspace& ws, cudaStream_t stream) {
  static_assert(sizeof(Acc) <= workspace::slot_bytes, "warpfold: accumulator types of more than 32 bytes are not supported");
  auto kernel = reduce_kernel<Policy, T, Acc, Op, ToAcc, Store>;
  const launch_shape shape = launch_shape_for<Policy, T>(n, kernel, ws.device, ws.sm_count);
  const reduce_workspace_view<Acc> view{reinterpret_cast<Acc*>(ws.partials.get()), ws.arrivals.get()};
  blocks::launch_dependent(kernel, static_cast<unsigned>(shape.grid), shape.block, stream, in, n, view, op, to_acc, store);
}

}  // namespace warpfold::device
