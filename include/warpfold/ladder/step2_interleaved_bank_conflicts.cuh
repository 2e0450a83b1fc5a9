// Step 2: interleaved addressing with a strided index. Changes from step 1: thread tid works
// on index 2*s*tid, so the active threads are the first ones, packed into whole warps: no
// divergence within a warp, and no `%`.
// Cost it introduces: a warp's lanes now touch addresses 2*s apart, which land in the same
// shared-memory bank (32 banks of 4 bytes) and are served one after another: bank conflicts.
#pragma once

#include <cstdint>

#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/shared_memory.cuh"
#include "warpfold/ops.hpp"

namespace warpfold::ladder {

template <typename T, typename Finish>
__global__ void step2_interleaved_bank_conflicts(const T* in, std::int64_t n, Finish finish) {
  const op::sum add;
  T* partial = blocks::dynamic_shared<T>();
  const unsigned tid = threadIdx.x;
  partial[tid] = blocks::load_or(in, blockIdx.x * std::int64_t(blockDim.x) + tid, n, T(0));
  __syncthreads();

  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) partial[index] = add(partial[index], partial[index + s]);
    __syncthreads();
  }
  finish(partial[0]);
}

}  // namespace warpfold::ladder
