// Short contiguous rows of a length the flat kernels do not take ([N, 3] along dim 1, [N, 5],
// [N, 12], and slices such as x[:, 1:-1] of them), and small slabs of columns ([B, 31, 2] over
// the 31): a block copies a tile of neighbouring rows (or slabs), one contiguous stretch of
// memory, into shared memory with 16-byte loads, then each thread adds up one output from
// there.
//
// Why: a row of 3 floats is 12 bytes, so any reading by rows either leaves lanes idle (a
// group of 4 lanes on 3 elements) or reads 4-byte elements one at a time, and neither keeps
// enough bytes in flight: 30% of the read ceiling for [2^25, 3] (H100, 2026-11-23). Read as a
// tile, the stretch is streamed like the full reduce streams its input, whatever the row
// length; the gaps of a slice are read too, so the planner sends here only rows whose gaps
// are small (axis_policy::max_tiled_gap).
#pragma once

#include <cstdint>

#include "warpfold/axis/plan.hpp"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/load.cuh"

namespace warpfold::axis {

inline constexpr int tiled_rows_block = 256;
inline constexpr int tiled_rows_bytes = 12 * 1024;  // eight blocks per SM: 96 KiB in flight
inline constexpr int tiled_loads_in_flight = 4;

template <typename T>
inline constexpr std::int64_t tiled_rows_elements = tiled_rows_bytes / sizeof(T);

struct tiled_rows_shape {
  std::int64_t rows;           // per block of rows
  std::int64_t row_stride;     // elements between row starts
  std::int64_t row_length;     // elements per row
  std::int64_t rows_per_tile;  // whose stretch fits in tiled_rows_bytes
  // Blocks of rows (a slice x[:, :, 1:-1] of a 3-D array has one per outer index), each
  // `rows` rows, outer_stride elements apart; the outputs are row-major over (block, row).
  std::int64_t blocks_of_rows;
  std::int64_t outer_stride;
  // Each row may hold `columns` outputs ([B, R, C] over R with R x C small: row r is the slab
  // of b, and output (r, c) adds its elements c, c + C, ...): row_length is R x C. 1 for
  // plain rows.
  std::int64_t columns;
  output_order order;  // plain rows: where output o (row-major over block, row) goes
};

// The rows per tile for rows of `length` elements `stride` apart.
template <typename T>
WARPFOLD_HOST_DEVICE std::int64_t tiled_rows_per_tile(std::int64_t stride, std::int64_t length) {
  return (tiled_rows_elements<T> - length) / stride + 1;
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(tiled_rows_block)
    tiled_rows_kernel(const T* in, tiled_rows_shape s, Out out, Op op, ToAcc to_acc) {
  blocks::wait_for_prior_kernels();
  // Raw bytes: __half and __nv_bfloat16 have constructors, which __shared__ arrays may not run.
  __shared__ alignas(16) unsigned char tile_bytes[tiled_rows_bytes];
  T* tile = reinterpret_cast<T*>(tile_bytes);
  constexpr int V = blocks::vector16<T>::size;
  constexpr int L = tiled_loads_in_flight;
  const blocks::streaming_vector_load load;
  const std::int64_t tiles_per_block = (s.rows + s.rows_per_tile - 1) / s.rows_per_tile;
  const std::int64_t tiles = tiles_per_block * s.blocks_of_rows;
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::int64_t outer = t / tiles_per_block;
    const std::int64_t first_row = (t - outer * tiles_per_block) * s.rows_per_tile;
    const std::int64_t rows = s.rows - first_row < s.rows_per_tile ? s.rows - first_row : s.rows_per_tile;
    const T* stretch = in + outer * s.outer_stride + first_row * s.row_stride;
    const Out to = out + (outer * s.rows + first_row) * s.columns;
    const std::int64_t span = (rows - 1) * s.row_stride + s.row_length;

    // The stretch into shared memory: the elements before its first 16-byte boundary and
    // after its last one alone, the rest as vectors, L in flight per thread.
    const blocks::aligned_split split = blocks::split_at_alignment(stretch, span);
    if (threadIdx.x < split.head) tile[threadIdx.x] = stretch[threadIdx.x];
    const T* body = stretch + split.head;
    std::int64_t v = threadIdx.x;
    for (; v + (L - 1) * tiled_rows_block < split.body_vectors; v += L * tiled_rows_block) {
      blocks::vector16<T> x[L];
#pragma unroll
      for (int u = 0; u < L; ++u) x[u] = load(body, v + u * tiled_rows_block);
#pragma unroll
      for (int u = 0; u < L; ++u)
#pragma unroll
        for (int e = 0; e < V; ++e) tile[split.head + (v + u * tiled_rows_block) * V + e] = x[u].items[e];
    }
    for (; v < split.body_vectors; v += tiled_rows_block) {
      const blocks::vector16<T> x = load(body, v);
#pragma unroll
      for (int e = 0; e < V; ++e) tile[split.head + v * V + e] = x.items[e];
    }
    const std::int64_t tail = split.tail_begin + threadIdx.x;
    if (tail < span) tile[tail] = stretch[tail];
    __syncthreads();

    if (s.columns == 1) {  // plain rows: no division per output (rows of 2 are most of the work)
      auto fold_row = [&](std::int64_t r) {
        Acc acc = op.template identity<Acc>();
        const T* row = tile + r * s.row_stride;
        for (std::int64_t i = 0; i < s.row_length; ++i) acc = op(acc, to_acc(row[i], i));
        return acc;
      };
      // Outputs in order, or through the map (a permuted view): two loops, as a test per
      // store made copies (rows of one element) 1.5x slower.
      if (s.order.identity()) {
        for (std::int64_t r = threadIdx.x; r < rows; r += tiled_rows_block) to[r] = fold_row(r);
      } else {
        for (std::int64_t r = threadIdx.x; r < rows; r += tiled_rows_block)
          out[s.order(outer * s.rows + first_row + r)] = fold_row(r);
      }
    } else {
      const int columns = static_cast<int>(s.columns);  // at most max_tiled_row
      const int reduced = static_cast<int>(s.row_length) / columns;
      for (int q = threadIdx.x; q < rows * columns; q += tiled_rows_block) {
        const int r = q / columns, c = q - r * columns;
        Acc acc = op.template identity<Acc>();
        const T* row = tile + r * s.row_stride + c;
        for (int i = 0; i < reduced; ++i) acc = op(acc, to_acc(row[i * columns], i));
        to[q] = acc;
      }
    }
    __syncthreads();  // the tile is read before the next one overwrites it
  }
}

}  // namespace warpfold::axis
