// Step 3: sequential addressing. Changes from step 2: the stride starts at blockDim/2 and
// halves, and thread tid adds partial[tid + s] into partial[tid]. A warp's lanes touch 32
// consecutive words, one per bank: no bank conflicts, and the active threads stay packed.
// Cost it keeps: in the very first round half the threads do nothing but load.
#pragma once

#include <cstdint>

#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/shared_memory.cuh"
#include "warpfold/ops.hpp"

namespace warpfold::ladder {

template <typename T, typename Finish>
__global__ void step3_sequential_addressing(const T* in, std::int64_t n, Finish finish) {
  const op::sum add;
  T* partial = blocks::dynamic_shared<T>();
  const unsigned tid = threadIdx.x;
  partial[tid] = blocks::load_or(in, blockIdx.x * std::int64_t(blockDim.x) + tid, n, T(0));
  __syncthreads();

  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] = add(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  finish(partial[0]);
}

}  // namespace warpfold::ladder
