// Grid layer of the production reduce: how many blocks, and the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "warpfold/blocks/grid.cuh"
#include "warpfold/device/reduce_kernel.cuh"
#include "warpfold/device/workspace.hpp"
#include "warpfold/error.hpp"

namespace warpfold::device {

// One wave of resident blocks for this kernel on `device`, computed once per device.
template <typename Kernel>
int wave_blocks(Kernel kernel, int block_size, int device) {
  static std::atomic<int> cache[64];  // a benign race: every writer stores the same value
  if (device < 0 || device >= 64) return blocks::resident_blocks(kernel, block_size);
  int blocks = cache[device].load(std::memory_order_relaxed);
  if (blocks == 0) {
    blocks = blocks::resident_blocks(kernel, block_size);
    cache[device].store(blocks, std::memory_order_relaxed);
  }
  return blocks;
}

// Blocks for n elements of T: one for small inputs, otherwise enough that each thread gets
// at least a few 16-byte vectors, capped at one resident wave.
template <typename Policy, typename T>
std::int64_t grid_size_for(std::int64_t n, int wave) {
  if (n * std::int64_t(sizeof(T)) <= Policy::single_block_max_bytes) return 1;
  const std::int64_t per_block = std::int64_t(Policy::block_size) * Policy::min_vectors_per_thread * blocks::vector16<T>::size;
  return std::max<std::int64_t>(1, std::min<std::int64_t>({std::int64_t(wave), std::int64_t(workspace::max_blocks),
                                                            blocks::ceil_div(n, per_block)}));
}

// Enqueues the whole reduction: one kernel. Arguments are already validated.
template <typename Policy, typename T, typename Acc, typename Op, typename ToAcc, typename Store>
void launch_reduce(const T* in, std::int64_t n, Op op, ToAcc to_acc, Store store, workspace& ws, cudaStream_t stream) {
  static_assert(sizeof(Acc) <= workspace::slot_bytes, "warpfold: accumulator types of more than 32 bytes are not supported");
  int device = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
  auto kernel = reduce_kernel<Policy, T, Acc, Op, ToAcc, Store>;
  const std::int64_t grid = grid_size_for<Policy, T>(n, wave_blocks(kernel, Policy::block_size, device));
  const reduce_workspace_view<Acc> view{reinterpret_cast<Acc*>(ws.partials.get()), ws.arrivals.get()};
  kernel<<<static_cast<unsigned>(grid), Policy::block_size, 0, stream>>>(in, n, view, op, to_acc, store);
  WARPFOLD_CHECK_LAUNCH();
}

}  // namespace warpfold::device
