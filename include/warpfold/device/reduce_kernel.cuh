// The production reduce kernel: the layers stacked once.
//   load  : 16-byte vector loads, any alignment (blocks/load.cuh)
//   thread: grid-stride loop with several loads in flight (blocks/thread_reduce.cuh)
//   warp  : shuffles (blocks/warp_reduce.cuh)
//   block : warp results through shared memory (blocks/block_reduce.cuh)
//   grid  : one resident wave of blocks (dispatch.cuh)
//   finish: the last block to arrive combines the partials, left in scratch memory
//           (blocks/finish.cuh), or, when the grid is one cluster, block 0 gathers them in
//           shared memory (blocks/cluster_finish.cuh)
// So every n is one launch. A one-block grid skips the finish entirely. Launched as a
// dependent launch (blocks/dependent_launch.cuh), so back-to-back calls overlap their setup.
#pragma once

#include <cstdint>

#include "warpfold/blocks/block_reduce.cuh"
#include "warpfold/blocks/cluster_finish.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/thread_reduce.cuh"
#include "warpfold/device/reduce_input.cuh"
#include "warpfold/device/reduce_policy.hpp"
#include "warpfold/device/scratch.hpp"

namespace warpfold::device {

// Writes the final value. The standard ops store it as is; a user op first combines it with
// the caller's init (see warpfold.cuh).
template <typename Acc>
struct store_result {
  Acc* out;
  WARPFOLD_DEVICE void operator()(const Acc& total) const { *out = total; }
};

// Input is one_array or two_arrays (device/reduce_input.cuh).
// Launched with blockDim.x = Policy::block_size, cluster_block_size or large_block_size
// (dispatch.cuh): one compiled kernel serves every launch shape.
template <typename Policy, typename Input, typename Acc, typename Op, typename ToAcc, typename Store>
__global__ void __launch_bounds__(Policy::max_block_size)
    reduce_kernel(Input input, Op op, ToAcc to_acc, Store store, scratch_view scratch) {
  const bool one_cluster = blocks::grid_is_one_cluster();
  if (one_cluster) blocks::cluster_block_started();  // touches no memory: may precede the wait
  blocks::wait_for_prior_kernels();
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(blockDim.x) * gridDim.x;
  Acc acc = input.template fold<Policy::loads_in_flight, blocks::streaming_vector_load>(rank, threads, op,
                                                                                         op.template identity<Acc>(), to_acc);
  acc = blocks::block_reduce(acc, op);
  blocks::allow_dependent_launch();  // this block's reads are done
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) store(acc);
    return;
  }
  Acc total;
  if (one_cluster) {  // no scratch: the partials meet in block 0's shared memory
    if (blocks::cluster_combines(acc, op, total)) store(total);
    return;
  }
  // Scratch (device/scratch.hpp): a partial per block and the grid's arrival counter.
  if (blocks::last_block_combines(acc, scratch.partials_as<Acc>(), scratch.arrivals, op, total)) {
    blocks::record_launch_finished(scratch.finished, scratch.finished_after);
    store(total);
  }
}

}  // namespace warpfold::device
