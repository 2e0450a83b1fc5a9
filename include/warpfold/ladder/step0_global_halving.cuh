// Step 0: global-memory halving. The baseline, with no shared memory at all.
// Each block owns 2*blockDim consecutive elements and halves them in place in global memory,
// with __syncthreads() between rounds, so every round is a full round trip to DRAM or L2.
// Folding in place overwrites data, so the runner hands it a scratch copy of the input: the
// caller's array is never modified, and the copy's cost is part of this step's time.
#pragma once

#include <cstdint>

#include "warpfold/ops.hpp"

namespace warpfold::ladder {

template <typename T, typename Finish>
__global__ void step0_global_halving(T* scratch, std::int64_t n, Finish finish) {
  const op::sum add;
  const std::int64_t base = blockIdx.x * (2 * std::int64_t(blockDim.x));
  const std::int64_t i = base + threadIdx.x;
  for (unsigned stride = blockDim.x; stride > 0; stride /= 2) {
    // i + stride < n also bounds i: a short last slice simply adds fewer pairs.
    if (threadIdx.x < stride && i + stride < n) scratch[i] = add(scratch[i], scratch[i + stride]);
    __syncthreads();  // also makes this round's global writes visible to the block
  }
  finish(scratch[base]);
}

}  // namespace warpfold::ladder
