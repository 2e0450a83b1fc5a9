// Grid layer of the axis reductions: which kernel a plan gets, and how many blocks.
//
// - no kept axis: the production reduce's kernel (one output);
// - contiguous rows of 1, 2, 4, ... 32 vectors: flat_rows_kernel, the array read flat;
// - contiguous rows of up to 64 elements that are not whole vectors ([N, 3]), and longer
//   rows that do not start on 16-byte boundaries while a tile holds a few ([N, 157] floats):
//   tiled_rows_kernel, through shared memory, a group of lanes per long row;
// - of those and of the next kind, rows one stride apart of at least 24 vectors' worth that
//   the tile would take, or that groups would read in rounds of loads mostly empty ([N, 617]
//   floats: two rounds, 61% of the slots used), or whose groups' grid would fill its rounds
//   of blocks poorly (grid_fit), in inputs of eight rounds of loads per warp and more (about
//   130 MiB of floats): row_stream_kernel, the rows read flat in equal ranges per warp;
// - rows of short runs that lie side by side in memory, several runs an output ([B, K, L] over
//   B and L; under four vectors, or under sixteen in inputs of 4 MiB and more): columns_kernel
//   over the K x L slab, each output folding its L columns (merged_columns_for);
// - other rows of up to 2048 vectors and enough of them to fill the GPU: short_rows_kernel,
//   with groups of lanes per row (runs that are not whole vectors read as the aligned 16-byte
//   blocks that hold them, counted as such);
// - longer rows, too few rows, or outputs of several runs: row_chunks_kernel, blocks per
//   row, split further when there are fewer rows than resident blocks;
// - the rows kernels walk a permuted view's kept axes in memory order and write each output
//   where the output's order puts it (in_memory_order), when outputs read 32 bytes or more,
//   or when the axis innermost in memory is innermost in the output too;
// - kept innermost axis, [R, C] with C of 1, 2, 4, ... 32 vectors: flat_columns_kernel;
//   other [R, C] with C up to 256 elements (3 floats, 139 halves, any start), rows back to
//   back or with short gaps (a slice; rows wider than 64 or gapped in inputs of 16 K
//   elements and more): periodic_columns_kernel, also read flat;
// - kept innermost axes of 16-byte vectors over fewer than 8 rows (unaligned: 4), in inputs
//   of a column vector for every resident thread or more: few_rows_columns_kernel, each thread
//   one to four column items with all their rows' loads in flight;
// - narrow kept innermost axes (fewer than a warp's column items) in contiguous slabs of rows,
//   one slab per kept index and outer reduced index ([.., K, R, C] over R and more), slabs of
//   at least four vectors for each thread of a block: periodic_slabs_kernel, each slab read
//   flat in pieces (periodic_slabs_for);
// - other kept innermost axes: columns_kernel, split along the rows when there are fewer
//   column tiles than resident blocks, or, when each kept index has few rows for a tile's
//   threads (under two batches of loads each) and stacking waits on fewer round trips of
//   loads, neighbouring kept indices stacked in a block (a thread walks all rows of its column);
//   16-byte vectors of columns even where rows start unaligned (axis/shifted_vector.cuh), if
//   a row holds at least four;
// - narrow columns that are not whole aligned vectors (or have kept axes beside them in
//   memory), with the reduced axis just above them contiguous ([.., K, R, C] over R and more):
//   columns_kernel over each R x C slab, each output folding every C-th column of it
//   (interleaved_columns_for).
// - other narrow columns with kept axes beside them in memory (a permuted view): columns_kernel
//   over the columns and those axes as one row of columns, each output written where the
//   output's order puts it (mapped_period_columns_for).
// - before all of these, outputs that lie in memory in another order than in the output and
//   read a few elements each (a permuted [27, 649181, 3] over its last axis): a tiled transpose,
//   read along memory and written along the output (transposed_tiles_kernel), where its tiles
//   fill the GPU.
// Every case is one launch. Grids are at most one resident wave, with the work items spread
// evenly over them (a grid of 512 for 1024 items, not 528). Launches are dependent launches
// (blocks/dependent_launch.cuh); every kernel starts with wait_for_prior_kernels(). Kernels
// that split an output over blocks get scratch for its partials and arrival counters through
// the launcher (device/launcher.hpp); the others need none.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "warpfold/accumulator.hpp"
#include "warpfold/axis/columns_kernel.cuh"
#include "warpfold/axis/few_rows_columns_kernel.cuh"
#include "warpfold/axis/flat_columns_kernel.cuh"
#include "warpfold/axis/flat_rows_kernel.cuh"
#include "warpfold/axis/output.cuh"
#include "warpfold/axis/periodic_columns_kernel.cuh"
#include "warpfold/axis/periodic_slabs_kernel.cuh"
#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/row_chunks_kernel.cuh"
#include "warpfold/axis/row_stream_kernel.cuh"
#include "warpfold/axis/segments_kernel.cuh"
#include "warpfold/axis/short_rows_kernel.cuh"
#include "warpfold/axis/test_overrides.hpp"
#include "warpfold/axis/tiled_rows_kernel.cuh"
#include "warpfold/axis/transposed_tiles_kernel.cuh"
#include "warpfold/blocks/grid.cuh"
#include "warpfold/device/dispatch.cuh"
#include "warpfold/device/launcher.hpp"
#include "warpfold/device/reduce_kernel.cuh"
#include "warpfold/device/reduce_policy.hpp"

