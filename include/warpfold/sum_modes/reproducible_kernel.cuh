// The reproducible sum: the order of reproducible_order.hpp, one launch. Each warp sums whole
// chunks, and each block folds its warps' chunk sums into one partial result: a group's sum,
// or half of one (a chunk's or a group's sum does not depend on who computes it). One block
// then combines the partials in the fixed order. Three shapes (sum_modes/launch.cuh picks):
// - one block, its partials in its own shared memory: no scratch, no fence, no ticket;
// - one thread-block cluster (sm_90 and later), whose blocks write their partials into block
//   0's shared memory: no scratch, no device-wide fence, no ticket
//   (blocks/cluster_finish.cuh says what that saves);
// - any grid: partials in scratch memory, and the last block to arrive combines them.
#pragma once

#include <cstdint>

#include "warpfold/blocks/cluster_finish.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/device/scratch.hpp"
#include "warpfold/sum_modes/reproducible_order.hpp"

namespace warpfold::sum_modes {

// The order's butterflies: lanes Width/2, ..., 2, 1 apart, each lane adding its partner's
// value to its own (a warp, or the first Width lanes of one: every lane of the warp calls it).
template <int Width = blocks::warp_size, typename A>
WARPFOLD_DEVICE A butterfly_sum(A v) {
#pragma unroll
  for (int d = Width / 2; d > 0; d /= 2) v = v + __shfl_xor_sync(blocks::full_warp_mask, v, d);
  return v;
}

// Where a chunk's elements come from. Memory from a pointer: one 16-byte load per lane vector
// where the input is aligned and the row complete, else element by element with +0 past the
// end. Same values either way. (sum_modes/sequences.cuh has a source for strided views.)
template <typename T, bool Aligned>
struct pointer_source {
  static constexpr bool whole_vectors = Aligned;  // whole_vector() may be called
  const T* in;
  WARPFOLD_DEVICE blocks::vector16<T> whole_vector(std::int64_t first) const {
    return blocks::streaming_vector_load{}(in + first, 0);
  }
  WARPFOLD_DEVICE blocks::vector16<T> lane_vector(std::int64_t first, std::int64_t end) const {
    constexpr int V = reproducible_vector_elements<T>;
    if (Aligned && first + V <= end) return whole_vector(first);
    blocks::vector16<T> v;
#pragma unroll
    for (int j = 0; j < V; ++j) v.items[j] = first + j < end ? in[first + j] : T(0.0f);
    return v;
  }
};

// Steps 2 and 3 of the order for chunk c of m, of the n elements that `source` gives; every
// lane gets the chunk's sum.
template <typename T, typename A, typename Source>
WARPFOLD_DEVICE A reproducible_chunk_sum(const Source& source, std::int64_t n, std::int64_t c, std::int64_t m, int lane) {
  constexpr int V = reproducible_vector_elements<T>;
  constexpr int U = reproducible_accumulators;
  constexpr std::int64_t row = reproducible_row_elements<T>;
  const std::int64_t rows = reproducible_rows<T>(n);
  A acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = A(0);
  auto add_rows = [&](const blocks::vector16<T>(&batch)[U]) {
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int j = 0; j < V; ++j) acc[u] = acc[u] + static_cast<A>(batch[u].items[j]);
  };
  // The chunk's rows k = 0, 1, ... are array rows c + k m, U at a time.
  const std::int64_t full_rows = n / row;  // rows with no missing element
  std::int64_t r0 = c;
  if constexpr (Source::whole_vectors) {  // U whole rows: plain 16-byte loads, no bounds checks
    for (; r0 + (U - 1) * m < full_rows; r0 += U * m) {
      blocks::vector16<T> batch[U];
#pragma unroll
      for (int u = 0; u < U; ++u) batch[u] = source.whole_vector((r0 + u * m) * row + lane * V);
      add_rows(batch);
    }
  }
  // The rest, the same rows to the same accumulators, each row added as soon as it is read:
  // the last rows, or every row of a misaligned input, are read element by element, and
  // holding U rows of single elements at once made ptxas spill 120-148 bytes per thread for
  // 2-byte types within the 32 registers of whole-group blocks.
  for (; r0 < rows; r0 += U * m) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t r = r0 + u * m;
      blocks::vector16<T> v;
      if (r < rows) {
        v = source.lane_vector(r * row + lane * V, n);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) v.items[j] = T(0.0f);
      }
#pragma unroll
      for (int j = 0; j < V; ++j) acc[u] = acc[u] + static_cast<A>(v.items[j]);
    }
  }
  return butterfly_sum(((acc[0] + acc[1]) + acc[2]) + acc[3]);
}

// Shapes of the kernel's blocks. A block of 32 warps sums whole groups: its partial result is
// a group's sum. A block of 16 warps sums half a group, the chunks of one parity: warp w takes
// chunk 32g + 2w + h of group g, half h. Steps 3 and 4 pair lanes 16, 8, 4 and 2 apart first,
// which never mixes parities, so the block folds its 16 chunk sums through those four levels
// (lanes 8, 4, 2 and 1 apart among its own), and the group's sum is its even half plus its odd
// half, the last level. Half-group blocks put twice as many SMs to work on inputs of a few
// megabytes, the way the default sum's 512-thread blocks do, and each still leaves one partial
// result: the block that combines reads at most 1024 (two per group), all in flight at once.
inline constexpr int reproducible_group_block = reproducible_group_chunks * blocks::warp_size;
inline constexpr int reproducible_half_group_block = reproducible_group_block / 2;
// Partials that fit in a block's shared memory (one block, or block 0 of a cluster): two per
// group at most.
inline constexpr std::int64_t reproducible_shared_partials = reproducible_combine_lanes;

