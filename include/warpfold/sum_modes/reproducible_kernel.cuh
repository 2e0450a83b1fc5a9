// The reproducible sum: the order of reproducible_order.hpp, one launch. Blocks take groups
// of 32 chunks (any block may take any group: a group's sum does not depend on who computes
// it), one warp per chunk, write the group sums to scratch, and the last block to arrive
// combines them in the fixed order with its 1024 threads, one per combine lane. A grid of one
// block keeps the group sums in shared memory and needs no scratch.
#pragma once

#include <cstdint>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/device/scratch.hpp"
#include "warpfold/sum_modes/reproducible_order.hpp"

namespace warpfold::sum_modes {

template <typename A>
WARPFOLD_DEVICE A butterfly_sum(A v) {
#pragma unroll
  for (int d = blocks::warp_size / 2; d > 0; d /= 2) v = v + __shfl_xor_sync(blocks::full_warp_mask, v, d);
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
  for (; r0 < rows; r0 += U * m) {  // the rest: the same rows to the same accumulators
    blocks::vector16<T> batch[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t r = r0 + u * m;
      if (r < rows) {
        batch[u] = source.lane_vector(r * row + lane * V, n);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) batch[u].items[j] = T(0.0f);
      }
    }
    add_rows(batch);
  }
  return butterfly_sum(((acc[0] + acc[1]) + acc[2]) + acc[3]);
}

// Launched with 1024 threads per block: warp w of a block sums chunk 32g + w of the group g
// that the block is on, and one thread per combine lane at the end.
template <typename T, typename A, bool Aligned>
__global__ void __launch_bounds__(reproducible_combine_lanes, 2)
    reproducible_sum_kernel(const T* in, std::int64_t n, A* out, device::scratch_view scratch) {
  static_assert(reproducible_combine_lanes == reproducible_group_chunks * blocks::warp_size, "a block is one group's warps");
  __shared__ A chunk_sums[reproducible_group_chunks];
  __shared__ A block_group_sums[reproducible_combine_lanes];
  __shared__ A warp_values[blocks::warp_size];
  blocks::wait_for_prior_kernels();
  const int lane = threadIdx.x % blocks::warp_size;
  const int warp = threadIdx.x / blocks::warp_size;
  const std::int64_t chunks = reproducible_chunks<T>(n);
  const std::int64_t groups = reproducible_groups<T>(n);
  const bool in_shared = gridDim.x == 1 && groups <= reproducible_combine_lanes;
  A* group_sums = in_shared ? block_group_sums : scratch.partials_as<A>();

  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {  // block-uniform
    const std::int64_t c = g * reproducible_group_chunks + warp;
    const A s = c < chunks ? reproducible_chunk_sum<T, A>(pointer_source<T, Aligned>{in}, n, c, chunks, lane) : A(0);
    if (lane == 0) chunk_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
      const A group = butterfly_sum(chunk_sums[lane]);
      if (lane == 0) group_sums[g] = group;
    }
    __syncthreads();
  }
  blocks::allow_dependent_launch();

  if (gridDim.x > 1) {  // only thread 0 wrote group sums: it alone fences, then takes a ticket
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
      __threadfence();
      is_last = blocks::take_last_ticket(scratch.arrivals, gridDim.x);
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();  // pairs with the other blocks' fences: their group sums are visible
  }
  A acc = A(0);
  for (std::int64_t i = threadIdx.x; i < groups; i += reproducible_combine_lanes)
    acc = acc + (in_shared ? group_sums[i] : blocks::load_from_other_blocks(group_sums + i));
  acc = butterfly_sum(acc);
  if (lane == 0) warp_values[warp] = acc;
  __syncthreads();
  if (threadIdx.x >= blocks::warp_size) return;
  acc = butterfly_sum(warp_values[lane]);
  if (lane == 0) {
    *out = acc;
    if (!in_shared) blocks::record_launch_finished(scratch.finished, scratch.finished_after);
  }
}

}  // namespace warpfold::sum_modes