namespace warpfold::axis {

// Thresholds, as data.
struct axis_policy {
  // A row of up to this many items (16-byte vectors, or elements when rows are unaligned)
  // is one group's job, if there are at least rows_per_sm_for_groups rows per SM, or if fewer
  // rounds of loads wait one after another that way than with a block a row (group_rounds,
  // block_rounds); otherwise blocks take rows. 2048 vectors is an 8192-float row: 64 loads
  // per lane.
  static constexpr std::int64_t max_group_row_items = 2048;
  static constexpr std::int64_t rows_per_sm_for_groups = 32;
  // What a group's round weighs against a block's in that comparison: with fewer groups than
  // 32 an SM, a group's four loads a lane put less in flight than a block's eight, and each
  // round waits longer. H200, 2026-11-29, 93 random cases with fewer rows than 32 an SM, groups
  // against a block a row, by block_rounds / group_rounds: under 1.1, 8 of 10 slower with
  // groups (to 4.19x); 1.1 to 1.5, 5 faster and 2 slower (0.50x to 1.84x); 1.5 and over, 73 of
  // 76 faster by more than 2% (0.50x on geometric mean), one slower (1.29x).
  static constexpr double group_round_weight = 1.5;
  // Rows of at most this many items always go to groups: a block per row would idle.
  static constexpr std::int64_t always_group_row_items = 32;
  // A split row keeps at least this many bytes per block, so partials stay a small fraction
  // of the traffic.
  static constexpr std::int64_t min_chunk_bytes = 32 * 1024;
  // A split column tile keeps at least this many rows per thread.
  static constexpr std::int64_t min_rows_per_thread = 16;
  // Columns of 16-byte vectors over at most this many rows can be read by
  // few_rows_columns_kernel (launch_few_rows_columns says when the planner takes it), where a
  // thread holds all the loads of several items at once: the columns kernel's tiles would be
  // one row high, each thread one item and its few loads, one after another.
  static constexpr std::int64_t max_few_rows = min_rows_per_thread - 1;
  // The most scratch a split may use: 16 MiB of partials (4 M floats: a 4096-block grid that
  // each leaves 1024 columns) and one arrival counter per split output or column tile.
  static constexpr std::int64_t max_partial_bytes = std::int64_t{16} << 20;
  static constexpr std::int64_t max_counters = 16384;
  // Contiguous columns whose rows do not start on 16-byte boundaries are read as 16-byte
  // vectors by pairs of aligned loads (axis/shifted_vector.cuh) when a row holds at least this
  // many vectors' worth; a narrower row would mostly load bytes that it does not hold.
  static constexpr std::int64_t min_shifted_vectors = 4;
  // Runs side by side merge into columns (merged_columns_for) up to this many vectors' worth;
  // from max_short_merged_run_vectors on, only in inputs of min_longer_merge_bytes and more.
  static constexpr std::int64_t max_merged_run_vectors = 16;
  static constexpr std::int64_t max_short_merged_run_vectors = 4;
  static constexpr std::int64_t min_longer_merge_bytes = std::int64_t{4} << 20;
  static constexpr std::int64_t min_longer_merge_slab_items = 2 * blocks::warp_size;
  static constexpr std::int64_t min_shifted_rows_per_thread = 4;
  // Block space (block_space_columns) needs this many rows a thread (counted unsplit).
  static constexpr std::int64_t min_block_space_rows_per_thread = 16;
  // A column tile's work for one kept index (column items x rows) below which the columns
  // are read as rows of one element instead (small_column_tiles): a 512-thread block with
  // four loads in flight each.
  static constexpr std::int64_t min_column_tile_items = 2048;
  // Such columns, when there are fewer outputs than the GPU has lanes, are read as strided
  // runs where each lane of a group gets at least this many elements, or the groups fit in a
  // wave and each output has at least this many (small_tiles_as_rows).
  static constexpr std::int64_t min_strided_lane_elements = 4;
  static constexpr std::int64_t min_strided_output_elements = 16;
  // Such columns of 16-byte vectors go to the columns kernel's stacked tiles instead, where it
  // stacks them, in inputs of at least this many bytes (small_column_tiles says why); copies
  // (no reduced run) only where a stacked tile holds at least four of their rows, a tile of at
  // most this many column vectors (launch says why).
  static constexpr std::int64_t min_stacked_small_tile_bytes = std::int64_t{1} << 20;
  static constexpr int most_stacked_copy_items = 128;
  // Contiguous rows up to this long that the flat kernels cannot take go through shared
  // memory (tiled_rows_kernel), when the gap after each row is at most max_tiled_gap elements
  // (read along with the rows) and a tile holds at least min_tiled_rows rows.
  static constexpr std::int64_t max_tiled_row = 64;
  static constexpr std::int64_t max_tiled_gap = 4;
  static constexpr std::int64_t min_tiled_rows = 32;
  // Narrow columns merged with the kept axes beside them in memory (mapped_period_columns_for)
  // when the narrow plan had fewer kept indices than the GPU has SMs: only in inputs of at
  // least this many bytes. H200, 2026-11-28, 67 random cases, narrow -> merged: below it,
  // with 2 to 131 kept indices, 18 of 23 cases slower (bf16 5x2701x27x13 over {0, 1}, 9 MiB
  // and 13 kept indices, 10.5 -> 16.8 us); above it, all 4 faster: f16 3x7x5050305 over {2}
  // (7 kept) 141.4 -> 102.7 us, f32 5x2x276x472x17x3 over {2, 3} (30) 96.3 -> 74.6, bf16
  // 79622x5x17x7 over {0} (35) 57.5 -> 40.3; with 132 kept indices or more, 30 of 32 faster,
  // to 0.20x (one slower: f32 64x1x2x35x2x841 over {1, 5}, 140 kept, 12.9 -> 15.2 us).
  static constexpr std::int64_t min_mapped_bytes_few_kept = std::int64_t{64} << 20;
  // Wider slabs of columns whose column tiles would be small go through the tile too while
  // it holds at least this many (wide_tiled_slabs_for).
  static constexpr std::int64_t min_wide_slabs_per_tile = 2;
  // Longer rows that are not whole aligned vectors also go through the tile, a group of lanes
  // per row, while a tile holds at least this many (rows of up to 2.4 KB: 614 floats), with
  // gaps of at most an eighth of a row (a slice's gaps are read, and count as reading). H100,
  // 2026-11-28, f32 [2^26 / L, L] along dim 1, rows kernel -> tile: L = 65 281.6 -> 117.3 us,
  // 157 179.7 -> 119.8, 333 133.6 -> 122.3, but 617 (4 rows a tile) 119.0 -> 134.6; i32 rows
  // of 587 and bf16 rows of 805 (5 and 7 a tile) 1.13x and 1.15x faster.
  static constexpr std::int64_t min_long_tiled_rows = 5;
  static constexpr std::int64_t long_tiled_gap_divisor = 8;
  // The largest gap after a long row that a kernel reading rows and gaps alike accepts.
  static constexpr std::int64_t max_long_row_gap(std::int64_t row_length) {
    return std::max(max_tiled_gap, row_length / long_tiled_gap_divisor);
  }
  // Regular rows streamed flat (row_stream_kernel): rows of at least this many vectors' worth
  // of elements, gaps as for long tiled rows, and enough rows that no row is split over more
  // than max_stream_parts_per_row warps (a warp adds up a split row's parts); instead of the
  // tile, or of groups whose rounds of loads hold row items in less than min_group_slot_use of
  // their slots. H100, 2026-11-28, f32 [2^26 / L, L] along dim 1, 256 MiB, before -> streamed:
  // L = 157 120.0 -> 111.9 us, 333 122.3 -> 108.9, 617 (61% of a group's slots) 118.7 ->
  // 105.4; but 65 117.3 -> 183.9 (two row ends in most rounds of a warp's loads, each a warp
  // reduction), and rows whose groups fill most of their slots lost: 808 (79%) 95.1 -> 104.0,
  // 1000 (98%) 94.6 -> 103.9, 8192 94.0 -> 99.5. Streamed, long rows reach 86-88% of the read
  // ceiling, where a group's full rounds reach 91%.
  static constexpr std::int64_t min_stream_row_vectors = 24;
  static constexpr std::int64_t max_stream_parts_per_row = 64;
  static constexpr double min_group_slot_use = 0.7;
  // Likewise when the groups' grid fills its last round poorly (grid_fit::use): a group per
  // row reads its row at the groups' 91%, but only while the wave is full, so rows that fill
  // less than this share of the rounds' block slots stream instead (about the ratio of the
  // two kernels' rates on long rows). f16 [6805, 7473] along dim 1: 426 work items on 264
  // slots, 81%, ran at 43% of the read ceiling (H200, 2026-11-28).
  static constexpr double min_group_wave_use = 0.95;
  // Streamed only when every warp of a full grid has at least this many rounds of its loads:
  // a warp folds its rows' ends one at a time (a warp reduction each), which other warps'
  // loads hide only when there are many rounds to overlap. H100, 2026-11-28, streamed against
  // not: 256 MiB of f32 rows (15 rounds a warp) 6-13% faster, but f32 [100000, 161] (16 MiB, one
  // round) 1.24x and f16 15x7x227x3x140 over {2} (19 MiB, two rounds) 1.84x slower, and arrays
  // of 1 MiB up to 4.7x.
  static constexpr std::int64_t min_stream_rounds = 8;
  // One [R, C] matrix read flat (periodic_columns_kernel): rows back to back of up to this
  // many elements at any size; wider rows (up to max_periodic_columns) and rows with gaps in
  // inputs of at least min_periodic_elements elements. Below that the flat kernel's 1024-thread
  // block finishes (stages its accumulators, gathers the columns, combines) for a few loads:
  // H200, 2026-11-29, columns kernel -> flat, inputs under 16 K elements: 4-byte ones 9 of 10
  // slower (f32 140x4x1x2 over {0}, rows of 2 with a gap of 2, 3.7 -> 5.0 us), 2-byte ones
  // 0.85-1.50; from 16 K elements up, 183 cases 0.75 on geometric mean (f16 [285749, 139]
  // over {0}, 75 MiB, 44.1 -> 25.5 us), 9 slower by more than 2% (worst f32 [19155, 253],
  // 13.3 -> 14.9 us: rows that fill the columns kernel's tiles already).
  static constexpr std::int64_t max_periodic_columns_always = 64;
  static constexpr std::int64_t min_periodic_elements = 16 * 1024;
  // Transposed tiles: transposed_tiles_policy (axis/transposed_tiles_plan.hpp).
};

// Segments by offsets (axis/segments_kernel.cuh).
struct segments_policy {
  static constexpr std::int64_t claims_per_block = 4;
  // A segment of 8 KB or more is listed and read by many warps: a warp alone reads it at a
  // few GB/s, and one such segment left at the end would hold up the launch.
  static constexpr std::int64_t long_bytes = 8 * 1024;
  // Listed segments are cut in chunks of at least 32 KB: eight passes of a warp's 16-byte
  // loads, eight in flight per lane. A chunk's claim, owner and entry are three round trips
  // before its first load, so a warp streams only between them; with 16 KB chunks that was
  // 4 of every 7 round trips, and 16 segments of 2^22 floats ran at 56% of the bandwidth of
  // warpfold's own sum, against 77% with 32 KB, 79% with 64 KB and 80% with 128 KB (H100,
  // 2026-11-24). 2^26 floats still make 8192 chunks to share.
  static constexpr std::int64_t chunk_bytes = 32 * 1024;
  // 8192 listed segments and 65536 chunks (256 KB of counters, 1.4 MB of entries and
  // partials at most). Long segments that do not fit are reduced by the warp that found them:
  // with that many long segments, whole segments per warp balance anyway.
  static constexpr int list_capacity = 8192;
  static constexpr std::int64_t slot_capacity = 65536;
};

inline int power_of_two_at_least(std::int64_t n, int cap) {
  int p = 1;
  while (p < n && p < cap) p *= 2;
  return p;
}

inline int power_of_two_at_most(std::int64_t n) {
  int p = 1;
  while (2 * std::int64_t(p) <= n && p < (1 << 30)) p *= 2;
  return p;
}

// A grid of at most `wave` blocks that gives every block the same number of work items
// (give or take one).
inline std::int64_t balanced_grid(std::int64_t work, std::int64_t wave) {
  if (work <= 0) return 1;
  const std::int64_t rounds = blocks::ceil_div(work, wave);
  return blocks::ceil_div(work, rounds);
}

// Whether every row (rows: each run; columns: each row of columns) of plan p starts 16-byte
// aligned and is whole vectors, so that the kernels may read it 16 bytes at a time with no
// head or tail. A row-major array needs only an aligned start and a length that is whole
// vectors; a view's strides must also be whole vectors.
template <typename T>
bool rows_vector_aligned(const T* in, const plan& p, std::int64_t row_length) {
  constexpr int V = blocks::vector16<T>::size;
  if (p.inner_stride != 1 || !blocks::is_vector_aligned(in) || row_length % V != 0) return false;
  for (const strided_dims* d : {&p.kept, &p.runs})
    for (int i = 0; i < d->count; ++i)
      if (d->stride[i] % V != 0) return false;
  return true;
}

// Bytes of the view's elements (every output reads `reduced` of them).
template <typename T>
std::int64_t view_bytes(const plan& p) {
  return p.outputs * p.reduced * std::int64_t(sizeof(T));
}

// One past the largest element offset that plan p reads (strides are not negative).
inline std::int64_t end_offset(const plan& p) {
  const std::int64_t along_inner = p.kind == plan_kind::columns ? p.columns : p.run_length;
  std::int64_t last = (along_inner - 1) * p.inner_stride;
  for (const strided_dims* d : {&p.kept, &p.runs})
    for (int i = 0; i < d->count; ++i) last += (d->extent[i] - 1) * d->stride[i];
  return last + 1;
}

// How short_rows_kernel would take plan p's outputs: as 16-byte vectors when every run starts
// aligned, and how many lanes per output. Regular rows (one run each, a fixed stride apart)
// take the kernel's fast path.
template <typename T>
short_rows_shape short_rows_shape_for(const T* in, const plan& p) {
  constexpr int V = blocks::vector16<T>::size;
  short_rows_shape shape{};
  shape.rows = p.outputs;
  shape.regular = p.runs.count == 0 && p.kept.count <= 1;
  shape.row_stride = p.kept.count ? p.kept.stride[0] : 0;
  shape.row_length = p.run_length;
  shape.inner_stride = p.inner_stride;
  shape.vectorized = rows_vector_aligned(in, p, p.run_length);
  shape.shifted = !shape.vectorized && p.inner_stride == 1 && p.run_length >= V;
  shape.end = shape.shifted ? end_offset(p) : 0;
  shape.items = shape.vectorized ? shape.row_length / V
                : shape.shifted  ? (shape.row_length + 2 * V - 2) / V  // blocks a row touches, at most
                                 : shape.row_length;
  // A group as wide as one run, so that neighbouring groups read neighbouring runs when
  // the outputs are neighbours in memory (a 4-D array over two interleaved axes).
  shape.group_size = power_of_two_at_least(shape.items, blocks::warp_size);
  const std::int64_t per_lane = blocks::ceil_div(shape.items, shape.group_size);
  shape.rows_in_flight = per_lane <= 1 ? 4 : per_lane <= 2 ? 2 : 1;
  return shape;
}

// log2 of a row's vector count when the flat kernels can take it (1, 2, 4, ... 32 vectors,
// 16-byte aligned), else -1.
inline int flat_row_log2(bool vectorized, std::int64_t row_vectors) {
  if (!vectorized) return -1;
  for (int log2 = 0; (1 << log2) <= blocks::warp_size; ++log2)
    if (row_vectors == (std::int64_t{1} << log2)) return log2;
  return -1;
}


// At most one resident wave, and no block without a full round of loads to issue.
template <typename Kernel>
unsigned flat_grid(std::int64_t vectors, Kernel kernel, const device::device_facts& dev) {
  const std::int64_t wave = std::int64_t(dev.sm_count) * blocks::blocks_per_sm(kernel, flat_block, dev.device);
  const std::int64_t work = blocks::ceil_div(vectors, std::int64_t(flat_block) * flat_loads_in_flight);
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min(work, wave)));
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
void launch_flat_rows(const T* in, const short_rows_shape& rows, int log2_row_vectors, Out out, Op op, ToAcc to_acc,
                      device::launcher& l) {
  auto kernel = flat_rows_kernel<T, Acc, Op, ToAcc, Out>;
  const std::int64_t vectors = rows.rows * rows.items;
  l.launch(kernel, flat_grid(vectors, kernel, l.facts()), flat_block, in, vectors, log2_row_vectors, out, op, to_acc);
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
void launch_flat_columns(const T* in, const plan& p, int log2_row_vectors, Out out, Op op, ToAcc to_acc,
                         device::launcher& l) {
  auto kernel = flat_columns_kernel<T, Acc, Op, ToAcc, Out>;
  const std::int64_t vectors = p.runs.size() * (p.columns / blocks::vector16<T>::size);
  // Each block leaves p.columns partials (at most 32 vectors' worth: a few hundred).
  const std::int64_t by_partials = std::int64_t(axis_policy::max_partial_bytes / sizeof(Acc)) / p.columns;
  const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(flat_grid(vectors, kernel, l.facts()), by_partials));
  // One finish over the grid, on the launch word; a row of partials per block.
  const device::scratch_request scratch{1, 0, std::int64_t(grid) * p.columns * std::int64_t(sizeof(Acc))};
  l.launch_with_scratch(kernel, grid, flat_block, 0, scratch, in, vectors, log2_row_vectors, out, op, to_acc);
}

// The band of blocks that finish_grid_partials (axis/column_combine.cuh) combines first, for
// `grid` rows of `columns` partials: 1 (one level, the last block reads every row) while that
// takes at most three rounds of `loads` loads per thread of a `block`-thread block; otherwise
// about the square root of the grid (264 blocks: 16 bands of 17), so each level is a round.
// H200, 2026-11-29, f32 [R, C] over dim 0, 64 MiB, 264 blocks: one level -> two, C = 65
// (rows of 128 partials, four rounds) 25.0 -> 23.5 us, C = 139 (256, eight rounds) 28.8 ->
// 24.3; but C = 41 (64, two rounds) 22.3 -> 23.0: the second level's arrival costs about a
// round.
inline int grid_finish_band(std::int64_t grid, std::int64_t columns, int block, int loads) {
  if (grid * columns <= 3 * std::int64_t(block) * loads) return 1;
  int band = 1;
  while (std::int64_t(band) * band < grid) ++band;
  return band;
}

// The row stride S of plan p when periodic_columns_kernel takes it, else 0: one [R, C]
// matrix along dim 0 (no other kept axis, one reduced axis), C up to max_periodic_columns
// elements of unit stride, rows S >= C apart with a gap after each of at most what the kernels
// that read rows and gaps alike accept (max_long_row_gap: the gap is read and counts as
// reading). Rows back to back of up to 64 elements always; wider rows, or rows with a gap,
// from min_periodic_elements elements on.
inline std::int64_t periodic_row_stride(const plan& p) {
  if (p.kept.size() != 1 || p.runs.count != 1 || p.inner_stride != 1 || p.columns > max_periodic_columns) return 0;
  const std::int64_t stride = p.runs.stride[0];
  const bool short_gap = stride >= p.columns && stride - p.columns <= axis_policy::max_long_row_gap(p.columns);
  const bool narrow_and_contiguous = stride == p.columns && p.columns <= axis_policy::max_periodic_columns_always;
  const bool enough = p.runs.size() * stride >= axis_policy::min_periodic_elements;
  return short_gap && (narrow_and_contiguous || enough) ? stride : 0;
}

