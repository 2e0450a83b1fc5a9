// Block layer of the column reductions: threads that hold parts of the same columns meet.
//
// A block of `Block` threads is laid out as tx columns (threadIdx.x % tx) by Block / tx rows;
// combine_column folds each column's rows into its first thread (shuffles inside a warp,
// shared memory across warps), and combine_splits adds up a [splits, columns] matrix of
// partials that several blocks left, in split order. Both the column-tile kernel and the
// narrow-column kernel finish this way. Fixed orders throughout, so float results repeat.
#pragma once

#include <cstdint>

#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::axis {

// Combines the values of the Block / tx threads that share a column (threadIdx.x % tx, tx a
// power of two up to Block). Every thread calls it; the result is valid in threads 0 .. tx - 1.
template <int Block, typename Acc, typename Op>
WARPFOLD_DEVICE Acc combine_column(Acc value, int tx, Op op) {
  __shared__ Acc rows[Block];
  const int lane = threadIdx.x % blocks::warp_size;
  if (tx < blocks::warp_size) {  // the warp's 32 / tx rows first, with shuffles
    for (int delta = tx; delta < blocks::warp_size; delta *= 2) value = op(value, blocks::shuffle_down(value, delta));
  }
  const bool in_warp = tx < blocks::warp_size;
  const int contributors = in_warp ? blockDim.x / blocks::warp_size : blockDim.x / tx;
  if (contributors == 1) return value;
  const int row = in_warp ? threadIdx.x / blocks::warp_size : threadIdx.x / tx;
  __syncthreads();  // an earlier call may still be reading rows
  if (!in_warp || lane < tx) rows[row * tx + threadIdx.x % tx] = value;
  __syncthreads();
  if (threadIdx.x < tx) {
    for (int r = 1; r < contributors; ++r) value = op(value, rows[r * tx + threadIdx.x]);
  }
  return value;
}

// The last block to arrive adds up the partials: a [splits, columns] matrix reduced along
// dim 0, in split order, written to out[0 .. valid_columns). It is itself a small column
// reduction, so it takes the same thread layout (cx columns by Block / cx splits, then
// combine_column), rather than one thread walking all splits of a column one dependent load
// after another. `columns` is a power of two. Each thread keeps `Loads` loads in flight: the
// last block's reads are rounds of L2 round trips, splits x columns / (Block x Loads) of them.
// Column k goes to out[k * out_step].
template <int Block, int Loads = 4, typename Acc, typename Op, typename Out>
WARPFOLD_DEVICE void combine_splits(const Acc* partials, std::int64_t splits, std::int64_t columns, Out out,
                                    std::int64_t valid_columns, Op op, std::int64_t out_step = 1) {
  const int cx = columns < Block ? static_cast<int>(columns) : Block;
  const int cy = blockDim.x / cx;
  const int x = threadIdx.x % cx, y = threadIdx.x / cx;
  for (std::int64_t first = 0; first < columns; first += cx) {  // the same for the whole block
    const std::int64_t k = first + x;
    Acc total = op.template identity<Acc>();
    std::int64_t s = y;
    for (; s + (Loads - 1) * cy < splits; s += Loads * cy) {
      Acc v[Loads];
#pragma unroll
      for (int u = 0; u < Loads; ++u) v[u] = blocks::load_from_other_blocks(partials + (s + u * cy) * columns + k);
#pragma unroll
      for (int u = 0; u < Loads; ++u) total = op(total, v[u]);
    }
    for (; s < splits; s += cy) total = op(total, blocks::load_from_other_blocks(partials + s * columns + k));
    total = combine_column<Block>(total, cx, op);
    if (threadIdx.x < cx && k < valid_columns) out[k * out_step] = total;
  }
}

// The [gridDim.x, columns] partials of a whole grid, one row per block, added up into out.
// One block reading them all is a chain of L2 round trips, splits x columns / (Block x Loads)
// of them: 264 rows of 256 columns are nine, several microseconds at the end of every call.
// So with `band` > 1 the grid finishes in two levels, each a round or two: the last block of
// each band of `band` neighbouring blocks adds up the band's rows into a row of band_totals
// (while other bands still read), and the last band to finish adds up those rows. band_arrivals
// holds a counter per band (zero at rest, like `arrivals`). Fixed orders at both levels, so
// float results repeat for a given grid. Every thread calls it; returns whether this block wrote
// out (the last of all), for the caller to record the launch finished.
template <int Block, int Loads, typename Acc, typename Op, typename Out>
WARPFOLD_DEVICE bool finish_grid_partials(const Acc* partials, Acc* band_totals, unsigned int* band_arrivals,
                                          unsigned int* arrivals, int band, std::int64_t columns, Out out,
                                          std::int64_t valid_columns, Op op, std::int64_t out_step) {
  const unsigned int blocks_in_grid = gridDim.x;
  if (band <= 1) {
    if (!blocks::block_arrives_last(arrivals, blocks_in_grid)) return false;
    combine_splits<Block, Loads>(partials, blocks_in_grid, columns, out, valid_columns, op, out_step);
    return true;
  }
  const unsigned int my_band = blockIdx.x / band;
  const unsigned int first = my_band * band;
  const unsigned int rows = blocks_in_grid - first < unsigned(band) ? blocks_in_grid - first : unsigned(band);
  const unsigned int bands = (blocks_in_grid + band - 1) / band;
  if (!blocks::block_arrives_last(band_arrivals + my_band, rows)) return false;
  Acc* band_row = band_totals + std::int64_t(my_band) * columns;
  combine_splits<Block, Loads>(partials + std::int64_t(first) * columns, rows, columns, band_row, columns, op);
  if (!blocks::block_arrives_last(arrivals, bands)) return false;
  combine_splits<Block, Loads>(band_totals, bands, columns, out, valid_columns, op, out_step);
  return true;
}

}  // namespace warpfold::axis
