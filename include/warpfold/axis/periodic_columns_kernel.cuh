// Narrow columns that are not whole aligned vectors: one [R, C] matrix along dim 0, C of 2 to
// 256 elements ([N, 3] points summed over N, 7 int32s, 139 halves), from any start, its rows
// S >= C elements apart: back to back (S = C), or a slice with a short gap after each row
// (x[:, 1:-1]: S = C + 2), read along with the rows. Read flat like the full reduce: thread t
// of the first T threads of the grid takes 16-byte vectors t, t + T, ... of the aligned body,
// where T x V is a multiple of S (the launch leaves the last few threads idle for it, fewer
// than S), so element e of each of a thread's vectors is always at the same place in a row:
// (head + t V + e) mod S, a column when under C, the gap otherwise. A thread keeps one
// accumulator per element of its vector.
//
// Then each block stages its threads' V accumulators in shared memory, in element order of
// its first vectors, where column c is every S-th value from a known first one; a group of
// lanes per column adds them up (the gap's values are never picked up). Block 0 also folds
// the head (the elements before the first 16-byte boundary) and the tail (after the last
// whole vector). Each block leaves C partials, added up in block order by the last block to
// arrive, or, for many blocks of wide rows, in bands of blocks first (finish_grid_partials).
// One launch, fixed order, so float results repeat.
//
// Why: the columns kernel reads such a matrix an element a load (C = 3: a 512-thread block on
// a tile of 4 columns, 128 rows of 2-byte loads in flight), or as shifted pairs of vectors
// in tiles of 32 (139 halves are 18 vectors: 14 of 32 lanes idle), and the interleaved slab
// read needs each slab in one tile. H100, 2026-11-28, share of the read ceiling before ->
// after: f16 [13625127, 3] over dim 0 59.5% -> 81.5%, i32 [1942315, 11] 65.4% -> 82.4%, f32
// [22369621, 3] 83.4% -> 95.5%, f32 [1636801, 41] 81.6% -> 90.2%. Wider and sliced rows,
// H200, 2026-11-29: f16 [285749, 139] 44.1 -> 25.5 us, bf16 [8168640, 15] rows 17 apart
// 94.9 -> 66.7 us, f32 [1032444, 65] 64.5% -> 86.6%.
#pragma once

#include <cstdint>

#include "warpfold/axis/column_combine.cuh"
#include "warpfold/axis/flat_rows_kernel.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::axis {

// The widest rows taken. Every block leaves a partial per column (padded to a power of two),
// which finish_grid_partials adds up with this many loads in flight per thread.
inline constexpr int max_periodic_columns = 256;
inline constexpr int periodic_combine_loads = 8;

// The staged accumulators of a 1024-thread block must fit in 32 KB of shared memory: V of
// them a thread (8 floats for halves, 4 int64 sums for int32). Narrow integers (16 int8s a
// vector, summed in int64) and wide accumulators (moments, value-index pairs) go elsewhere.
template <typename T, typename Acc>
inline constexpr bool periodic_columns_fit = sizeof(Acc) * blocks::vector16<T>::size <= 32;

// How a block folds C columns out of its staged accumulators: G lanes per column (a power of
// two up to a warp), as many columns as the block holds, a warp's columns side by side.
struct staged_column_lanes {
  int G, lane, per_warp, warps;
  WARPFOLD_DEVICE explicit staged_column_lanes(int columns) {
    G = blocks::warp_size;
    while (G > 1 && G * columns > static_cast<int>(blockDim.x)) G /= 2;
    lane = threadIdx.x % blocks::warp_size;
    per_warp = blocks::warp_size / G;
    warps = blockDim.x / blocks::warp_size;
  }
  // The first column of this thread's warp on its first pass; a pass then steps by step().
  WARPFOLD_DEVICE int first_of_warp() const { return (threadIdx.x / blocks::warp_size) * per_warp; }
  WARPFOLD_DEVICE int step() const { return warps * per_warp; }
  WARPFOLD_DEVICE int column(int first_of_warp) const { return first_of_warp + lane / G; }
  WARPFOLD_DEVICE bool leads() const { return lane % G == 0; }
};

// This lane's share of column c of `staged_values` staged accumulators in which value k sits at
// (first + k) mod S of its row: every G-th of the column's values, in four running totals, so
// that a lane's few hundred values (C = 2: 128 a lane) are not one chain of dependent
// shared-memory loads and adds.
template <typename Acc, typename Op>
WARPFOLD_DEVICE Acc fold_staged_column(const Acc* staged, int staged_values, int c, int first, int row_stride,
                                       const staged_column_lanes& lanes, Op op) {
  const int k0 = (c - first + row_stride) % row_stride;  // the column's first staged value
  const int lane_stride = lanes.G * row_stride;          // between one lane's staged values
  Acc part[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) part[u] = op.template identity<Acc>();
  int k = k0 + (lanes.lane % lanes.G) * row_stride;
  for (; k + 3 * lane_stride < staged_values; k += 4 * lane_stride) {
#pragma unroll
    for (int u = 0; u < 4; ++u) part[u] = op(part[u], staged[k + u * lane_stride]);
  }
  for (; k < staged_values; k += lane_stride) part[0] = op(part[0], staged[k]);
  return op(op(part[0], part[1]), op(part[2], part[3]));
}