// One [R, C] matrix of narrow columns read flat (periodic_columns_kernel), rows `row_stride`
// apart. The threads that read are the most of the grid whose count times V is a multiple of
// the row stride: all but fewer than S.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
void launch_periodic_columns(const T* in, const plan& p, std::int64_t row_stride, Out out, Op op, ToAcc to_acc,
                             device::launcher& l) {
  constexpr std::int64_t V = blocks::vector16<T>::size;
  auto kernel = periodic_columns_kernel<T, Acc, Op, ToAcc, Out>;
  const std::int64_t elements = (p.runs.size() - 1) * row_stride + p.columns;
  const unsigned grid = flat_grid(blocks::ceil_div(elements, V), kernel, l.facts());
  const std::int64_t period = row_stride / std::gcd(row_stride, V);
  const std::int64_t active = std::int64_t(grid) * flat_block / period * period;
  const int padded = power_of_two_at_least(p.columns, max_periodic_columns);
  const int band = grid_finish_band(grid, padded, flat_block, periodic_combine_loads);
  const std::int64_t bands = band > 1 ? blocks::ceil_div(std::int64_t(grid), std::int64_t(band)) : 0;
  // One finish over the grid, on the launch word, and a counter per band; a row of (padded)
  // partials per block, then one per band.
  const device::scratch_request scratch{1, bands, (grid + bands) * padded * std::int64_t(sizeof(Acc))};
  l.launch_with_scratch(kernel, grid, flat_block, 0, scratch, in, elements, active, static_cast<int>(row_stride),
                        static_cast<int>(p.columns), padded, band, p.column_out_stride, out, op, to_acc);
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
auto short_rows_kernel_for(const short_rows_shape& shape) {
  return !shape.regular ? (shape.shifted ? short_rows_kernel<T, Acc, Op, ToAcc, Out, false, true>
                                         : short_rows_kernel<T, Acc, Op, ToAcc, Out, false>)
         : shape.shifted ? short_rows_kernel<T, Acc, Op, ToAcc, Out, true, true>
                         : short_rows_kernel<T, Acc, Op, ToAcc, Out, true>;
}

// short_rows_kernel's work items (blocks of groups of rows) and its resident wave of blocks.
struct grid_fit {
  std::int64_t work;
  std::int64_t wave;
  // The share of the wave's block slots that the grid's rounds fill: 426 items on 264 slots
  // are two rounds, 81% filled (the last round runs 162 of 264 blocks).
  double use() const { return double(work) / double(blocks::ceil_div(work, wave) * wave); }
};
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
grid_fit short_rows_grid(const short_rows_shape& shape, device::launcher& l) {
  const std::int64_t rows_per_warp =
      std::int64_t(blocks::warp_size / shape.group_size) * (shape.regular ? shape.rows_in_flight : 1);
  const std::int64_t warps = blocks::ceil_div(shape.rows, rows_per_warp);
  const std::int64_t work = blocks::ceil_div(warps, short_rows_block / blocks::warp_size);
  auto kernel = short_rows_kernel_for<T, Acc, Op, ToAcc, Out>(shape);
  return {work, std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, short_rows_block, l.device())};
}

// Groups of lanes or a block a row, for rows that groups can take but that are too few to give
// every SM 32 groups: which way waits on fewer rounds of loads one after another? Both kernels
// run two 512-thread blocks an SM; with few rows, neither has loads enough in flight to keep
// memory busy, so a kernel's time is about its chain of round trips.
// - Groups: a group per row (or per few rows), each lane with load_slots loads in flight. A
//   lane waits ceil(items a lane x rows in flight / load_slots) rounds for its row, once per
//   round of the grid's blocks. 4096 rows of 4096 floats (1024 vectors, 32 lanes): 8. An
//   output of several runs is read a few runs at a time (axis/run_lattice.cuh: load_slots
//   runs in flight for each of the group's teams of lanes), a round per step through them:
//   55 outputs of 10 runs of 167 halves, 22 blocks each, one team of 32 lanes: 3.
// - A block a row (row_chunks_kernel): 512 threads of eight loads take 4096 vectors a round,
//   and the block then adds up its row (a block reduction, about a round more), once per round
//   of rows over the wave of blocks; where there are fewer rows than blocks, the blocks split
//   each row and combine their parts (another round). 4096 rows of 4096 floats: 16 x 2 = 32.
// H200, 2026-11-29, f32 [R, L] along dim 1, a block a row -> groups: 4096 x 4096 48.4 -> 79.5% of
// the read ceiling, 2797 x 2999 31.6 -> 50.7%, 1405 x 1493 16.3 -> 30.4%, 2996 x 700 10.8 ->
// 38.2%; where the model keeps blocks, groups measured slower: 512 x 4096 32.8 -> 23.7%,
// 699 x 2999 24.0 -> 19.0%, and bf16 rows of 14429 on 1170 rows 2.3x as long.
// The items of a regular row that a group reads in one round of its lanes' load slots (the
// slots go across rows_in_flight rows, then along them).
inline std::int64_t group_round_items(const short_rows_shape& rows) {
  return std::int64_t(rows.group_size) * (load_slots / rows.rows_in_flight);
}
inline std::int64_t group_rounds(const short_rows_shape& rows, std::int64_t runs, const grid_fit& grid) {
  std::int64_t per_output;
  if (rows.regular) {
    per_output = blocks::ceil_div(rows.items, group_round_items(rows));
  } else {
    const run_lattice lattice = lattice_for(rows.items, rows.group_size);
    per_output = blocks::ceil_div(runs, std::int64_t(lattice.runs_per_step) * load_slots) *
                 blocks::ceil_div(rows.items, std::int64_t(lattice.item_slots));
  }
  return blocks::ceil_div(grid.work, grid.wave) * per_output;
}
inline std::int64_t block_rounds(std::int64_t outputs, std::int64_t output_items, std::int64_t wave) {
  constexpr std::int64_t per_round = std::int64_t(row_chunks_block) * row_loads_in_flight;
  if (outputs >= wave) return blocks::ceil_div(outputs, wave) * (blocks::ceil_div(output_items, per_round) + 1);
  return blocks::ceil_div(output_items, wave / outputs * per_round) + 2;
}

// `grid`: short_rows_grid's answer for `shape`, which launch_rows asked to choose the kernel.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
void launch_short_rows(const T* in, const plan& p, const short_rows_shape& shape, const grid_fit& grid, Out out, Op op,
                       ToAcc to_acc, device::launcher& l) {
  l.launch(short_rows_kernel_for<T, Acc, Op, ToAcc, Out>(shape), static_cast<unsigned>(balanced_grid(grid.work, grid.wave)),
           short_rows_block, in, p, shape, out, op, to_acc);
}

// Which tiles tiled_rows_fit accepts: short rows or slabs only (a thread per output, many to
// a tile); also longer plain rows, a few to a tile; or slabs of any length, a few to a tile
// (wide_tiled_slabs_for).
enum class tile_rule { short_only, long_rows, wide_slabs };

template <typename T>
bool tiled_rows_fit(tiled_rows_shape& shape, tile_rule rule = tile_rule::short_only);

// Plan p's rows as tiled_rows_kernel takes them (one run per output, contiguous runs, at
// most two kept dimensions: blocks of rows, and rows), if they suit it: short (or, with
// tile_rule::long_rows, a few to a tile), small gaps, enough rows per tile.
template <typename T>
bool tiled_rows_for(const plan& p, tiled_rows_shape& shape, tile_rule rule = tile_rule::short_only) {
  if (p.runs.count != 0 || p.kept.count > 2 || p.inner_stride != 1) return false;
  const int inner = p.kept.count - 1;  // the rows' dimension, if any
  shape.rows = inner >= 0 ? p.kept.extent[inner] : 1;
  shape.row_stride = inner >= 0 ? p.kept.stride[inner] : p.run_length;
  shape.row_length = p.run_length;
  shape.blocks_of_rows = p.kept.count == 2 ? p.kept.extent[0] : 1;
  shape.outer_stride = p.kept.count == 2 ? p.kept.stride[0] : 0;
  shape.columns = 1;
  shape.order = p.out_order;
  return tiled_rows_fit<T>(shape, rule);
}

// A columns plan whose elements of each kept index lie in one stretch of memory, its slab
// ([B, R, C] over R; or rows S > C apart, a slice of the columns' axis), with the output in
// the kept order (at most two kept axes, the columns' axis last), as tiled_rows_kernel takes
// slabs: each tile row is a slab. Leaves rows_per_tile and group to the callers.
inline bool slabs_shape_for(const plan& p, tiled_rows_shape& shape) {
  if (p.runs.count != 1 || p.runs.stride[0] < p.columns || p.kept.count > 2 || p.inner_stride != 1 ||
      p.column_out_stride != 1)
    return false;
  const int inner = p.kept.count - 1;
  shape.columns = p.columns;
  shape.slab_rows = p.runs.extent[0];
  shape.slab_row_stride = p.runs.stride[0];
  shape.row_length = (shape.slab_rows - 1) * shape.slab_row_stride + p.columns;
  shape.rows = inner >= 0 ? p.kept.extent[inner] : 1;
  shape.row_stride = inner >= 0 ? p.kept.stride[inner] : shape.row_length;
  shape.blocks_of_rows = p.kept.count == 2 ? p.kept.extent[0] : 1;
  shape.outer_stride = p.kept.count == 2 ? p.kept.stride[0] : 0;
  return true;
}

// Short contiguous slabs (R x C small, a thread per output), the tile's first use for columns.
template <typename T>
bool tiled_slabs_for(const plan& p, tiled_rows_shape& shape) {
  return slabs_shape_for(p, shape) && shape.slab_row_stride == shape.columns && tiled_rows_fit<T>(shape);
}

// Wider slabs, for the columns plans whose column tiles would be small (small_column_tiles):
// there a block's column tile holds one kept index's few dozen elements, and as rows of one
// element (small_tiles_as_rows) each lane walks its output's rows one load at a time (f16
// 753x300x26x3 over {2}: 677,700 outputs of 26 elements, 51 us where torch takes 20; H200,
// 2026-11-28). Through the tile, a block streams a stretch of several slabs and adds up their
// outputs from shared memory, a group of lanes per output when the tile holds fewer outputs
// than the block has threads (each lane then adds up about a thread's share of the tile,
// whatever the slab's shape). A slab must leave room for at least min_wide_slabs_per_tile in a
// tile, and its gap to the next (a slice's) be small, as for long rows.
template <typename T>
bool wide_tiled_slabs_for(const plan& p, tiled_rows_shape& shape) {
  return slabs_shape_for(p, shape) && tiled_rows_fit<T>(shape, tile_rule::wide_slabs);
}

// Whether rows (or slabs) of `shape` suit tiled_rows_kernel under `rule`: short ones, with
// small gaps, enough per tile; or longer ones (tile_rule::long_rows: plain rows; or, with
// tile_rule::wide_slabs, slabs of any length), with gaps as for long rows, a few per tile.
// Fills in rows_per_tile and group.
template <typename T>
bool tiled_rows_fit(tiled_rows_shape& shape, tile_rule rule) {
  // Rows of no elements, or overlapping ones (a broadcast: stride 0), are not for tiles.
  if (shape.row_length <= 0 || shape.row_stride < shape.row_length) return false;
  const std::int64_t gap = shape.row_stride - shape.row_length;
  const bool short_row = rule != tile_rule::wide_slabs && shape.row_length <= axis_policy::max_tiled_row;
  if (!short_row && rule == tile_rule::short_only) return false;
  if (gap > (short_row ? axis_policy::max_tiled_gap : axis_policy::max_long_row_gap(shape.row_length))) return false;
  shape.rows_per_tile = std::min(shape.rows, tiled_rows_per_tile<T>(shape.row_stride, shape.row_length));
  const std::int64_t fewest = short_row                       ? axis_policy::min_tiled_rows
                              : rule == tile_rule::wide_slabs ? axis_policy::min_wide_slabs_per_tile
                                                              : axis_policy::min_long_tiled_rows;
  if (shape.rows_per_tile < fewest) return false;
  // Longer rows and wide slabs: about one lane per thread of the block across the tile's
  // outputs, and at least two elements a lane (19 rows of 157 floats take 8 lanes each). Short
  // rows keep a thread each: in groups of 2 (with the group's index arithmetic then in the
  // fold), rows of 41 and 61 halves and floats took 1.2x as long (H100, 2026-11-28).
  shape.group = 1;
  if (!short_row) {
    const std::int64_t outputs = shape.rows_per_tile * shape.columns;
    const std::int64_t output_elements = shape.columns == 1 ? shape.row_length : shape.slab_rows;
    const std::int64_t group = std::min(tiled_rows_block / outputs, output_elements / 2);
    shape.group = std::clamp(power_of_two_at_most(std::max<std::int64_t>(1, group)), 1, blocks::warp_size);
  }
  return true;
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
void launch_tiled_rows(const T* in, const tiled_rows_shape& shape, Out out, Op op, ToAcc to_acc, device::launcher& l) {
  auto kernel = tiled_rows_kernel<T, Acc, Op, ToAcc, Out>;
  const std::int64_t tiles = blocks::ceil_div(shape.rows, shape.rows_per_tile) * shape.blocks_of_rows;
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, tiled_rows_block, l.device());
  l.launch(kernel, static_cast<unsigned>(balanced_grid(tiles, wave)), tiled_rows_block, in, shape, out, op, to_acc);
}

