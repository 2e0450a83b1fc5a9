// Block layer: each warp reduces with shuffles, warp leaders meet in shared memory, and the
// first warp reduces those. Two barriers, whatever the block size.
#pragma once

#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::blocks {

// Contract:
// - every thread of the block calls it, and blockDim.x is a multiple of 32 (at most 1024);
// - the result is valid in thread 0 only;
// - it brings its own shared memory (one T per warp) and may be called repeatedly.
template <typename T, typename Op>
WARPFOLD_DEVICE T block_reduce(T value, Op op) {
  __shared__ T warp_results[1024 / warp_size];
  const int lane = threadIdx.x % warp_size;
  const int warp = threadIdx.x / warp_size;
  const int warps = blockDim.x / warp_size;

  value = warp_reduce(value, op);
  __syncthreads();  // an earlier call may still be reading warp_results
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < warps ? warp_results[lane] : op.template identity<T>();
    value = warp_reduce(value, op);
  }
  return value;
}

}  // namespace warpfold::blocks