// Column c's elements among the first `head` elements of [in, in + elements) and from
// tail_begin on (those outside the aligned 16-byte body), rows S apart from `in`.
template <typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE Acc fold_column_outside_body(const T* in, std::int64_t head, std::int64_t tail_begin,
                                             std::int64_t elements, int c, int row_stride, Acc total, Op op,
                                             ToAcc to_acc) {
  for (std::int64_t i = c; i < head; i += row_stride) total = op(total, to_acc(in[i], 0));
  for (std::int64_t i = tail_begin + (c - tail_begin % row_stride + row_stride) % row_stride; i < elements;
       i += row_stride)
    total = op(total, to_acc(in[i], 0));
  return total;
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(flat_block, (flat_blocks_per_sm<T, Acc>))
    periodic_columns_kernel(const T* in, std::int64_t elements, std::int64_t active_threads, int row_stride,
                            int columns, int padded_columns, int band, std::int64_t out_step, Out out, Op op,
                            ToAcc to_acc, device::scratch_view scratch) {
  blocks::wait_for_prior_kernels();
  constexpr int V = blocks::vector16<T>::size;
  constexpr int L = flat_loads_in_flight;
  static_assert(periodic_columns_fit<T, Acc>, "the staged accumulators must fit in 32 KB");
  __shared__ Acc staged[flat_block * V];
  const blocks::streaming_vector_load load;
  const blocks::aligned_split split = blocks::split_at_alignment(in, elements);
  const T* body = in + split.head;
  const std::int64_t count = active_threads;
  Acc acc[V];
#pragma unroll
  for (int e = 0; e < V; ++e) acc[e] = op.template identity<Acc>();

  // Not for argmin/argmax (the launch sees to it): no row index is passed on.
  const std::int64_t thread = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::int64_t v = thread < active_threads ? thread : split.body_vectors;
  for (; v + (L - 1) * count < split.body_vectors; v += L * count) {
    blocks::vector16<T> x[L];
#pragma unroll
    for (int u = 0; u < L; ++u) x[u] = load(body, v + u * count);
#pragma unroll
    for (int u = 0; u < L; ++u) blocks::fold_vector_columns(op, acc, x[u].items, 0, to_acc);
  }
  for (; v < split.body_vectors; v += count) {
    const blocks::vector16<T> x = load(body, v);
    blocks::fold_vector_columns(op, acc, x.items, 0, to_acc);
  }

  // Staged value k (thread k / V, element k % V) is at (first + k) mod S in its row.
#pragma unroll
  for (int e = 0; e < V; ++e) staged[threadIdx.x * V + e] = acc[e];
  __syncthreads();
  const int first = static_cast<int>((split.head + std::int64_t(blockIdx.x) * blockDim.x * V) % row_stride);
  const staged_column_lanes lanes(columns);
  Acc* partials = scratch.partials_as<Acc>();
  // The loop bound depends on the warp only, so every lane reaches group_reduce together.
  for (int first_of_warp = lanes.first_of_warp(); first_of_warp < columns; first_of_warp += lanes.step()) {
    const int c = lanes.column(first_of_warp);
    Acc total = op.template identity<Acc>();
    if (c < columns) {
      total = fold_staged_column(staged, flat_block * V, c, first, row_stride, lanes, op);
      if (blockIdx.x == 0 && lanes.leads())
        total = fold_column_outside_body(in, split.head, split.tail_begin, elements, c, row_stride, total, op, to_acc);
    }
    total = blocks::group_reduce(total, op, lanes.G);
    if (lanes.leads() && c < columns) partials[std::int64_t(blockIdx.x) * padded_columns + c] = total;
  }
  // Padded columns (up to the power of two that combine_splits takes) hold the identity.
  for (int c = columns + static_cast<int>(threadIdx.x); c < padded_columns; c += blockDim.x)
    partials[std::int64_t(blockIdx.x) * padded_columns + c] = op.template identity<Acc>();
  Acc* band_totals = partials + std::int64_t(gridDim.x) * padded_columns;
  if (!finish_grid_partials<flat_block, periodic_combine_loads>(partials, band_totals, scratch.counters,
                                                                 scratch.arrivals, band, padded_columns, out, columns,
                                                                 op, out_step))
    return;
  __syncthreads();  // every thread of the last block is done reading the partials
  if (threadIdx.x == 0) blocks::record_launch_finished(scratch.finished, scratch.finished_after);
}

}  // namespace warpfold::axis