// Regular rows (one run each, one stride apart) as row_stream_kernel takes them, if they suit
// it: contiguous elements, small gaps, long enough rows, and enough of them.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
bool launch_row_stream(const T* in, const plan& p, const short_rows_shape& rows, Out out, Op op, ToAcc to_acc,
                       device::launcher& l) {
  constexpr std::int64_t V = blocks::vector16<T>::size;
  if (!rows.regular || p.inner_stride != 1 || rows.rows < 2 ||
      rows.row_length < axis_policy::min_stream_row_vectors * V)
    return false;
  const std::int64_t gap = rows.row_stride - rows.row_length;
  if (gap < 0 || gap > axis_policy::max_long_row_gap(rows.row_length)) return false;
  auto kernel = row_stream_kernel<T, Acc, Op, ToAcc, Out>;
  row_stream_shape s{};
  s.rows = rows.rows;
  s.row_stride = rows.row_stride;
  s.row_length = rows.row_length;
  s.head = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in) % blocks::vector_bytes) / std::int64_t(sizeof(T));
  s.vectors = blocks::ceil_div(s.end(s.rows - 1), V);
  s.order = p.out_order;
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, row_stream_block, l.device());
  const std::int64_t round = std::int64_t(row_stream_slots<T>) * blocks::warp_size;
  s.warps = wave * row_stream_warps;
  if (testing::forced_row_stream()) {
    // Tests: smaller grids too, down to a round a warp (and a single warp).
    s.warps = std::max<std::int64_t>(1, std::min(s.warps, s.vectors / round));
  } else if (s.vectors < s.warps * round * axis_policy::min_stream_rounds) {
    return false;
  }
  if ((s.vectors / s.warps + 1) * V > std::numeric_limits<int>::max()) return false;  // 32-bit positions in a range
  if (s.rows * axis_policy::max_stream_parts_per_row < s.warps) return false;
  const std::int64_t split = row_stream_split_rows(s, sizeof(T));
  const device::scratch_request scratch =
      split > 0 ? device::scratch_request{split, s.warps, 2 * s.warps * std::int64_t(sizeof(Acc))} : device::scratch_request{};
  l.launch_with_scratch(kernel, static_cast<unsigned>(blocks::ceil_div(s.warps, row_stream_warps)), row_stream_block, 0,
                        scratch, in, s, out, op, to_acc);
  return true;
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
void launch_row_chunks(const T* in, const plan& p, Out out, Op op, ToAcc to_acc, device::launcher& l) {

  // Runs of fewer vectors than the block has threads are short (row_chunks_kernel says how
  // each mode reads them). Unaligned runs from 64 elements on go to teams sized so that each
  // lane has about four vectors of its run (at least a vector's elements: the head and tail).
  constexpr int V = blocks::vector16<T>::size;
  const std::int64_t run_vectors = blocks::ceil_div(p.run_length, V);
  runs_mode mode = runs_mode::long_runs;
  int team = row_chunks_block;
  const int runs_team = std::max(V, std::min(row_chunks_block, power_of_two_at_most(std::max<std::int64_t>(1, run_vectors / 4))));
  if (p.runs.count == 0 && p.inner_stride != 1) {
    mode = runs_mode::element_lattice;
  } else if (p.runs.count > 0 && (run_vectors < row_chunks_block || p.inner_stride != 1)) {
    if (rows_vector_aligned(in, p, p.run_length)) {
      mode = runs_mode::vector_lattice;
    } else if (p.run_length >= 64 && p.inner_stride == 1) {
      mode = runs_mode::team_runs;
      team = runs_team;
    } else {
      mode = runs_mode::element_lattice;
    }
  } else if (p.runs.size() > 1 && run_vectors < std::int64_t{row_loads_in_flight} * row_chunks_block) {
    // Several runs of one to eight rounds of the block's loads: teams too. With the whole
    // block on each run in turn, a run of 635 vectors was one load a thread and a fifth of the
    // threads with a second, then a round trip before the next run: a sliced [29391, 2540]
    // f32 summed whole took 182 us, 36% of the read ceiling (H200, 2026-11-30).
    mode = runs_mode::team_runs;
    team = runs_team;
  }
  const bool lattice = mode == runs_mode::vector_lattice || mode == runs_mode::element_lattice;
  auto kernel = lattice ? row_chunks_kernel<T, Acc, Op, ToAcc, Out, true>
                        : row_chunks_kernel<T, Acc, Op, ToAcc, Out, false>;
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, row_chunks_block, l.device());
  std::int64_t chunks = 1;
  if (p.outputs < wave && p.outputs <= axis_policy::max_counters) {
    const std::int64_t per_output = p.runs.size() * p.run_length;
    const std::int64_t by_size = std::max<std::int64_t>(1, per_output * std::int64_t(sizeof(T)) / axis_policy::min_chunk_bytes);
    const std::int64_t by_partials = std::int64_t(axis_policy::max_partial_bytes / sizeof(Acc)) / p.outputs;
    // Whole waves only: 16 rows of 17 chunks would be 272 items, one more round than 264.
    chunks = std::max<std::int64_t>(1, std::min({wave / p.outputs, by_size, by_partials}));
    if (mode != runs_mode::long_runs && p.runs.count > 0) chunks = std::min(chunks, p.runs.size());  // whole runs
  }
  // Teams take whole runs of a chunk: where a chunk has fewer runs than the block has teams
  // (8 runs of 339 int32s an output: 8 teams of 16 lanes busy, 24 idle), the teams widen so that
  // every lane has a share of a run.
  if (mode == runs_mode::team_runs) {
    const std::int64_t runs_per_chunk = blocks::ceil_div(p.runs.size(), chunks);
    team = std::max(team, std::min(row_chunks_block, power_of_two_at_most(row_chunks_block / runs_per_chunk)));
  }
  const std::int64_t work = p.outputs * chunks;
  // Split outputs: each output a group with an arrival counter of its own, a partial per
  // (output, chunk).
  const device::scratch_request scratch = chunks > 1
      ? device::scratch_request{p.outputs, p.outputs, work * std::int64_t(sizeof(Acc))} : device::scratch_request{};
  l.launch_with_scratch(kernel, static_cast<unsigned>(balanced_grid(work, wave)), row_chunks_block, 0, scratch, in, p, chunks,
                        mode, team, out, op, to_acc);
}

// Columns of 16-byte vectors over few rows (few_rows_columns_kernel), where the columns kernel
// would load a thread's rows one after another: fewer rows than its batch of loads (8, or 4
// pairs where rows start unaligned). With that many rows or more, it has a batch in flight at
// 1024 threads an SM, and this kernel (80 registers, 768 threads) mostly lost: H200,
// 2026-11-29, 40 random cases, columns kernel -> this one: with fewer rows, 32 cases, 0.82x
// on geometric mean, 29 faster by more than 2% (bf16 [6326, 2, 9371] over the 2, 226 MiB,
// 297.4 -> 184.2 us; f32 [2, 33554432] along dim 0 139.6 -> 115.0, 64% -> 78% of the read
// ceiling), f32 [3, 49884975] and [2, 486939] 1.05x slower; with more, bf16 13 and 15 aligned
// rows of a transposed and a permuted view 1.50x and 1.30x and f32 4 unaligned rows 1.21x
// slower (but i32 13 rows 0.74x, f32 [15, 4194304] 0.92x). Inputs with fewer column items
// than the GPU has resident threads also stay on the columns kernel: a few load round trips
// either way, where the two timings taken differed by less than the spread between runs.
// Each thread takes as many column items as fill its batch of loads, but no more than leave
// every resident thread an item: a wide matrix of two rows gets four items a thread, eight
// loads. Returns whether it launched.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
bool launch_few_rows_columns(const T* in, const plan& p, const columns_shape& columns, Out out, Op op, ToAcc to_acc,
                             device::launcher& l) {
  const std::int64_t rows = p.runs.size();
  if (!columns.vectorized || p.runs.count != 1 || rows > axis_policy::max_few_rows) return false;
  const int forced = testing::forced_few_rows_items();
  const std::int64_t columns_batch = columns.shifted ? rows_in_flight / 2 : rows_in_flight;  // columns_kernel's
  if (forced == 0 && rows >= columns_batch) return false;
  auto kernel = few_rows_columns_kernel<T, Acc, Op, ToAcc, Out>;
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, few_rows_block, l.device());
  const std::int64_t lanes = wave * few_rows_block;
  const std::int64_t units = p.kept.size() * columns.items;
  if (forced == 0 && units < lanes) return false;
  const std::int64_t batch = columns.shifted ? few_rows_batch<true, T, Acc> : few_rows_batch<false, T, Acc>;
  const std::int64_t most = columns.shifted ? few_rows_most_items<true, T, Acc> : few_rows_most_items<false, T, Acc>;
  // The most items whose rows fit a batch together, and that every resident thread keeps;
  // as a power of two (the kernel has bodies for 1, 2 and 4).
  const std::int64_t busy = forced > 0 ? forced : units / lanes;
  const int items = power_of_two_at_most(std::max<std::int64_t>(1, std::min({most, batch / rows, busy})));
  few_rows_shape shape{columns.shifted, columns.vector_store, columns.items, columns.end, items};
  const std::int64_t work = blocks::ceil_div(units, std::int64_t(shape.items_per_thread) * few_rows_block);
  l.launch(kernel, static_cast<unsigned>(balanced_grid(work, wave)), few_rows_block, in, p, shape, out, op, to_acc);
  return true;
}

// Whether a columns plan whose rows are not all 16-byte aligned still reads its columns as
// 16-byte vectors (load_shifted).
template <typename T>
bool shifts_columns(const plan& p) {
  constexpr int V = blocks::vector16<T>::size;
  return p.inner_stride == 1 && p.columns >= axis_policy::min_shifted_vectors * V;
}

// A merging tile stages its column totals in shared memory: at most this many bytes of them.
inline constexpr std::int64_t max_merge_staging_bytes = 32 * 1024;

// Whether a shifted columns plan goes in block space (columns_kernel.cuh: realign_block_sums),
// and if so its tile: the aligned walk's loop (one load a row, no realignment in the loop)
// where the shifted walk loads two blocks a row and cuts each row's window out of them.
// Needs every row of a thread to start at the same shift: a thread's rows are ty x splits
// rows apart, so ty (512 / tile items) must be a multiple of the shift's period, the fewest
// rows whose stride is whole 16-byte blocks (2 or 4 for 4-byte elements); a wider tile is
// narrowed to that. Not for stacked, merged or interleaved tiles (their tiles hold other
// layouts), and only where each thread then has min_block_space_rows_per_thread rows, to pay
// for the realignment (two barriers a work item). The launch asks only for
// 4-byte elements: f16 and bf16 (a period of 8 rows, tiles of at most 64 items) ran 1.03-1.28x
// slower. H200, 2026-11-29, shifted f32 and i32 columns of 64 MiB and more, time against the
// shifted walk's: tuned on seeds 301-340 and 501-530 (0.945x and 0.953x on geometric mean);
// then 60 cases of seeds 601-640, 0.933x (the 33 in block space 0.881x, down to 0.732x;
// slowest 1.023x; docs/results/H200/axis_block_space_2026-11-29).
template <typename T, typename Acc>
bool block_space_columns(const plan& p, std::int64_t merge, bool interleaved, columns_shape& shape) {
  constexpr int V = blocks::vector16<T>::size;
  if (!shape.shifted || merge != 1 || interleaved || shape.stacked || p.runs.count != 1) return false;
  if (std::int64_t(columns_block) * V * std::int64_t(sizeof(Acc)) > max_merge_staging_bytes) return false;
  const std::int64_t row_bytes = p.runs.stride[0] * std::int64_t(sizeof(T));
  const int period = static_cast<int>(blocks::vector_bytes / std::gcd(row_bytes % blocks::vector_bytes, std::int64_t(blocks::vector_bytes)));
  const int widest = columns_block / period;  // the widest tile whose ty is a multiple of it
  const int tile = std::min(shape.tile_items, widest);
  if (tile < 4) return false;
  // The realignment costs a block two barriers and a round through shared memory a work item:
  // paid over many rows a thread only (a threshold chosen, not measured).
  if (p.runs.size() / (columns_block / tile) < axis_policy::min_block_space_rows_per_thread && !testing::forced_block_space())
    return false;
  shape.block_space = true;
  shape.tile_items = tile;
  shape.tile_stride = tile - 1;
  return true;
}

