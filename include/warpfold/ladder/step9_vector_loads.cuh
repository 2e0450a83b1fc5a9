// Step 9: 16-byte vector loads. Changes from step 8: the thread's grid-stride loop reads
// 16 bytes per load instruction (a float4, int4 or double2 worth) instead of one element,
// so a quarter as many load instructions (half for double) carry the same bytes.
// The pointer may have any alignment and n any value: blocks::thread_reduce_vectorized reads
// the unaligned head and the short tail as scalars and never casts an unaligned pointer.
#pragma once

#include <cstdint>

#include "warpfold/blocks/block_reduce.cuh"
#include "warpfold/blocks/thread_reduce.cuh"
#include "warpfold/ladder/step6_complete_unroll.cuh"

namespace warpfold::ladder {

template <int BlockSize, typename T, typename Finish>
__global__ void __launch_bounds__(BlockSize) step9_vector_loads(const T* in, std::int64_t n, Finish finish) {
  static_assert(is_unrollable_block_size<BlockSize>, "step 9 needs a power-of-two block of 64..1024 threads");
  const std::int64_t rank = blockIdx.x * std::int64_t(BlockSize) + threadIdx.x;
  const std::int64_t threads = std::int64_t(BlockSize) * gridDim.x;
  const T thread_sum = blocks::thread_reduce_vectorized(in, n, rank, threads, op::sum{}, T(0));
  finish(blocks::block_reduce(thread_sum, op::sum{}));
}

}  // namespace warpfold::ladder
