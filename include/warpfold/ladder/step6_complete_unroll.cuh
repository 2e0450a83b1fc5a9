// Step 6: complete unroll. Changes from step 5: the block size is a template parameter, so
// the number of rounds is known at compile time and the loop unrolls completely: no loop
// counter, no comparisons against a runtime stride, and the shared array is sized statically.
// The classic version spells each round out under a switch over block sizes; the
// `#pragma unroll` over a compile-time bound produces the same code from a few lines.
#pragma once

#include <cstdint>

#include "warpfold/ladder/step5_unroll_last_warp.cuh"

namespace warpfold::ladder {

template <int BlockSize>
constexpr bool is_unrollable_block_size = BlockSize >= 64 && BlockSize <= 1024 && (BlockSize & (BlockSize - 1)) == 0;

// The block-wide rounds of step 5, fully unrolled; result in partial[0].
template <int BlockSize, typename T>
__device__ __forceinline__ void sum_block_unrolled(T* partial, unsigned tid) {
  const op::sum add;
#pragma unroll
  for (unsigned s = BlockSize / 2; s > 32; s /= 2) {
    if (tid < s) partial[tid] = add(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  if (tid < 32) sum_last_warp(partial, tid);
}

template <int BlockSize, typename T, typename Finish>
__global__ void __launch_bounds__(BlockSize) step6_complete_unroll(const T* in, std::int64_t n, Finish finish) {
  static_assert(is_unrollable_block_size<BlockSize>, "step 6 needs a power-of-two block of 64..1024 threads");
  __shared__ T partial[BlockSize];
  const unsigned tid = threadIdx.x;
  partial[tid] = load_pair_sum(in, n, BlockSize);
  __syncthreads();
  sum_block_unrolled<BlockSize>(partial, tid);
  // Only thread 0 reads the total: warp 0 wrote it without a block barrier, so for the other
  // threads it may not be there yet. Every epilogue uses thread 0's value only.
  finish(tid == 0 ? partial[0] : T(0));
}

}  // namespace warpfold::ladder
