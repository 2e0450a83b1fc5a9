// Finish layer, Hopper and later: the blocks of a grid that is one thread-block cluster hand
// their partials to block 0 through distributed shared memory.
//
// Why: the one-pass finish (finish.cuh) goes through global memory: a store, a device-wide
// fence, an atomic ticket, then the last block reads the partials back from L2. For a
// reduction of a few hundred kilobytes those round trips are a large share of the kernel. A
// cluster's blocks run at the same time on one GPC and can write each other's shared memory,
// and a cluster barrier orders those writes: no fence to device scope, no counter, no global
// partials. H100, 2026-11-22, GPU time per call (graph replay, cold input): 2.35-2.56 us for
// 256-512 KB in one cluster of 8-16 blocks, against 3.3-3.5 us with the one-pass finish.
//
// The combine order is fixed (by block rank), so float results stay bitwise reproducible.
// On GPUs before sm_90 this compiles to nothing; the dispatcher never launches clusters there.
#pragma once

#include "warpfold/blocks/grid.cuh"
#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/config.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#include <cooperative_groups.h>
#endif

namespace warpfold::blocks {

// True when the grid was launched as a single cluster of more than one block.
WARPFOLD_DEVICE bool grid_is_one_cluster() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned blocks = cooperative_groups::this_cluster().num_blocks();
  return blocks > 1 && blocks == gridDim.x;
#else
  return false;
#endif
}

// Another block's shared memory may only be written once that block is running. In a grid
// that is one cluster, every thread calls this first thing: it arrives on the cluster barrier
// without waiting, and cluster_combines waits for that phase before its remote write. The
// arrival is relaxed (it orders no memory), so it costs nothing and may come even before
// wait_for_prior_kernels(). H100, 2026-11-22, graph replay: a releasing arrival after that
// wait made a 256 KB call 0.6 us slower.
WARPFOLD_DEVICE void cluster_block_started() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __cluster_barrier_arrive_relaxed();
#endif
}

// Every thread of every block calls it with its block's value (valid in thread 0), after
// cluster_block_started(). Returns true in thread 0 of block 0, with the total of all blocks
// in block-rank order. Block 0's shared memory is only written between the two barriers and
// only read after the second, by block 0 itself, so the other blocks may exit as soon as they
// pass it.
template <typename T, typename Op>
WARPFOLD_DEVICE bool cluster_combines(T block_value, Op op, T& total) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ T partials[max_cluster_blocks];
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned rank = cluster.block_rank();
  __cluster_barrier_wait();  // every block of the cluster has started: block 0's shared memory exists
  if (threadIdx.x == 0) *cluster.map_shared_rank(&partials[rank], 0) = block_value;
  cluster.sync();  // release by every block, acquire by every block: block 0 sees all partials
  if (rank != 0 || threadIdx.x >= warp_size) return false;
  T acc = threadIdx.x < cluster.num_blocks() ? partials[threadIdx.x] : op.template identity<T>();
  acc = warp_reduce(acc, op);
  total = acc;
  return threadIdx.x == 0;
#else
  (void)block_value;
  (void)op;
  (void)total;
  return false;
#endif
}

}  // namespace warpfold::blocks