// The fewest columns that a merging tile must start on a multiple of: whole outputs (`merge`
// columns) that are also whole items.
inline std::int64_t merge_period(std::int64_t merge, int per_item) { return std::lcm(merge, std::int64_t(per_item)); }

// The narrowest merging tile, in items: a power of two that holds one period.
inline int narrowest_merge_tile(std::int64_t merge, int per_item) {
  return power_of_two_at_least(blocks::ceil_div(merge_period(merge, per_item), std::int64_t(per_item)), columns_block);
}

// Whether a columns plan of `rows` rows a kept index reads faster stacked (columns_kernel.cuh:
// ty kept indices a block, each thread walking all rows of its column item) than in tiles of
// `row_groups` row groups (one kept index a block, then a combine of its row groups through
// shared memory). Where a kept index has few rows, the time of either is about the chain of
// round trips that its blocks wait on one after another, as for the rows kernels
// (group_rounds): per round of the grid's blocks over the resident wave, a thread's batches of
// rows_in_flight loads, plus one for the tiles' combine. Stacking is for rows that a tile gives
// each thread under two batches of (beyond that the combine is a small share, and block space
// may take shifted rows), and only where the stacked work items fill half a wave (a block of
// each SM, 64 KiB of loads in flight), as a few work items leave the GPU idle.
// [16614, 135, 47] halves over the 135 (slabs of 135 rows of 47 columns, shifted): tiles of 8
// items give each thread 3 rows, 63 rounds of 2: 126; stacked, 260 work items in one round of
// 17 batches: 17. H200, 2026-11-29: 411 -> 79 us (torch: 72).
inline bool stacked_columns_pay(std::int64_t rows, std::int64_t row_groups, std::int64_t tiled_work,
                                std::int64_t stacked_work, std::int64_t wave) {
  const std::int64_t rows_a_thread = blocks::ceil_div(rows, row_groups);
  if (rows_a_thread >= 2 * rows_in_flight || 2 * stacked_work < wave) return false;
  const std::int64_t tiled = blocks::ceil_div(tiled_work, wave) * (blocks::ceil_div(rows_a_thread, std::int64_t{rows_in_flight}) + 1);
  const std::int64_t stacked = blocks::ceil_div(stacked_work, wave) * blocks::ceil_div(rows, std::int64_t{rows_in_flight});
  return stacked < tiled;
}

// `merge` > 1: a merged plan (merged_columns_for), each output `merge` neighbouring columns;
// or, with `interleaved`, an interleaved plan (interleaved_columns_for), each output `merge`
// columns p.columns / merge apart, written where p.out_order puts it. A plan of one column an
// output with an out_order (mapped_period_columns_for) is written through it.
// With `stacked_vectors_up_to` > 0 (launch_stacked_small_tiles), it launches only
// stacked tiles of 16-byte column vectors of at most that many items, or the kernels it picks
// before tiling, and returns whether it launched.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
bool launch_columns(const T* in, const plan& p, Out out, Op op, ToAcc to_acc, device::launcher& l,
                    std::int64_t merge = 1, bool interleaved = false, int stacked_vectors_up_to = 0) {
  constexpr int V = blocks::vector16<T>::size;
  columns_shape shape{};
  const bool aligned = rows_vector_aligned(in, p, p.columns);
  shape.shifted = !aligned && shifts_columns<T>(p);
  shape.vectorized = aligned || shape.shifted;
  shape.items = aligned ? p.columns / V : shape.shifted ? blocks::ceil_div(p.columns, std::int64_t{V}) : p.columns;
  shape.end = shape.shifted ? end_offset(p) : 0;
  // One [R, C] matrix (no kept axis outside the columns, one reduced axis right above them).
  const bool one_matrix = p.kept.size() == 1 && p.runs.count == 1 && p.runs.stride[0] == p.columns;
  const bool mapped = merge == 1 && !p.out_order.identity();  // the flat kernels write in order
  const int log2_row_vectors = flat_row_log2(aligned, shape.items);
  if (merge == 1 && !mapped && one_matrix && log2_row_vectors >= 0) {
    launch_flat_columns<T, Acc>(in, p, log2_row_vectors, out, op, to_acc, l);
    return true;
  }
  if constexpr (periodic_columns_fit<T, Acc> && !is_arg_op_v<Op>) {
    if (merge == 1 && !mapped)
      if (const std::int64_t row_stride = periodic_row_stride(p)) {
        launch_periodic_columns<T, Acc>(in, p, row_stride, out, op, to_acc, l);
        return true;
      }
  }
  if constexpr (is_plain_output<Out>)
    shape.vector_store = merge == 1 && !mapped && aligned && sizeof(Acc) == sizeof(T) && blocks::is_vector_aligned(out);
  if (merge == 1 && !mapped && launch_few_rows_columns<T, Acc>(in, p, shape, out, op, to_acc, l)) return true;
  // Tiles are narrow when there are many rows (32 items: 512 contiguous bytes per row, and
  // more tiles, so fewer row splits and partials) and wide when there are few (16 rows of 4 M
  // floats: 512 items, so each thread still gets min_rows_per_thread rows).
  // Shifted rows keep fewer per thread: each moves 16 bytes a thread, and 16 rows a thread
  // left [4641, 935] f16 along dim 0 with 72 blocks (H100, 2026-11-24: 17% of the read
  // ceiling; it was 26% read an element at a time).
  const std::int64_t rows_per_thread = shape.shifted ? axis_policy::min_shifted_rows_per_thread : axis_policy::min_rows_per_thread;
  auto tile_for = [&](std::int64_t rows_a_thread) {
    const std::int64_t row_groups = std::max<std::int64_t>(1, p.runs.size() / rows_a_thread);
    const int widest = std::max(blocks::warp_size, power_of_two_at_most(std::max<std::int64_t>(1, columns_block / row_groups)));
    return power_of_two_at_least(shape.items, widest);
  };
  auto kernel = p.runs.count > 1 ? columns_kernel<T, Acc, Op, ToAcc, Out, column_walk::runs>
                : shape.shifted   ? columns_kernel<T, Acc, Op, ToAcc, Out, column_walk::shifted_stride>
                                  : columns_kernel<T, Acc, Op, ToAcc, Out, column_walk::stride>;
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, columns_block, l.device());
  shape.tile_items = tile_for(rows_per_thread);
  // Shifted rows keep few rows a thread so that few tiles split more ways. Where the tiles
  // fill a wave unsplit anyway, a tile as wide as the aligned rule gives leaves each thread
  // more rows to stream per block combine: i32 [3, 43, 57, 13335] over the 57, merging 7
  // columns an output, took tiles of 32 vectors and 3 or 4 rows a thread, 36% of the read
  // ceiling; 63% with tiles of 128 (H100, 2026-11-28).
  if (shape.shifted && !interleaved) {
    const int wider = tile_for(axis_policy::min_rows_per_thread);
    if (wider > shape.tile_items && p.kept.size() * blocks::ceil_div(shape.items, std::int64_t(wider)) >= wave)
      shape.tile_items = wider;
  }
  // Few rows per kept index: stacked (columns_kernel.cuh) when that waits on fewer round trips
  // of loads one after another (stacked_columns_pay). The tile is then as wide as the row (each
  // thread a column item), ty kept indices high.
  // H200, 2026-11-28: f32 41x3x180x6x427x1 over {3} (22,140 slabs of 6 rows of 427 columns,
  // shifted) took 253 us, 2.6x torch's time, with 1.5 rows a thread and a combine per slab.
  // Stacked, a tile of `tile` items takes columns_block / tile kept indices (its row groups).
  auto stacked_groups = [&](int tile) { return blocks::ceil_div(p.kept.size(), std::int64_t(columns_block / tile)); };
  if (merge == 1 && !mapped && !interleaved) {
    const int stacked_tile = power_of_two_at_least(shape.items, columns_block);
    const std::int64_t stacked_work = stacked_groups(stacked_tile) * blocks::ceil_div(shape.items, std::int64_t(stacked_tile));
    const std::int64_t tiled_work = p.kept.size() * blocks::ceil_div(shape.items, std::int64_t(shape.tile_items));
    if (stacked_columns_pay(p.runs.size(), columns_block / shape.tile_items, tiled_work, stacked_work, wave) ||
        testing::forced_stacked_columns()) {
      shape.stacked = true;
      shape.tile_items = stacked_tile;
    }
  }
  if (stacked_vectors_up_to > 0 && !(shape.stacked && shape.vectorized && shape.tile_items <= stacked_vectors_up_to))
    return false;
  shape.tile_stride = shape.tile_items;
  shape.merge = merge;
  shape.fold_stride = interleaved ? p.columns / merge : 1;
  const int per_item = shape.vectorized ? V : 1;
  std::size_t staging_bytes = 0;
  if (interleaved) {
    // One tile holds the whole slab, since each output folds columns from all of it
    // (interleaved_columns_for saw that it fits, and its staged totals too).
    shape.tile_items = power_of_two_at_least(shape.items, columns_block);
    shape.tile_stride = shape.tile_items;
    staging_bytes = std::size_t(shape.tile_items) * per_item * sizeof(Acc);
  } else if (mapped) {
    // Totals staged, then written through the map: tiles no wider than staging allows.
    const int most = power_of_two_at_most(max_merge_staging_bytes / std::int64_t(sizeof(Acc)) / per_item);
    shape.tile_items = std::min(shape.tile_items, most);
    shape.tile_stride = shape.tile_items;
    staging_bytes = std::size_t(shape.tile_items) * per_item * sizeof(Acc);
  } else if (merge > 1) {
    // Tiles wide enough for one period, narrow enough to stage, and starting on whole periods.
    // (merged_columns_for saw that the narrowest fits.)
    const std::int64_t period = merge_period(merge, per_item);
    const int most = power_of_two_at_most(max_merge_staging_bytes / std::int64_t(sizeof(Acc)) / per_item);
    shape.tile_items = std::min(std::max(shape.tile_items, narrowest_merge_tile(merge, per_item)), most);
    shape.tile_stride = static_cast<int>(std::int64_t(shape.tile_items) * per_item / period * period / per_item);
    staging_bytes = std::size_t(shape.tile_items) * per_item * sizeof(Acc);
  }
  if constexpr (sizeof(T) == 4) {  // block_space_columns says why only these
    if (block_space_columns<T, Acc>(p, merge, interleaved, shape)) {
      kernel = columns_kernel<T, Acc, Op, ToAcc, Out, column_walk::blocks>;
      staging_bytes = std::max(staging_bytes, std::size_t(columns_block) * V * sizeof(Acc));
    }
  }
  shape.tiles = blocks::ceil_div(shape.items, std::int64_t(shape.tile_stride));
  shape.splits = 1;

  const std::int64_t groups = (shape.stacked ? stacked_groups(shape.tile_items) : p.kept.size()) * shape.tiles;
  const std::int64_t tile_columns = std::int64_t(shape.tile_items) * (shape.vectorized ? V : 1);
  if (!shape.stacked && groups < wave && groups <= axis_policy::max_counters) {
    const std::int64_t rows_per_block = std::int64_t(columns_block / shape.tile_items) * rows_per_thread;
    const std::int64_t by_rows = std::max<std::int64_t>(1, p.runs.size() / rows_per_block);
    const std::int64_t by_partials = std::int64_t(axis_policy::max_partial_bytes / sizeof(Acc)) / (groups * tile_columns);
    shape.splits = std::max<std::int64_t>(1, std::min({wave / groups, by_rows, by_partials}));
  }
  const std::int64_t work = groups * shape.splits;
  // Split tiles: each tile a group with an arrival counter of its own, a tile's worth of
  // partials per (tile, split).
  const device::scratch_request scratch = shape.splits > 1
      ? device::scratch_request{groups, groups, work * tile_columns * std::int64_t(sizeof(Acc))} : device::scratch_request{};
  l.launch_shaped_with_scratch(kernel, static_cast<unsigned>(balanced_grid(work, wave)), columns_block, 0, staging_bytes, scratch,
                               in, p, shape, out, op, to_acc);
  return true;
}

