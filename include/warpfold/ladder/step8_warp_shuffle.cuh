// Step 8: warp shuffles. Changes from step 7: the shared-memory tree is replaced by
// blocks::block_reduce, where each warp combines its 32 values in registers with
// __shfl_down_sync and only one value per warp goes through shared memory.
// Cost it removes: BlockSize shared-memory stores and log2(BlockSize) rounds of shared loads,
// stores and barriers become 5 shuffles per warp, two barriers, and 5 more shuffles.
#pragma once

#include <cstdint>

#include "warpfold/blocks/block_reduce.cuh"
#include "warpfold/ladder/step7_multiple_elements_per_thread.cuh"

namespace warpfold::ladder {

template <int BlockSize, typename T, typename Finish>
__global__ void __launch_bounds__(BlockSize) step8_warp_shuffle(const T* in, std::int64_t n, Finish finish) {
  static_assert(is_unrollable_block_size<BlockSize>, "step 8 needs a power-of-two block of 64..1024 threads");
  const T thread_sum = sum_pairs_grid_stride<BlockSize>(in, n);
  finish(blocks::block_reduce(thread_sum, op::sum{}));
}

}  // namespace warpfold::ladder
