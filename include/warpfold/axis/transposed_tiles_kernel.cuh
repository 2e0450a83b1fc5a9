// Few elements per output, and an output whose order is not memory's: a permuted or
// transposed view reduced over a handful of elements. bf16 [27, 649181, 3] with strides
// (1, 81, 27), over axis 2: memory holds, for each index of the 649181 axis, 3 rows of 27
// kept elements; the output wants the 649181 outputs of each of the 27 side by side. i32
// [527385, 17, 3] with strides (1, 1582155, 527385), over axis 2: each output reads 3
// elements, and its neighbour in the output is 6 MB away in memory.
//
// Why: every other kernel walks either memory's order or the output's. Walked in memory
// order, each output lands on its own 32-byte sector of the output (neighbouring outputs in
// memory are megabytes apart in the output); walked in the output's order, each lane reads a
// few bytes of its own sector of the input. Both move several times the bytes they need:
// those two cases ran at 4.4% and 10.2% of the read ceiling; through these tiles, at 34% and
// 45% (H100, 2026-11-28; docs/results/H100/axis_random/ab_2026-11-28_transposed_tiles/).
// The staged rows are padded to an odd number of 16-byte words (transposed_row_pitch): where
// the output runs across the tile's rows, a warp's 32 reads of one column fell in one bank.
// Padded, 44 cases of seeds 1-61 whose tiles only that changed ran 0.87x on geometric mean,
// one 1.03x slower (H200, 2026-11-29). Still far from the read ceiling: a tile's steps run
// one after another (load, barrier, fold, store), with three blocks of 80 registers per SM to
// overlap them; Nsight Compute (H200, 2026-11-29, f32 15x27x1171x124 copied) shows 22 warps
// an SM, DRAM 25% busy, and no single stall reason ahead of the others
// (docs/results/H200/axis_column_walks_2026-11-29/profile_043fdc9.txt).
//
// How: the classic tiled transpose, with the reduction inside it. A tile is a few rows of
// contiguous memory: along the axis just above a contiguous slab of small axes (the 3 x 27
// above), `row_axis_tile` slabs per row; and, when the output's innermost axis lies elsewhere
// in memory (the 17 above), `rows_tile` rows of it. Threads read the rows with 16-byte loads
// (axis/shifted_vector.cuh, for rows that start anywhere) and keep one accumulator per element
// through the outer reduced axes; the tile's accumulators go to shared memory; then each thread
// folds one output's elements from there (the slab's reduced axes), neighbouring threads on
// neighbouring outputs, so that stores are coalesced as loads were.
//
// Not for argmin/argmax (their indices count the reduced axes in the view's order; this folds
// in memory's), nor for reductions of many elements per output, which the other kernels read
// in long runs (launch.cuh: transposed_tiles_for).
#pragma once

#include <cstdint>
#include <cstring>

#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/transposed_tiles_plan.hpp"
#include "warpfold/axis/shifted_vector.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/load.cuh"