template <int Block>
inline constexpr int units_per_group = reproducible_group_block / Block;

// Step 4's last level and step 5, by a block of Block threads, from the partials that
// `partial(i)` gives (units_per_group<Block> per group). With at most 512 groups, combine lane
// j holds +0 + G[j] for j < groups and +0 beyond; thread j plays lane j, and the virtual warps
// past the block's own hold only +0, whose butterflies give +0: the chain is as short as the
// default sum's block reduction (one butterfly, one barrier, one butterfly). Returns the
// result in thread 0.
template <int Block, typename A, typename Partial>
WARPFOLD_DEVICE A combine_partials(Partial partial, std::int64_t groups) {
  constexpr int W = Block / blocks::warp_size;
  constexpr int H = units_per_group<Block>;
  static_assert((reproducible_max_chunks + reproducible_group_chunks - 1) / reproducible_group_chunks <= Block,
                "every group has a thread of the combining block");
  __shared__ A warp_values[W];
  const int lane = threadIdx.x % blocks::warp_size, warp = threadIdx.x / blocks::warp_size;
  const std::int64_t g = threadIdx.x;
  A acc = A(0);
  if (g < groups) {
    if constexpr (H == 1) {
      acc = acc + partial(g);
    } else {
      const A even = partial(2 * g), odd = partial(2 * g + 1);
      acc = acc + (even + odd);
    }
  }
  acc = butterfly_sum(acc);
  if (lane == 0) warp_values[warp] = acc;
  __syncthreads();
  return threadIdx.x < blocks::warp_size ? butterfly_sum(lane < W ? warp_values[lane] : A(0)) : A(0);
}

// Blocks of Block threads (reproducible_group_block or reproducible_half_group_block). Block b
// takes units b, b + grid, ...: unit u is group u / H, half u % H (H = units_per_group), and
// leaves one partial result, at u. In a cluster, each block takes exactly one unit (the launch
// sees to it) and writes its partial into block 0's shared memory. At least MinBlocks blocks
// per SM (sum_modes/launch.cuh says which, and why).
template <typename T, typename A, bool Aligned, int Block, int MinBlocks>
__global__ void __launch_bounds__(Block, MinBlocks)
    reproducible_sum_kernel(const T* in, std::int64_t n, A* out, device::scratch_view scratch) {
  constexpr int W = Block / blocks::warp_size;
  constexpr int H = units_per_group<Block>;
  static_assert(H == 1 || H == 2, "blocks of a whole group or of half of one");
  __shared__ A shared_partials[reproducible_shared_partials];
  __shared__ A chunk_sums[W];
  // Only half-group blocks are launched as a cluster (whole-group blocks never are, and
  // compiling the cluster path into them made ptxas spill twice as much for 2-byte types).
  const bool clustered = H > 1 && blocks::grid_is_one_cluster();
  if (clustered) blocks::cluster_block_started();
  blocks::wait_for_prior_kernels();
  const int lane = threadIdx.x % blocks::warp_size;
  const int warp = threadIdx.x / blocks::warp_size;
  const std::int64_t chunks = reproducible_chunks<T>(n);
  const std::int64_t groups = reproducible_groups<T>(n);
  const std::int64_t units = groups * H;
  const bool in_shared = clustered || (gridDim.x == 1 && units <= reproducible_shared_partials);
  A* partials = in_shared ? shared_partials : scratch.partials_as<A>();

  A unit_sum = A(0);  // thread 0's, of this block's last unit
  for (std::int64_t u = blockIdx.x; u < units; u += gridDim.x) {  // block-uniform
    const std::int64_t c = (u / H) * reproducible_group_chunks + std::int64_t(warp) * H + u % H;
    const A s = c < chunks ? reproducible_chunk_sum<T, A>(pointer_source<T, Aligned>{in}, n, c, chunks, lane) : A(0);
    if (lane == 0) chunk_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
      unit_sum = butterfly_sum<W>(lane < W ? chunk_sums[lane] : A(0));
      if (lane == 0 && !clustered) partials[u] = unit_sum;
    }
    __syncthreads();
  }
  blocks::allow_dependent_launch();

  if constexpr (H > 1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (clustered) {
      cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
      __cluster_barrier_wait();  // every block has started: block 0's shared memory exists
      if (threadIdx.x == 0) *cluster.map_shared_rank(&shared_partials[blockIdx.x], 0) = unit_sum;
      cluster.sync();  // block 0 sees every block's partial
      if (cluster.block_rank() != 0) return;
    }
#endif
  }
  if (gridDim.x > 1 && !clustered) {  // thread 0 wrote the partials: it fences, then takes a ticket
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
      __threadfence();
      is_last = blocks::take_last_ticket(scratch.arrivals, gridDim.x);
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();  // pairs with the other blocks' fences: their partials are visible
  }
  const A total = combine_partials<Block, A>(
      [&](std::int64_t i) { return in_shared ? shared_partials[i] : blocks::load_from_other_blocks(partials + i); }, groups);
  if (threadIdx.x == 0) {
    *out = total;
    if (!in_shared) blocks::record_launch_finished(scratch.finished, scratch.finished_after);
  }
}

}  // namespace warpfold::sum_modes