// Narrow columns in many contiguous slabs (periodic_slabs_kernel): a columns plan of C up to
// max_periodic_columns elements of unit stride whose innermost reduced axis steps S >= C (a gap
// of at most what the kernels that read rows and gaps alike accept), each (kept index, outer
// reduced index) a slab of R such rows, and not the one matrix that periodic_columns_kernel
// reads. Only where the columns kernel's tiles would be narrower than a warp (fewer column
// items than 32: 16-byte vectors where rows are aligned or shifted, elements otherwise), and
// where a slab gives each reading thread of a block at least min_slab_vectors_per_thread
// vectors.
// Chunks a slab, from a cost model: a piece costs its vectors a thread plus
// slab_piece_overhead_vectors (its staging and column fold, about two round trips of loads),
// and slab_split_overhead_vectors more where a kept index has several pieces (its partials,
// arrival and combine); pieces run in rounds of the resident wave. The count of least cost
// (7 slabs of 291877 vectors on 264 block slots: 37 chunks, one round of 15.4 vectors a thread
// where 38 would be two rounds of 15), the fewest among equals, within the scratch's partials.
// Not for permuted outputs (out_order) or argmin/argmax. Fills `s`, or returns false.
// H200, 2026-11-30, columns kernel -> slabs, each case's fastest of four rounds, the L2 flushed
// before each call: the 234 random cases of seeds 900-999 (16 MiB and more) that this takes,
// on which the constants were chosen, 0.64x the time on geometric mean, 201 faster by more
// than 5% (f16 9x151x127x3x11x11 over {0, 2, 3, 4}: 645 -> 67 us), 5 slower, by at most 9%
// (f32 44x22x37x8x29 over {0, 2, 3}, 35.9 -> 39.2 us); the 233 of seeds 1000-1099, not looked
// at before, 0.66x, 210 faster, 4 slower, by at most 10% (i32 2x2163x404x3x19 over {2}: 380 MiB
// in 8652 slabs of 404 rows of 57, 166.8 -> 183.6 us).
inline constexpr std::int64_t min_slab_vectors_per_thread = 4;
inline constexpr double slab_piece_overhead_vectors = 4;
inline constexpr double slab_split_overhead_vectors = 4;
inline constexpr std::int64_t max_slab_chunks = 256;
inline constexpr int slab_block = 512;
template <typename T, typename Acc, typename WaveOf>
bool periodic_slabs_for(const T* in, const plan& p, WaveOf wave_of, periodic_slabs_shape& s) {
  constexpr std::int64_t V = blocks::vector16<T>::size;
  if (p.kind != plan_kind::columns || p.inner_stride != 1 || p.runs.count == 0 || !p.out_order.identity() ||
      p.columns > max_periodic_columns || periodic_row_stride(p) != 0)
    return false;
  const int last = p.runs.count - 1;  // runs are outermost first
  const std::int64_t S = p.runs.stride[last], R = p.runs.extent[last];
  if (R < 2 || S < p.columns || S - p.columns > axis_policy::max_long_row_gap(p.columns)) return false;
  const bool aligned = rows_vector_aligned(in, p, p.columns);
  const std::int64_t items = aligned || shifts_columns<T>(p) ? blocks::ceil_div(p.columns, V) : p.columns;
  if (items >= blocks::warp_size) return false;
  const std::int64_t period = S / std::gcd(S, V);  // vectors after which a thread's columns repeat
  // Blocks of 512 threads, two for each of 1024 (so that one block's loads overlap another's
  // staging and column folds), unless that leaves more than a tenth of a block's threads
  // without a place in the period.
  s.block = slab_block;
  if ((s.block / period * period) * 10 < s.block * 9) s.block = flat_block;
  const std::int64_t active = s.block / period * period;
  s.slab_elements = (R - 1) * S + p.columns;
  const std::int64_t slab_vectors = s.slab_elements / V;
  const std::int64_t most_chunks =
      std::min(max_slab_chunks, slab_vectors / (active * min_slab_vectors_per_thread));
  // The kernel counts a piece's vectors in 32 bits, up to a batch of loads past its end.
  if (most_chunks < 1 || slab_vectors > std::numeric_limits<std::int32_t>::max() - 2 * slab_loads_in_flight * flat_block)
    return false;
  std::int64_t slabs = 1;
  for (int i = 0; i < last; ++i) slabs *= p.runs.extent[i];
  s.padded_columns = power_of_two_at_least(p.columns, max_periodic_columns);
  // Pieces that leave partials: a counter per kept index, a row of partials per piece.
  const std::int64_t most_pieces = p.kept.size() > axis_policy::max_counters ? 0
      : axis_policy::max_partial_bytes / (s.padded_columns * std::int64_t(sizeof(Acc)));
  if (slabs > 1 && p.kept.size() * slabs > most_pieces) return false;
  const std::int64_t wave = wave_of(s.block);
  std::int64_t chunks = 1;
  double least = std::numeric_limits<double>::max();
  for (std::int64_t c = 1; c <= most_chunks && (slabs * c == 1 || p.kept.size() * slabs * c <= most_pieces); ++c) {
    const double rounds = double(blocks::ceil_div(p.kept.size() * slabs * c, wave));
    const double overhead = slab_piece_overhead_vectors + (slabs * c > 1 ? slab_split_overhead_vectors : 0);
    const double cost = rounds * (double(slab_vectors) / double(c * active) + overhead);
    if (cost < least * (1 - 1e-9)) least = cost, chunks = c;
  }
  s.kept = p.kept;
  s.kept_out = p.kept_out;
  s.slabs = {};
  for (int i = 0; i < last; ++i) s.slabs.push(p.runs.extent[i], p.runs.stride[i]);
  s.chunks = chunks;
  s.pieces_per_kept = slabs * chunks;
  s.pieces = p.kept.size() * s.pieces_per_kept;
  s.out_step = p.column_out_stride;
  s.row_stride = static_cast<int>(S);
  s.columns = static_cast<int>(p.columns);
  s.active = static_cast<int>(active);
  return true;
}

// Plan p through periodic_slabs_kernel, if periodic_slabs_for takes it: whether it launched.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
bool launch_periodic_slabs(const T* in, const plan& p, Out out, Op op, ToAcc to_acc, device::launcher& l) {
  auto kernel = periodic_slabs_kernel<T, Acc, Op, ToAcc, Out>;
  std::int64_t wave = 0;  // asked once, for the block size that periodic_slabs_for picks
  auto wave_of = [&](int block) {
    return wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, block, l.device());
  };
  periodic_slabs_shape s{};
  if (!periodic_slabs_for<T, Acc>(in, p, wave_of, s)) return false;
  const unsigned grid = static_cast<unsigned>(balanced_grid(s.pieces, wave));
  if (s.piece_per_kept()) {
    l.launch(kernel, grid, s.block, in, s, out, op, to_acc, device::scratch_view{});
    return true;
  }
  // A counter and a finish per kept index, a row of (padded) partials per piece.
  const device::scratch_request scratch{p.kept.size(), p.kept.size(),
                                        s.pieces * s.padded_columns * std::int64_t(sizeof(Acc))};
  l.launch_with_scratch(kernel, grid, s.block, 0, scratch, in, s, out, op, to_acc);
  return true;
}

// A columns plan that leaves a block little work per kept index (753x300x26x3 over the 26:
// 3 columns by 26 rows for each of 225900 b): a column tile would hold a few dozen elements.
// Read as rows instead (small_tiles_as_rows): one-element runs, a lane per output walking its
// rows (short_rows or row_chunks), neighbouring lanes on neighbouring outputs; or, for few
// outputs, strided runs along the innermost reduced axis. The rows plan takes the kept axes
// in the output's order (kept_all), so any output order works.
// Except where the columns are read as 16-byte vectors (rows aligned, or shifted) and the
// columns kernel stacks its tiles (columns_kernel.cuh: ty kept indices a block, a thread
// walking every row of its column vector, all loads in flight, no combine): a lane there moves
// 16 bytes a load where a lane per output moves one element. H200, 2026-11-30, the 662
// random cases of seeds 1100-1199 that come here, each case's fastest of four rounds, one-
// element rows -> the columns kernel where it stacks: the 125 of 16-byte vectors from 1 MiB,
// 0.79x the time on geometric mean, 63 faster by more than 5% (bf16 2x741x137x11x2x36
// permuted over {0}, 307 MiB: 1694 -> 318 us; i32 19x3501x37x1x30 permuted over the unit axis,
// a copy: 1640 -> 534 us), 5 slower, by up to 1.42x (i32 39x2x563x3x179x1 permuted, a copy of
// 90 MiB, 537 -> 763 us, slow either way; copies now stack only in tiles of four rows or more,
// see launch); below 1 MiB (137 cases) 1.01x, to 1.17x slower
// (min_stacked_small_tile_bytes). Columns of elements stay rows: stacked, 86 of those 400
// cases were slower by more than 10%, to 2.8x (their tiles leave lanes idle: 9 halves in a
// tile of 16; i32 3x1965x1x9x145x3 over {0, 4}: 17,685 kept indices stack into 139 blocks).
template <typename T>
bool small_column_tiles(const plan& p) {
  constexpr int V = blocks::vector16<T>::size;
  const std::int64_t items = p.columns % V == 0 ? p.columns / V : p.columns;
  return p.kept.size() > 1 && items * p.runs.size() < axis_policy::min_column_tile_items;
}

// A plan with small column tiles on the columns kernel's stacked tiles of 16-byte vectors
// (small_column_tiles says when), in inputs of min_stacked_small_tile_bytes and more; a copy
// only in tiles of at most most_stacked_copy_items vectors (launch says why). Returns whether
// it launched.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
bool launch_stacked_small_tiles(const T* in, const plan& p, Out out, Op op, ToAcc to_acc, device::launcher& l) {
  if (!small_column_tiles<T>(p) || view_bytes<T>(p) < axis_policy::min_stacked_small_tile_bytes) return false;
  const int most_items = p.runs.count == 0 ? axis_policy::most_stacked_copy_items : columns_block;
  return launch_columns<T, Acc>(in, p, out, op, to_acc, l, 1, false, most_items);
}

// A columns plan with small tiles (small_column_tiles), as the rows plan to launch instead.
// As runs of one element, a lane per output walks every element of its output in turn, with
// neighbouring lanes on neighbouring outputs: fine while the outputs fill the GPU's lanes and
// each has few elements. Otherwise the innermost reduced axis becomes each output's strided
// run, read by a group of lanes (short_rows_kernel: a power of two up to a warp, about the
// run's length), when either
// - each lane of a group still has a few elements of its output (min_strided_lane_elements):
//   a lane walking all of them would be a long chain of loads; or
// - the groups of all outputs fit in one wave of the GPU's lanes, and each output has a few
//   elements to share (min_strided_output_elements): the lanes that one-element runs leave
//   idle are then free.
// Groups beyond a wave, of a few elements a lane, lose: H200, 2026-11-28, one-element ->
// strided runs: f16 13381x3x68 over {2} (40143 outputs of 68 elements, 1.3 M lanes in groups
// of 32) 18.4 -> 31.4 us, f32 3x1x1x977x53x11 over {4} (32241 of 53) 16.5 -> 26.1, f16
// 753x300x26x3 over {2} (677700 of 26) 51.6 -> 383.5. They win: i32 53x3x49x241x2 over
// {1, 3} (5194 of 723) 405.9 -> 22.5, i32 7163x367x1x2 over {1} (14326 of 367) 163.9 -> 45.5,
// i32 2x13x15x2920x24 over {1, 4} (87600 of 312) 203.6 -> 173.1, i32 1x2x625x1x3x86 over
// {0, 5} (3750 of 86, 120 K lanes) 39.3 -> 24.8, i32 55x13x24x3x3 over {2} (6435 of 24)
// 11.4 -> 7.3.
inline plan small_tiles_as_rows(const plan& p, const device::device_facts& f) {
  const plan strided = as_strided_rows(p);
  if (strided.run_length < 2) return strided;  // nothing to run along: one-element runs
  const std::int64_t lanes = std::int64_t(f.sm_count) * f.max_threads_per_sm;
  const std::int64_t group = power_of_two_at_least(strided.run_length, blocks::warp_size);
  const bool long_lanes = p.reduced >= axis_policy::min_strided_lane_elements * group;
  const bool one_wave = p.outputs * group <= lanes && p.reduced >= axis_policy::min_strided_output_elements;
  return p.outputs < lanes && (long_lanes || one_wave) ? strided : as_single_element_rows(p);
}

// Each kept axis's stride in a rows plan's output, which is row-major over its kept axes.
inline void row_major_out_strides(const strided_dims& kept, std::int64_t (&out_strides)[strided_dims::max_dims]) {
  std::int64_t step = 1;
  for (int i = kept.count - 1; i >= 0; --i) {
    out_strides[i] = step;
    step *= kept.extent[i];
  }
}