namespace warpfold::axis {

// A thread's V accumulators into the staged tile, 16 bytes at a time (V x sizeof(Acc) is a
// multiple of 16, and so is their place): stored one by one, a warp's lanes V elements apart
// hit the same banks.
template <typename Acc, int V>
WARPFOLD_DEVICE void store_staged(Acc* to, const Acc (&values)[V]) {
  static_assert(sizeof(values) % sizeof(uint4) == 0, "a thread's accumulators are whole 16-byte words");
  uint4 words[sizeof(values) / sizeof(uint4)];
  memcpy(words, values, sizeof(values));
#pragma unroll
  for (int i = 0; i < int(sizeof(values) / sizeof(uint4)); ++i) reinterpret_cast<uint4*>(to)[i] = words[i];
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(transposed_block, 3)
    transposed_tiles_kernel(const T* in, transposed_tiles_shape s, Out out, Op op, ToAcc to_acc) {
  blocks::wait_for_prior_kernels();
  constexpr int V = blocks::vector16<T>::size;
  constexpr int K = transposed_vectors_per_thread<T, Acc>;
  static_assert(K >= 1, "a thread's accumulators fit the staging");
  __shared__ alignas(16) unsigned char staging_bytes[transposed_staged_bytes];
  Acc* staged = reinterpret_cast<Acc*>(staging_bytes);
  const T* end = in + s.end;
  const std::int64_t row_pitch = s.staged_row_pitch;

  // The thread's vectors are at the same place in every tile: (row, vector in the row).
  int row_of[K], vector_of[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int v = static_cast<int>(threadIdx.x) + k * transposed_block;
    row_of[k] = v / static_cast<int>(s.vectors_per_row);
    vector_of[k] = v - row_of[k] * static_cast<int>(s.vectors_per_row);
  }
  const std::int64_t tiles_per_outer = s.row_axis_tiles * s.rows_tiles;
  const std::int64_t work = s.outer_kept.size() * tiles_per_outer;
  const std::int64_t reduced_outer = s.outer_reduced.size();

  for (std::int64_t w = blockIdx.x; w < work; w += gridDim.x) {
    // Neighbouring blocks take neighbouring tiles along the row axis: neighbouring memory.
    const std::int64_t outer = w / tiles_per_outer, t = w - outer * tiles_per_outer;
    const std::int64_t rows_tile_index = t / s.row_axis_tiles;
    const std::int64_t first_slab = (t - rows_tile_index * s.row_axis_tiles) * s.row_axis_tile;
    const std::int64_t first_row = rows_tile_index * s.rows_tile;
    const int slabs_here = static_cast<int>(s.row_axis_extent - first_slab < s.row_axis_tile ? s.row_axis_extent - first_slab
                                                                                              : s.row_axis_tile);
    const int rows_here = static_cast<int>(s.rows_extent - first_row < s.rows_tile ? s.rows_extent - first_row : s.rows_tile);
    const std::int64_t length = std::int64_t(slabs_here) * s.slab;  // elements in each of the tile's rows
    const T* tile = in + s.outer_kept.offset(outer) + first_slab * s.slab + first_row * s.rows_in_stride;
    bool mine[K];
#pragma unroll
    for (int k = 0; k < K; ++k) mine[k] = row_of[k] < rows_here && std::int64_t(vector_of[k]) * V < length;

    Acc acc[K][V];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
      for (int e = 0; e < V; ++e) acc[k][e] = op.template identity<Acc>();
    for (std::int64_t j = 0; j < reduced_outer; ++j) {
      const T* base = tile + s.outer_reduced.offset(j);
      blocks::vector16<T> x[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (!mine[k]) continue;
        const T* at = base + row_of[k] * s.rows_in_stride + std::int64_t(vector_of[k]) * V;
        // Near the view's end, only the row's own elements.
        x[k] = load_shifted_before(at, end, length - std::int64_t(vector_of[k]) * V);
      }
#pragma unroll
      for (int k = 0; k < K; ++k)
        if (mine[k]) {
          // Elements past the row's end fold too; their places are never read back.
          blocks::fold_vector_columns(op, acc[k], x[k].items, j, to_acc);
        }
    }
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (mine[k]) store_staged(staged + row_of[k] * row_pitch + std::int64_t(vector_of[k]) * V, acc[k]);
    __syncthreads();

    // The tile's outputs, row-major over out_axes, the output's innermost last: neighbouring
    // threads store to neighbouring addresses. Tile-local counts fit 32 bits.
    unsigned extent[3];
#pragma unroll
    for (int a = 0; a < 3; ++a)
      extent[a] = static_cast<unsigned>(s.out_axes[a].along == 1   ? slabs_here
                                        : s.out_axes[a].along == 2 ? rows_here
                                                                   : s.out_axes[a].extent);
    const unsigned outputs = extent[0] * extent[1] * extent[2];
    const Out to = out + s.outer_kept_out.offset(outer) + first_slab * s.row_axis_out_stride + first_row * s.rows_out_stride;
    for (unsigned o = threadIdx.x; o < outputs; o += transposed_block) {
      const unsigned i2 = o % extent[2], rest = o / extent[2];
      const unsigned i1 = rest % extent[1], i0 = rest / extent[1];
      const Acc* from = staged + i0 * s.out_axes[0].staged_stride + i1 * s.out_axes[1].staged_stride +
                        i2 * s.out_axes[2].staged_stride;
      Acc folded = from[0];
      bool first = true;
      for (std::int64_t r1 = 0; r1 < s.slab_reduced_extent[1]; ++r1)
        for (std::int64_t r0 = 0; r0 < s.slab_reduced_extent[0]; ++r0) {
          const Acc value = from[r1 * s.slab_reduced_stride[1] + r0 * s.slab_reduced_stride[0]];
          folded = first ? value : op(folded, value);
          first = false;
        }
      to[i0 * s.out_axes[0].out_stride + i1 * s.out_axes[1].out_stride + i2 * s.out_axes[2].out_stride] = folded;
    }
    __syncthreads();  // the next tile is staged over this one
  }
}

}  // namespace warpfold::axis
