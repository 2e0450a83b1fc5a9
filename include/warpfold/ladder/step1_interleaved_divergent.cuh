// Step 1: shared memory, interleaved addressing. Changes from step 0: each block copies its
// slice to shared memory once and does every halving round there, so the rounds no longer
// cost DRAM traffic, and the input needs no scratch copy.
// Cost it keeps: the test `tid % (2*s) == 0` picks scattered threads, so every warp has a few
// active lanes and many idle ones (divergent warps), and `%` is a slow instruction.
#pragma once

#include <cstdint>

#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/shared_memory.cuh"
#include "warpfold/ops.hpp"

namespace warpfold::ladder {

template <typename T, typename Finish>
__global__ void step1_interleaved_divergent(const T* in, std::int64_t n, Finish finish) {
  const op::sum add;
  T* partial = blocks::dynamic_shared<T>();
  const unsigned tid = threadIdx.x;
  partial[tid] = blocks::load_or(in, blockIdx.x * std::int64_t(blockDim.x) + tid, n, T(0));
  __syncthreads();

  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) partial[tid] = add(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  finish(partial[0]);
}

}  // namespace warpfold::ladder
