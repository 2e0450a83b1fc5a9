// Step 4: first add during the global load. Changes from step 3: each thread loads two
// elements, blockDim apart, and adds them before storing to shared memory. Half as many
// blocks do the same work, so the idle first round is gone.
// Both loads are bounds-checked: a common version of this step reads in[i + blockDim.x]
// unguarded and runs past the end of the array whenever n is not a multiple of 2*blockDim.
#pragma once

#include <cstdint>

#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/shared_memory.cuh"
#include "warpfold/ops.hpp"

namespace warpfold::ladder {

// Thread tid of block b sums elements b*2*block + tid and that plus block, if they exist.
template <typename T>
__device__ __forceinline__ T load_pair_sum(const T* in, std::int64_t n, unsigned block_size) {
  const op::sum add;
  const std::int64_t i = blockIdx.x * (2 * std::int64_t(block_size)) + threadIdx.x;
  return add(blocks::load_or(in, i, n, T(0)), blocks::load_or(in, i + block_size, n, T(0)));
}

template <typename T, typename Finish>
__global__ void step4_first_add_during_load(const T* in, std::int64_t n, Finish finish) {
  const op::sum add;
  T* partial = blocks::dynamic_shared<T>();
  const unsigned tid = threadIdx.x;
  partial[tid] = load_pair_sum(in, n, blockDim.x);
  __syncthreads();

  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] = add(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  finish(partial[0]);
}

}  // namespace warpfold::ladder