// A rows plan whose runs lie side by side in memory: each output reduces runs of L elements,
// and the kept axis just above the run in memory (stride L, extent K) puts the runs of K
// neighbouring outputs back to back, in slabs of K x L elements that the reduced axes step
// over ([B, K, L] over {B, L}: batch-norm statistics). The rows kernels read a run as one unit
// (a lane, or a few lanes: its elements, or its 16-byte blocks) and walk each output's runs
// one by one: a warp's loads move a few bytes each (f32 1409x3939x5 over {0, 2} ran at 23% of
// the read ceiling, H100, 2026-11-24). As a columns plan over the slab, every load is a 16-byte
// vector of neighbouring columns, warps stream whole slabs down the reduced axes, and each
// output folds its L columns at the store (columns_kernel: merge_and_store).
// Runs under four vectors always merge. Longer ones, under sixteen vectors (256 bytes), merge
// where the columns kernel has work enough to pay for its staged store: inputs of
// axis_policy::min_longer_merge_bytes, a batch of rows for each thread (rows_in_flight), and
// slabs of two warps' worth of column items (min_longer_merge_slab_items). H200, 2026-11-29,
// 464 random cases of runs of 4 to 128 vectors, each merged against its plan before: merged,
// runs of 16 vectors and more were slower on geometric mean (1.07-4.2x by length and K),
// shorter ones 0.47x in inputs of 64 MiB and more (bf16 393x2x4x157x3x42 over {0, 1, 5} 413.5
// -> 44.1 us; torch 105.2) but 1.16x under 1 MiB, and slabs of few items or few rows lost (f16
// 38096x2x63 over {0, 2}: slabs of 16 items, 1.87x). With the three conditions, 88 of the 464
// merge, 0.58x on geometric mean, 9 slower by more than 10% (worst 1.90x).
// Not for argmin/argmax, whose indices count each run's elements after the run. Fills
// `merged` and returns L, or returns 0 when the plan is not such a case.
template <typename T, typename Acc>
std::int64_t merged_columns_for(const plan& p, plan& merged) {
  constexpr int V = blocks::vector16<T>::size;
  const std::int64_t length = p.run_length;
  if (p.kind != plan_kind::rows || p.inner_stride != 1 || p.runs.count == 0 || length < 2 ||
      length >= axis_policy::max_merged_run_vectors * V)
    return 0;
  // The narrowest tile's staged totals must fit (merged columns are read as vectors, or
  // singly, which needs less).
  if (std::int64_t(narrowest_merge_tile(length, V)) * V * std::int64_t(sizeof(Acc)) > max_merge_staging_bytes) return 0;
  int slab = -1;
  for (int i = 0; i < p.kept.count; ++i)
    if (p.kept.stride[i] == length) slab = i;
  if (slab < 0) return 0;
  // Each kept index's slab must give every thread of a column block an item to read: bf16
  // [20903, 3, 79, 2] over {1, 3} has slabs of 158 columns by 3 rows (60 items), and took 3x
  // as long merged (H100, 2026-11-24).
  const std::int64_t columns = p.kept.extent[slab] * length;
  const std::int64_t items = columns >= axis_policy::min_shifted_vectors * V ? blocks::ceil_div(columns, std::int64_t{V}) : columns;
  if (items * p.runs.size() < columns_block) return 0;
  if (length >= axis_policy::max_short_merged_run_vectors * V &&
      (view_bytes<T>(p) < axis_policy::min_longer_merge_bytes ||
       p.runs.size() < rows_in_flight || items < axis_policy::min_longer_merge_slab_items))
    return 0;
  merged = p;
  merged.kind = plan_kind::columns;
  merged.kept = {};
  merged.kept_out = {};
  merged.kept_all = {};
  std::int64_t out_strides[strided_dims::max_dims] = {};
  row_major_out_strides(p.kept, out_strides);
  for (int i = 0; i < p.kept.count; ++i) {
    if (i == slab) continue;
    merged.kept.push(p.kept.extent[i], p.kept.stride[i]);
    merged.kept_out.push(p.kept.extent[i], out_strides[i]);
  }
  merged.columns = columns;
  merged.column_out_stride = out_strides[slab];
  merged.run_length = 0;
  merged.inner_stride = 1;
  return length;
}

// The period of a columns plan: its columns, then each kept axis whose stride is the period
// so far, innermost first, as (extent, output stride). Kept axes continue the columns in
// memory this way only where the output orders them otherwise (a permuted view: make_plan
// merges the ones that agree), so a period of more than the columns comes with a map.
// Fixed arrays, not vectors: this runs on every call of a narrow columns plan.
struct column_period {
  std::int64_t extent[strided_dims::max_dims] = {};
  std::int64_t out_stride[strided_dims::max_dims] = {};
  bool in_period[strided_dims::max_dims] = {};  // by kept axis of the plan
  int count = 1;  // axes in the period, the columns included
  std::int64_t elements = 0;
};

inline column_period period_of(const plan& p) {
  column_period period;
  period.extent[0] = p.columns;
  period.out_stride[0] = p.column_out_stride;
  period.elements = p.columns;
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < p.kept.count && period.count < strided_dims::max_dims; ++i)
      if (!period.in_period[i] && p.kept.extent[i] > 1 && p.kept.stride[i] == period.elements) {
        period.in_period[i] = grew = true;
        period.extent[period.count] = p.kept.extent[i];
        period.out_stride[period.count++] = p.kept_out.stride[i];
        period.elements *= p.kept.extent[i];
      }
  }
  return period;
}

// `p` with its period as the columns: the kept axes outside it stay, and position q of the
// period (q = 0 .. P - 1, as memory has them) goes to out_order(q) from the kept index's
// first output (the period's axes outermost first, with their output strides). The runs are
// left to the caller.
inline plan with_period_as_columns(const plan& p, const column_period& period) {
  plan merged = p;
  merged.kept = {};
  merged.kept_out = {};
  for (int i = 0; i < p.kept.count; ++i)
    if (!period.in_period[i]) {
      merged.kept.push(p.kept.extent[i], p.kept.stride[i]);
      merged.kept_out.push(p.kept_out.extent[i], p.kept_out.stride[i]);
    }
  merged.kept_all = {};  // no longer the columns' kept axes
  merged.columns = period.elements;
  merged.column_out_stride = 1;
  merged.out_order = {};
  for (int a = period.count - 1; a >= 0; --a) merged.out_order.map.push(period.extent[a], period.out_stride[a]);
  return merged;
}

// A columns plan whose columns are read one element (2 to 8 bytes) a load, or as pairs of
// 16-byte loads for a few columns each: rows of a few columns that are not whole aligned
// vectors ([K, R, 3] over R), or columns with more kept axes right beside them in memory (a
// transposed view's last two axes: 3 columns, then 6 kept rows of them, 18 elements apart
// from the reduced axis's next step). The columns, with any kept axes that continue them in
// memory, make a period of P elements (column_period).
// Where the reduced axis just above the period is contiguous with it (stride P, extent R),
// each kept index's R x P elements are one contiguous slab: read as a columns plan of R P
// columns, they are 16-byte vectors (aligned, or shifted: axis/shifted_vector.cuh) that warps
// stream down the other reduced axes, and each output folds the slab's columns q, q + P, ...
// at the store (columns_kernel: merge_and_store). f16 [99, 166, 702, 3] (a permuted view)
// over {0, 2} ran at 7.5% of the read ceiling read singly, i32 460x63x7x6x3x6 over {0, 2, 3}
// (transposed: 3 columns, 6 kept beside them) at 14.9% (H100, 2026-11-27). The slab must fit
// one tile (every output folds columns from all of it), its totals must fit in shared memory,
// and each kept index must give every thread of a block an item to read. Not for
// argmin/argmax, whose indices count the rows in order. Fills `merged` and returns R, or 0
// when the plan is not such a case.
template <typename T, typename Acc>
std::int64_t interleaved_columns_for(const T* in, const plan& p, plan& merged) {
  constexpr int V = blocks::vector16<T>::size;
  if (p.kind != plan_kind::columns || p.inner_stride != 1 || p.runs.count == 0) return 0;
  const column_period period = period_of(p);
  // Whole aligned vectors of columns, alone, already stream, unless their tiles would be small
  // and the columns go to rows (small_column_tiles): f32 3x1x15x25x12x91 over {0, 5}, 12
  // aligned columns by 91 x 3 rows, took 127.8 us as rows of one element, 9.1 us as slabs
  // (H200, 2026-11-28).
  if (period.count == 1 && rows_vector_aligned(in, p, p.columns) && !small_column_tiles<T>(p)) return 0;
  const int last = p.runs.count - 1;  // runs are outermost first: the last is the innermost
  if (p.runs.stride[last] != period.elements) return 0;
  const std::int64_t length = p.runs.extent[last];
  const std::int64_t columns = length * period.elements;
  if (length < 2 || columns < axis_policy::min_shifted_vectors * V) return 0;
  const std::int64_t items = blocks::ceil_div(columns, std::int64_t{V});  // read shifted, at most
  if (items > columns_block) return 0;
  if (std::int64_t(power_of_two_at_least(items, columns_block)) * V * std::int64_t(sizeof(Acc)) > max_merge_staging_bytes)
    return 0;
  std::int64_t rows = 1;
  for (int i = 0; i < last; ++i) rows *= p.runs.extent[i];
  if (items * rows < columns_block) return 0;
  merged = with_period_as_columns(p, period);
  merged.runs = {};
  for (int i = 0; i < last; ++i) merged.runs.push(p.runs.extent[i], p.runs.stride[i]);
  merged.columns = columns;
  return length;
}

// A columns plan of narrow columns (fewer items than a warp: a column tile is at least a warp
// wide, so most of its lanes would idle) with kept axes that continue them in memory, whose
// period does not sit under a contiguous reduced axis that interleaved_columns_for could fold
// (its slab would be too wide for a tile): f32 3x747x1951 over {1}, permuted so that the 3
// are innermost in memory and the 1951 just above them, was read as 1951 column tiles of 3
// floats, 3.1x the time torch took (H200, 2026-11-28). Its period of 5,853 columns is one
// contiguous run per step of the reduced axes: read as a columns plan of that many columns
// (16-byte vectors, aligned or shifted), with each output written where the map puts it
// (columns_kernel: merge_and_store, through out_order). A scattered write costs a 32-byte
// sector, so only where each output reads at least that many bytes (as in_memory_order).
// Merging the kept axes into the period leaves fewer kept indices, and so fewer work items
// and more blocks per item, whose partials the last block of each adds up: where the narrow
// plan had fewer kept indices than the GPU has SMs, that costs more than the idle lanes in
// inputs under axis_policy::min_mapped_bytes_few_kept. Not for argmin/argmax (the merge
// path's store). Fills `mapped`, or returns false.
template <typename T>
bool mapped_period_columns_for(const plan& p, std::int64_t sm_count, plan& mapped) {
  constexpr int V = blocks::vector16<T>::size;
  constexpr std::int64_t write_sector_bytes = 32;
  if (p.kind != plan_kind::columns || p.inner_stride != 1 || p.runs.count == 0 ||
      p.reduced * std::int64_t(sizeof(T)) < write_sector_bytes)
    return false;
  const std::int64_t items = p.columns % V == 0 ? p.columns / V : p.columns;
  if (items >= blocks::warp_size) return false;
  if (p.kept.size() < sm_count && view_bytes<T>(p) < axis_policy::min_mapped_bytes_few_kept)
    return false;
  const column_period period = period_of(p);
  if (period.count == 1 || period.elements > std::numeric_limits<std::int32_t>::max()) return false;  // out_order: 32 bits
  mapped = with_period_as_columns(p, period);
  return true;
}

