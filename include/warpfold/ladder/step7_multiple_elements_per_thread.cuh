// Step 7: multiple elements per thread. Changes from step 6: the grid is no longer one block
// per 2*BlockSize elements but one wave of resident blocks (Brent's argument: O(n / log n)
// threads suffice), and each thread sums many elements in a grid-stride loop before the tree.
// Cost it removes: the per-block fixed work (tree, barriers, partial write) now happens once
// per wave instead of once per 512 elements, and there are few partials left to finish.
// Indices are 64-bit, so n above 2^31 works.
#pragma once

#include <cstdint>

#include "warpfold/ladder/step6_complete_unroll.cuh"

namespace warpfold::ladder {

// The thread's share: pairs BlockSize apart, striding by the whole grid's span.
template <int BlockSize, typename T>
__device__ __forceinline__ T sum_pairs_grid_stride(const T* in, std::int64_t n) {
  const op::sum add;
  const std::int64_t grid_span = 2 * std::int64_t(BlockSize) * gridDim.x;
  T sum = T(0);
  for (std::int64_t i = blockIdx.x * (2 * std::int64_t(BlockSize)) + threadIdx.x; i < n; i += grid_span) {
    sum = add(sum, in[i]);
    if (i + BlockSize < n) sum = add(sum, in[i + BlockSize]);
  }
  return sum;
}

template <int BlockSize, typename T, typename Finish>
__global__ void __launch_bounds__(BlockSize) step7_multiple_elements_per_thread(const T* in, std::int64_t n, Finish finish) {
  static_assert(is_unrollable_block_size<BlockSize>, "step 7 needs a power-of-two block of 64..1024 threads");
  __shared__ T partial[BlockSize];
  const unsigned tid = threadIdx.x;
  partial[tid] = sum_pairs_grid_stride<BlockSize>(in, n);
  __syncthreads();
  sum_block_unrolled<BlockSize>(partial, tid);
  // Only thread 0 reads the total: warp 0 wrote it without a block barrier, so for the other
  // threads it may not be there yet. Every epilogue uses thread 0's value only.
  finish(tid == 0 ? partial[0] : T(0));
}

}  // namespace warpfold::ladder
