// Step 5: unroll the last warp. Changes from step 4: once only 32 threads are active, the
// last six rounds run inside warp 0 without __syncthreads() and without the `if (tid < s)`
// test, saving five block-wide barriers and their loop overhead.
// Why __syncwarp(): the classic version relied on `volatile` and on the warp running in
// lockstep. Since Volta, lanes of a warp are scheduled independently, so lane 0 may read
// partial[16] before lane 16 has written it. `volatile` only keeps values out of registers;
// it does not order lanes. __syncwarp() between each read and write is a barrier and a memory
// fence for the warp, which makes the code correct (and `volatile` unnecessary).
#pragma once

#include <cstdint>

#include "warpfold/blocks/shared_memory.cuh"
#include "warpfold/ladder/step4_first_add_during_load.cuh"
#include "warpfold/ops.hpp"

namespace warpfold::ladder {

// Warp 0 folds partial[0, 64) into partial[0]. Needs a block of at least 64 threads.
template <typename T>
__device__ __forceinline__ void sum_last_warp(T* partial, unsigned tid) {
  const op::sum add;
  T value = partial[tid];
#pragma unroll
  for (unsigned s = 32; s > 0; s /= 2) {
    value = add(value, partial[tid + s]);
    __syncwarp();  // every lane has read before any lane overwrites
    partial[tid] = value;
    __syncwarp();  // every lane has written before the next read
  }
}

template <typename T, typename Finish>
__global__ void step5_unroll_last_warp(const T* in, std::int64_t n, Finish finish) {
  const op::sum add;
  T* partial = blocks::dynamic_shared<T>();
  const unsigned tid = threadIdx.x;
  partial[tid] = load_pair_sum(in, n, blockDim.x);
  __syncthreads();

  for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) partial[tid] = add(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  if (tid < 32) sum_last_warp(partial, tid);
  // Only thread 0 reads the total: warp 0 wrote it without a block barrier, so for the other
  // threads it may not be there yet. Every epilogue uses thread 0's value only.
  finish(tid == 0 ? partial[0] : T(0));
}

}  // namespace warpfold::ladder