// A rows plan whose kept axes lie in memory in another order than in the output (a permuted
// view). The rows kernels walk outputs in the plan's order, so neighbouring groups and blocks
// would read runs far apart (f32 25x29x41x8x530 over {2}, permuted: 7% of the read ceiling,
// H100, 2026-11-24). Walked outermost-first in memory instead, neighbours in memory are
// neighbours in the walk, and axes that continue each other in memory merge (that array is
// then one [3074000, 41] array of rows); each output is written where the output's order puts
// it (out_order). A scattered write costs up to a 32-byte sector, so this pays only where
// each output reads at least that many bytes: f32 3x8x1x926x3x45 over {0}, transposed,
// reads 12 bytes an output, and took 24 us in output order against 30 in memory order (H100,
// 2026-11-24). Or where the writes are not scattered: where the axis innermost in memory is
// also innermost in the output and at least a warp's worth long, neighbouring groups write
// neighbouring outputs. bf16 4x5x2673x1319 over {1} (rows of 5 elements, the 1319 innermost
// in memory and in the output, the 4 and 2673 swapped) walked in output order jumped 26 KB
// from each group to the next: 3.0 ms in the bench, 1.4% of the read ceiling (H200,
// 2026-11-30).
// Returns p when the orders agree, or when the walk would not pay.
template <typename T>
plan in_memory_order(const plan& p) {
  constexpr std::int64_t write_sector_bytes = 32;
  if (p.kind != plan_kind::rows || p.kept.count < 2 || !p.out_order.identity() ||
      p.outputs > std::numeric_limits<std::int32_t>::max())  // output_order counts in 32 bits
    return p;
  const bool small_outputs = p.reduced * std::int64_t(sizeof(T)) < write_sector_bytes;
  std::int64_t out_strides[strided_dims::max_dims] = {};
  row_major_out_strides(p.kept, out_strides);
  // Checked in place first: most plans already walk in memory order, and this runs on every
  // call, so only a reordered plan pays for the vectors below.
  detail::plan_axis in_place[strided_dims::max_dims];
  for (int i = 0; i < p.kept.count; ++i) in_place[i] = {p.kept.extent[i], p.kept.stride[i], false, out_strides[i]};
  if (std::is_sorted(in_place, in_place + p.kept.count, detail::outer_in_memory)) return p;
  if (small_outputs) {
    // The axis innermost in memory (the one the sort below puts last: the last in place of the
    // innermost ones), found in place, so that the plans turned away here allocate nothing.
    const detail::plan_axis* inner = in_place;
    for (int i = 1; i < p.kept.count; ++i)
      if (!detail::outer_in_memory(in_place[i], *inner)) inner = &in_place[i];
    if (!(inner->out_stride == 1 && inner->extent >= blocks::warp_size)) return p;
  }
  std::vector<detail::plan_axis> kept(in_place, in_place + p.kept.count);
  std::stable_sort(kept.begin(), kept.end(), detail::outer_in_memory);
  plan walked = p;
  walked.kept = {};
  detail::push_all(walked.kept, detail::merge_neighbours(kept));
  // The same axes merged by their output strides give the map from the walk's index.
  std::vector<detail::plan_axis> by_output = kept;
  for (detail::plan_axis& a : by_output) a.stride = a.out_stride;
  const std::vector<detail::plan_axis> map = detail::merge_neighbours(by_output);
  if (!(map.size() == 1 && map[0].stride == 1)) detail::push_all(walked.out_order.map, map);
  return walked;
}

// The share of short_rows_kernel's load slots that hold row items over a row's rounds of
// loads: 155 blocks of a shifted 617-float row on 32 lanes of four slots is two rounds of 128,
// 61% used.
inline double group_slot_use(const short_rows_shape& rows) {
  const std::int64_t round = group_round_items(rows);
  return double(rows.items) / double(blocks::ceil_div(rows.items, round) * round);
}

// Plan p through transposed tiles, if it suits them (transposed_tiles_for), for a wave of this
// device's resident blocks: whether it was launched.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
bool launch_transposed_tiles(const T* in, const plan& p, Out out, Op op, ToAcc to_acc, device::launcher& l) {
  auto kernel = transposed_tiles_kernel<T, Acc, Op, ToAcc, Out>;
  auto resident = [&] {
    return std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, transposed_block, l.device());
  };
  auto wave_of = [&] { return testing::forced_transposed_tiles() ? std::int64_t{1} : resident(); };
  transposed_tiles_shape s{};
  if (!transposed_tiles_for<T, Acc>(p, wave_of, s)) return false;
  const std::int64_t tiles = s.outer_kept.size() * s.row_axis_tiles * s.rows_tiles;
  l.launch(kernel, static_cast<unsigned>(balanced_grid(tiles, resident())), transposed_block, in, s, out, op, to_acc);
  return true;
}

// A rows plan's kernel (its kept axes in the order to walk them: in_memory_order).
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
void launch_rows(const T* in, const plan& p, Out out, Op op, ToAcc to_acc, device::launcher& l) {
  const short_rows_shape rows = short_rows_shape_for(in, p);
  const bool many_rows = p.outputs >= std::int64_t(l.facts().sm_count) * axis_policy::rows_per_sm_for_groups;
  const bool contiguous = rows.regular && rows.row_stride == rows.row_length;
  const int log2_row_vectors = flat_row_log2(rows.vectorized, rows.items);
  // A group's work: every item of every run of its output.
  const std::int64_t output_items = p.runs.size() * rows.items;
  tiled_rows_shape tiled{};
  const bool tile =
      log2_row_vectors < 0 && tiled_rows_for<T>(p, tiled, rows.vectorized ? tile_rule::short_only : tile_rule::long_rows);
  // The flat kernel writes outputs in order (16-byte stores of several); permuted ones go on.
  if (contiguous && log2_row_vectors >= 0 && p.out_order.identity())
    return launch_flat_rows<T, Acc>(in, rows, log2_row_vectors, out, op, to_acc, l);
  // The groups' grid, asked once: for the choice here and for their launch. (The rows kernel
  // runs as many blocks an SM: its wave serves block_rounds too.)
  const bool group_sized = output_items <= axis_policy::max_group_row_items;
  const grid_fit group_grid = group_sized ? short_rows_grid<T, Acc, Op, ToAcc, Out>(rows, l) : grid_fit{1, 1};
  const bool groups =
      output_items <= axis_policy::always_group_row_items ||
      (group_sized && (many_rows || axis_policy::group_round_weight * group_rounds(rows, p.runs.size(), group_grid) <=
                                        block_rounds(p.outputs, output_items, group_grid.wave)));
  if ((tile ||
       (groups && (group_slot_use(rows) < axis_policy::min_group_slot_use ||
                   group_grid.use() < axis_policy::min_group_wave_use)) ||
       testing::forced_row_stream()) &&
      launch_row_stream<T, Acc>(in, p, rows, out, op, to_acc, l))
    return;
  if (tile)
    launch_tiled_rows<T, Acc>(in, tiled, out, op, to_acc, l);
  else if (groups)
    launch_short_rows<T, Acc>(in, p, rows, group_grid, out, op, to_acc, l);
  else
    launch_row_chunks<T, Acc>(in, p, out, op, to_acc, l);
}

// Enqueues the whole reduction of plan p: one kernel, or none when there is no output.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
void launch(const T* in, const plan& p, Out out, Op op, ToAcc to_acc, device::launcher& l) {
  switch (p.kind) {
    case plan_kind::nothing:
      return;
    case plan_kind::full:
      device::launch_reduce<device::reduce_policy, T, Acc>(in, p.reduced, op, to_acc, store_first<Out>{out}, l);
      return;
    case plan_kind::rows: {
      if constexpr (!is_arg_op_v<Op>) {
        if (launch_transposed_tiles<T, Acc>(in, p, out, op, to_acc, l)) return;
        plan merged;
        if (const std::int64_t merge = merged_columns_for<T, Acc>(p, merged))
          return (void)launch_columns<T, Acc>(in, merged, out, op, to_acc, l, merge);
      }
      return launch_rows<T, Acc>(in, in_memory_order<T>(p), out, op, to_acc, l);
    }
    case plan_kind::columns: {
      if constexpr (!is_arg_op_v<Op>) {
        if (launch_transposed_tiles<T, Acc>(in, p, out, op, to_acc, l)) return;
      }
      tiled_rows_shape slabs{};
      if (tiled_slabs_for<T>(p, slabs))
        return launch_tiled_rows<T, Acc>(in, slabs, out, op, to_acc, l);
      // A copy (no runs) whose rows of one element the tiled kernel takes (one or two kept
      // axes) streams there; a columns tile of one row moves one vector per thread (H100,
      // 2026-11-24: bf16 [2, 2645192] copied at 29% of the read ceiling that way). Except
      // narrow rows of 16-byte vectors, which a block's stacked tile holds four or more of
      // (small_column_tiles, axis_policy::most_stacked_copy_items): the tiled kernel took i32
      // [322441, 37] in rows 39 apart at 1.1 ms for 45 MiB, 95 us stacked. H200, 2026-11-30,
      // the 1,490 copies of seeds 1100-1299 that the tiled kernel takes, stacked wherever the
      // columns kernel stacks: from 8 MiB, five moved 0.05-0.63x the time (bf16 [402431, 39]
      // in rows 54 apart 1276 -> 70 us; the widest, 441 floats, 111 vectors in a tile of
      // 128), bf16 [2653, 15240] (one row of 1905 vectors a tile of 512) 1.44x slower. 354 of
      // seeds 1300-1499 from 4 MiB, stacked up to tiles of 256: four moved 0.15-0.63x (72
      // vectors the widest), f16 [28643, 1860] (233 in a tile of 256) 1.06x slower. The
      // permuted copies that come to small_column_tiles agree: 16 vectors or fewer 0.33-0.74x,
      // 141 (i32 39x2x563x3x179x1 over its unit axis) 1.43x, 283 1.21x.
      if (p.runs.count == 0 && launch_stacked_small_tiles<T, Acc>(in, p, out, op, to_acc, l)) return;
      if (p.runs.count == 0 && tiled_rows_for<T>(as_single_element_rows(p), slabs))
        return launch_tiled_rows<T, Acc>(in, slabs, out, op, to_acc, l);
      if constexpr (!is_arg_op_v<Op>) {
        plan interleaved;
        if (const std::int64_t rows = interleaved_columns_for<T, Acc>(in, p, interleaved))
          return (void)launch_columns<T, Acc>(in, interleaved, out, op, to_acc, l, rows, true);
        plan mapped;
        if (mapped_period_columns_for<T>(p, l.facts().sm_count, mapped) && !small_column_tiles<T>(mapped))
          return (void)launch_columns<T, Acc>(in, mapped, out, op, to_acc, l);
      }
      if constexpr (periodic_columns_fit<T, Acc> && !is_arg_op_v<Op>) {
        if (launch_periodic_slabs<T, Acc>(in, p, out, op, to_acc, l)) return;
      }
      if (small_column_tiles<T>(p)) {
        if (wide_tiled_slabs_for<T>(p, slabs)) return launch_tiled_rows<T, Acc>(in, slabs, out, op, to_acc, l);
        // (Copies were offered to the stacked tiles above, before the tiled kernel.)
        if (p.runs.count > 0 && launch_stacked_small_tiles<T, Acc>(in, p, out, op, to_acc, l)) return;
        return launch<T, Acc>(in, small_tiles_as_rows(p, l.facts()), out, op, to_acc, l);
      }
      launch_columns<T, Acc>(in, p, out, op, to_acc, l);
      return;
    }
  }
}

// Segments by offsets (axis/segments_kernel.cuh): one resident wave of blocks, since the
// lengths are known only on the device and a few long segments may need every block. Claimed
// batches are sized so that there are about segment_claims_per_block of them per block:
// enough to balance, few enough that the claim cursor is no bottleneck (a million one-element
// segments would otherwise be a million atomics on one address).
template <typename T, typename Acc, typename Op, typename ToAcc>
void launch_segments(const T* in, const std::int64_t* begins, const std::int64_t* ends, std::int64_t segments, Acc* out,
                     Op op, ToAcc to_acc, device::launcher& l) {
  if (segments == 0) return;
  auto kernel = segments_kernel<T, Acc, Op, ToAcc>;
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, segments_block, l.device());
  segments_shape shape{};
  shape.segments = segments;
  const std::int64_t per_claim = segments / (segments_policy::claims_per_block * wave);
  shape.group = std::min(power_of_two_at_most(std::max<std::int64_t>(per_claim / segments_warps, 1)), blocks::warp_size);
  shape.groups_per_warp = std::min(power_of_two_at_most(std::max<std::int64_t>(per_claim / (segments_warps * shape.group), 1)),
                                   max_groups_per_warp);
  shape.long_items = std::max<std::int64_t>(segments_policy::long_bytes / std::int64_t(sizeof(T)), 1);
  shape.chunk_items = std::max<std::int64_t>(segments_policy::chunk_bytes / std::int64_t(sizeof(T)), 1);
  shape.list_capacity = segments_policy::list_capacity;
  shape.slot_capacity = segments_policy::slot_capacity;
  // One finish over the grid (the last block out resets the list), the list's counters, and
  // its entries and chunk partials.
  const device::scratch_request scratch{1, segment_list_layout::counters(shape),
                                        segment_list_layout::partial_bytes<Acc>(shape)};
  l.launch_with_scratch(kernel, static_cast<unsigned>(wave), segments_block, 0, scratch, in, begins, ends, shape, out, op,
                        to_acc);
}

}  // namespace warpfold::axis
