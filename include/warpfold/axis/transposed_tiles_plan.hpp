// The host half of transposed_tiles_kernel.cuh (which says what the kernel is for): the
// tile's shape, and whether a plan suits it. Host code only, so that the CPU tests check the
// shape against the plan directly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "warpfold/axis/plan.hpp"

namespace warpfold::axis {

struct transposed_tiles_policy {
  // Outputs that lie in memory in another order than in the output and read at most this many
  // bytes each go through transposed tiles; more bytes an output make the other kernels'
  // scattered stores a small share of the traffic.
  static constexpr std::int64_t max_reduced_bytes = 256;
  // A tile's rows hold at least this many bytes: shorter ones would read a 32-byte sector
  // for a few bytes each.
  static constexpr std::int64_t min_row_bytes = 64;
  // Where the deepest slab's tile writes at most max_scattered_run outputs side by side, a
  // smaller slab is taken if its tile writes at least min_sector_run (a 32-byte sector of
  // floats) and loads at least half as many vectors: the deepest such slab whose tile writes
  // min_output_run (a warp's stores side by side), or else the one that writes most
  // (transposed_tiles_for says why, and what was measured).
  static constexpr std::int64_t max_scattered_run = 3;
  static constexpr std::int64_t min_sector_run = 8;
  static constexpr std::int64_t min_output_run = 32;
};

namespace detail {
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace detail

inline constexpr int transposed_block = 256;
// The tile's accumulators in shared memory (what sets a thread's vectors, below), and the room
// for the rows' padding (transposed_row_pitch): 36 KiB a block, three blocks an SM (the
// kernel's registers allow three).
inline constexpr int transposed_staging_bytes = 32 * 1024;
inline constexpr int transposed_staged_bytes = transposed_staging_bytes + 4 * 1024;

// 16-byte vectors a thread reads per tile row and outer reduced index: four (64 bytes in
// flight a thread, each a pair of aligned loads), fewer where 256 x K vectors' accumulators
// would not fit the staging (int8 sums in int64, moments).
template <typename T, typename Acc>
inline constexpr int transposed_vectors_per_thread = [] {
  constexpr int per_vector = int(sizeof(Acc)) * int(16 / sizeof(T));
  constexpr int fit = transposed_staging_bytes / (transposed_block * per_vector);
  return fit < 4 ? fit : 4;
}();

// One axis of a tile's outputs: its extent in a whole tile, its step in the staged tile and in
// the output. `along` says which extent a tile at the edge cuts: 0 none (a slab axis), 1 the
// row axis, 2 the rows.
struct tile_output_axis {
  std::int64_t extent;
  std::int64_t staged_stride;
  std::int64_t out_stride;
  int along;
};

struct transposed_tiles_shape {
  std::int64_t slab;              // elements of the contiguous slab of small axes: a row's unit
  std::int64_t row_axis_extent;   // the kept axis of stride `slab` that rows run along (1: none)
  std::int64_t row_axis_tile;     // its indices per tile
  std::int64_t row_axis_out_stride;
  std::int64_t rows_extent;       // the kept axis that the tile's rows step along (1: none)
  std::int64_t rows_tile;         // its indices per tile
  std::int64_t rows_in_stride;
  std::int64_t rows_out_stride;
  std::int64_t vectors_per_row;   // 16-byte vectors of a whole tile's row (load_shifted: at any shift)
  std::int64_t staged_row_pitch;  // accumulators from one staged row to the next (padded)
  std::int64_t row_axis_tiles;    // tiles along the row axis
  std::int64_t rows_tiles;        // tiles along the rows' axis
  strided_dims outer_kept;        // the other kept axes: one tile grid each (input strides)
  strided_dims outer_kept_out;    // the same axes' output strides
  strided_dims outer_reduced;     // the other reduced axes: folded per element while reading
  tile_output_axis out_axes[3];   // the tile's outputs, row-major (the last the output's innermost)
  int slab_reduced_count;         // the slab's reduced axes, folded from the staged tile
  std::int64_t slab_reduced_extent[2];
  std::int64_t slab_reduced_stride[2];
  std::int64_t end;               // one past the view's last element, from `in`
};

// Accumulators from one staged row of `vectors` vectors to the next: padded to an odd number
// of 16-byte words where the staging has room for `rows` such rows. The output pass reads the
// staging in the output's order; where that runs across the tile's rows (the output's
// innermost axis is the rows' one), a warp reads one accumulator of each of 32 rows, and with
// rows 128 floats long all 32 fall in one shared-memory bank: 32 reads one after another. An
// odd number of 16-byte words spreads 4-byte accumulators over 8 banks (four reads each).
template <typename T, typename Acc>
std::int64_t transposed_row_pitch(std::int64_t vectors, std::int64_t rows) {
  constexpr std::int64_t V = 16 / sizeof(T);
  const std::int64_t pitch = vectors * V;
  if (rows <= 1 || (pitch * std::int64_t(sizeof(Acc)) / 16) % 2 == 1) return pitch;
  // The fewest accumulators that make a whole number of 16-byte words, if that is odd.
  constexpr std::int64_t pad = 16 / std::gcd(std::int64_t{16}, std::int64_t(sizeof(Acc)));
  if constexpr ((pad * std::int64_t(sizeof(Acc)) / 16) % 2 == 0) return pitch;
  if (rows * (pitch + pad) * std::int64_t(sizeof(Acc)) > transposed_staged_bytes) return pitch;
  return pitch + pad;
}

namespace detail {

// The outputs that a tile of `s` writes side by side: its innermost output axis, times the
// next while each continues the last in the output (a whole slab axis of out stride 3 above
// one of extent 3).
inline std::int64_t tile_output_run(const transposed_tiles_shape& s) {
  std::int64_t run = 1;
  for (int a = 2; a >= 0 && s.out_axes[a].out_stride == run; --a) run *= s.out_axes[a].extent;
  return run;
}

// transposed_tiles_for's shape for the innermost `slab_axes` of `axes` (sorted by stride,
// innermost first) as the slab; whether that shape is valid.
template <typename T, typename Acc, typename WaveOf>
bool tiles_with_slab(const plan_axis* axes, int count, int slab_axes, int innermost_out, WaveOf& wave_of,
                     transposed_tiles_shape& s) {
  constexpr std::int64_t V = 16 / sizeof(T);
  constexpr int K = transposed_vectors_per_thread<T, Acc>;
  std::int64_t slab = 1;
  for (int i = 0; i < slab_axes; ++i) slab *= axes[i].extent;
  const int row_axis = slab_axes < count && !axes[slab_axes].reduced && axes[slab_axes].stride == slab ? slab_axes : -1;
  const int rows_axis = innermost_out < slab_axes || innermost_out == row_axis ? -1 : innermost_out;

  s = {};
  int out_axes = 0;
  s.slab_reduced_extent[0] = s.slab_reduced_extent[1] = 1;
  for (int i = 0; i < slab_axes; ++i) {
    if (!axes[i].reduced) {
      if (out_axes == 3) return false;
      s.out_axes[out_axes++] = {axes[i].extent, axes[i].stride, axes[i].out_stride, 0};
    } else {
      if (s.slab_reduced_count == 2) return false;
      s.slab_reduced_extent[s.slab_reduced_count] = axes[i].extent;
      s.slab_reduced_stride[s.slab_reduced_count++] = axes[i].stride;
    }
  }
  s.slab = slab;
  s.row_axis_extent = row_axis >= 0 ? axes[row_axis].extent : 1;
  s.row_axis_out_stride = row_axis >= 0 ? axes[row_axis].out_stride : 0;
  s.rows_extent = rows_axis >= 0 ? axes[rows_axis].extent : 1;
  s.rows_in_stride = rows_axis >= 0 ? axes[rows_axis].stride : 0;
  s.rows_out_stride = rows_axis >= 0 ? axes[rows_axis].out_stride : 0;
  if (out_axes + (row_axis >= 0) + (rows_axis >= 0) > 3) return false;

  // The tile: up to 32 rows, then as many slabs per row as the staging holds.
  const std::int64_t vectors = std::int64_t(transposed_block) * K;
  s.rows_tile = std::min<std::int64_t>(s.rows_extent, 32);
  // (A thread's vector k of a row holds the row's elements k V .. k V + V - 1 at any shift:
  // load_shifted.)
  const std::int64_t slab_vectors = ceil_div(slab, V);
  if (slab_vectors * s.rows_tile > vectors) s.rows_tile = std::max<std::int64_t>(1, vectors / slab_vectors);
  s.row_axis_tile = std::min(s.row_axis_extent, (vectors / s.rows_tile) * V / slab);
  if (s.row_axis_tile < 1) return false;
  // Enough tiles for the wave: f32 [24, 1319, 11, 5] with strides (72545, 55, 1, 11) over axis
  // 0 made 18 tiles of 74 slabs, and took 4.9x the time of the rows kernels (H100,
  // 2026-11-28). Smaller tiles, while every thread keeps a vector to read.
  const std::int64_t wave = wave_of();
  std::int64_t outer_tiles = 1;  // the kept axes outside the tile
  for (int i = slab_axes; i < count; ++i)
    if (!axes[i].reduced && i != row_axis && i != rows_axis) outer_tiles *= axes[i].extent;
  outer_tiles *= ceil_div(s.rows_extent, s.rows_tile);
  const bool cut = outer_tiles * ceil_div(s.row_axis_extent, s.row_axis_tile) < wave;
  if (cut)
    s.row_axis_tile =
        std::max<std::int64_t>(1, std::min(s.row_axis_tile, s.row_axis_extent / ceil_div(wave, outer_tiles)));
  // Tiles of one size along each axis: 29 slabs in tiles of up to 21 are tiles of 15 and 14,
  // not of 21 and 8 (the second's threads mostly idle, while it takes a whole tile's time).
  s.row_axis_tile = ceil_div(s.row_axis_extent, ceil_div(s.row_axis_extent, s.row_axis_tile));
  s.vectors_per_row = ceil_div(s.row_axis_tile * slab, V);
  // Rows shorter than the staging allows (a short row axis) leave room for more of them.
  s.rows_tile = std::min(s.rows_extent, std::max(s.rows_tile, vectors / s.vectors_per_row));
  s.rows_tile = ceil_div(s.rows_extent, ceil_div(s.rows_extent, s.rows_tile));
  if (s.rows_tile * s.vectors_per_row > vectors) return false;
  if (cut && s.rows_tile * s.vectors_per_row < transposed_block) return false;  // idle threads
  if (s.row_axis_tile * slab * std::int64_t(sizeof(T)) < transposed_tiles_policy::min_row_bytes) return false;
  s.row_axis_tiles = ceil_div(s.row_axis_extent, s.row_axis_tile);
  s.rows_tiles = ceil_div(s.rows_extent, s.rows_tile);
  s.staged_row_pitch = transposed_row_pitch<T, Acc>(s.vectors_per_row, s.rows_tile);
  if (row_axis >= 0) s.out_axes[out_axes++] = {s.row_axis_tile, slab, s.row_axis_out_stride, 1};
  if (rows_axis >= 0) s.out_axes[out_axes++] = {s.rows_tile, s.staged_row_pitch, s.rows_out_stride, 2};
  // Row-major over the output: the output's innermost axis last.
  std::sort(s.out_axes, s.out_axes + out_axes,
            [](const tile_output_axis& a, const tile_output_axis& b) { return a.out_stride > b.out_stride; });
  for (int a = out_axes; a < 3; ++a) s.out_axes[a] = {1, 0, 0, 0};
  std::rotate(s.out_axes, s.out_axes + out_axes, s.out_axes + 3);  // the unit axes first

  // The rest, outermost in memory first.
  for (int i = count - 1; i >= slab_axes; --i) {
    if (i == row_axis || i == rows_axis) continue;
    if (!axes[i].reduced) {
      s.outer_kept.push(axes[i].extent, axes[i].stride);
      s.outer_kept_out.push(axes[i].extent, axes[i].out_stride);
    } else {
      s.outer_reduced.push(axes[i].extent, axes[i].stride);
    }
  }
  // Fewer tiles than a quarter of the wave, each folding several outer reduced indices one
  // after another, leave most of the GPU idle: f32 [2, 17, 19, 26, 28] permuted over {0, 3}
  // made 5 tiles of 26 indices, f16 [2, 19, 1286, 2] over {0, 1} one tile of 38, and took
  // 5.6x and 7x the time of the other kernels (H100, 2026-11-28).
  const std::int64_t tiles = s.outer_kept.size() * s.row_axis_tiles * s.rows_tiles;
  if (tiles * 4 < wave && s.outer_reduced.size() > 1) return false;
  s.end = 1;  // one past the last element: every axis at its last index
  for (int i = 0; i < count; ++i) s.end += (axes[i].extent - 1) * axes[i].stride;
  return true;
}

}  // namespace detail

// A plan whose outputs lie in memory in another order than in the output, with few elements
// each, as transposed_tiles_kernel takes it (that file says why). From the plan's axes in
// memory order, innermost first:
// - the slab: the innermost axes while they are one contiguous stretch that fits a tile;
// - the row axis: the kept axis just above the slab, contiguous with it, a tile's rows running
//   along it (absent when that axis is reduced, or not contiguous);
// - the rows: the output's innermost kept axis, when it is neither in the slab nor the row
//   axis, a tile holding up to 32 of its indices (its rows anywhere in memory);
// - the other axes: kept ones give the tiles of the grid, reduced ones are folded while reading.
// The slab is the deepest one, unless its tile writes at most
// transposed_tiles_policy::max_scattered_run outputs side by side: a slab as large as the
// staging holds leaves room for a few slabs a tile, and where the output's innermost axis runs
// along the slabs or the rows, each output then lands in a 32-byte sector of its own. f32 [15,
// 27, 1171, 124] with strides (.., .., 1, 1171), copied: a slab of the 1171 axis, three to a
// tile, three floats side by side in every 124 (774.8 us for 224 MiB each way, torch 427.2;
// H200, 2026-11-29). A smaller slab then, whose tile writes at least a sector's worth
// (min_sector_run) and loads at least half as many vectors: the deepest that writes
// min_output_run, or else the one that writes most. Without the slab, that copy's tiles are 32
// rows of 128 elements. Measured against the earlier tiles (the deepest slab, rows unpadded,
// tiles unbalanced) on the random cases of seeds 1-176 whose slab a smaller one would replace
// (H200, 2026-11-29; the rule was drawn from these):
// the 39 whose deepest tile writes one to three outputs side by side, 0.72x on geometric mean
// (0.22-1.07x from 2 MiB up, 0.77-1.34x below); the 44 where it writes more, 0.99x (0.64-2.22x:
// the smaller slab's rows, tens to hundreds of bytes read at any shift, lose what the longer
// runs win), so those keep the deepest.
// Taken when the output's innermost kept axis is not the kept axis innermost in memory (the
// output's order is not memory's), each output reads at most
// transposed_tiles_policy::max_reduced_bytes, the tile is at most three output axes and two
// reduced ones of the slab, its rows hold at least transposed_tiles_policy::min_row_bytes, and
// the tiles fill `wave` blocks (cut smaller for that, while every thread keeps a vector to
// read; or, where they cannot be cut, a quarter of it unless each tile reads its rows once).
// Copies too (no reduced axis, or only unit ones), which are transposes: f32
// [1, 89, 2, 45017, 7] with strides (.., 630238, 315119, 1, 45017) over the unit axis 0 went
// to the columns kernel, one element a row, 7-float steps apart in the output, and took 843 us
// for its 213 MiB, torch 404 (H200, 2026-11-29). Not for argmin/argmax (the caller's check).
// Fills `s`.
// `wave_of()` gives the wave; it is asked only of plans that pass every other test (it is an
// occupancy query, and every rows and columns plan comes here first), and once.
template <typename T, typename Acc, typename WaveOf>
bool transposed_tiles_for(const plan& p, WaveOf wave_of, transposed_tiles_shape& s) {
  constexpr std::int64_t V = 16 / sizeof(T);
  constexpr int K = transposed_vectors_per_thread<T, Acc>;
  if constexpr (K < 1) {
    return false;
  } else {
    if (p.kind != plan_kind::rows && p.kind != plan_kind::columns) return false;
    if (p.inner_stride != 1 || p.reduced < 1 ||
        p.reduced * std::int64_t(sizeof(T)) > transposed_tiles_policy::max_reduced_bytes)
      return false;
    if (p.kind == plan_kind::rows && !p.out_order.identity()) return false;
    constexpr int most = 2 * strided_dims::max_dims + 1;
    detail::plan_axis axes[most];  // (extent, input stride, reduced, output stride)
    int count = 0;
    // Kept axes in the output's order (row-major output strides), then the reduced ones.
    const strided_dims& kept = p.kind == plan_kind::columns ? p.kept_all : p.kept;
    std::int64_t out_step = 1;
    for (int i = kept.count - 1; i >= 0; --i) {
      if (kept.extent[i] > 1) axes[count++] = {kept.extent[i], kept.stride[i], false, out_step};
      out_step *= kept.extent[i];
    }
    for (int i = 0; i < p.runs.count; ++i)
      if (p.runs.extent[i] > 1) axes[count++] = {p.runs.extent[i], p.runs.stride[i], true};
    if (p.kind == plan_kind::rows && p.run_length > 1) axes[count++] = {p.run_length, p.inner_stride, true};
    for (int i = 0; i < count; ++i)
      if (axes[i].stride <= 0) return false;  // broadcast axes
    std::sort(axes, axes + count, [](const detail::plan_axis& a, const detail::plan_axis& b) { return a.stride < b.stride; });
    if (count == 0 || axes[0].stride != 1) return false;
    int innermost_out = -1, first_kept = -1;
    for (int i = 0; i < count; ++i) {
      if (axes[i].reduced) continue;
      if (first_kept < 0) first_kept = i;
      if (axes[i].out_stride == 1) innermost_out = i;
    }
    if (innermost_out < 0 || innermost_out == first_kept) return false;  // no kept axis, or memory's order

    // The deepest slab: contiguous innermost axes that fit the staging.
    const std::int64_t capacity = std::int64_t(transposed_block) * K * V;  // elements a tile stages
    std::int64_t slab = 1;
    int deepest = 0;
    while (deepest < count && axes[deepest].stride == slab && slab * axes[deepest].extent <= capacity)
      slab *= axes[deepest++].extent;
    std::int64_t wave = 0;
    auto wave_once = [&] { return wave > 0 ? wave : (wave = wave_of()); };
    // The other tests are the deepest slab's; smaller slabs only change a tile whose outputs
    // land apart.
    if (!detail::tiles_with_slab<T, Acc>(axes, count, deepest, innermost_out, wave_once, s)) return false;
    if (detail::tile_output_run(s) > transposed_tiles_policy::max_scattered_run) return true;
    const std::int64_t deepest_vectors = s.rows_tile * s.vectors_per_row;
    std::int64_t best_run = 0;
    for (int slab_axes = deepest - 1; slab_axes >= 0 && best_run < transposed_tiles_policy::min_output_run; --slab_axes) {
      transposed_tiles_shape candidate{};
      if (!detail::tiles_with_slab<T, Acc>(axes, count, slab_axes, innermost_out, wave_once, candidate)) continue;
      const std::int64_t run = std::min(detail::tile_output_run(candidate), transposed_tiles_policy::min_output_run);
      if (run < transposed_tiles_policy::min_sector_run || 2 * candidate.rows_tile * candidate.vectors_per_row < deepest_vectors)
        continue;
      if (run > best_run) {
        s = candidate;
        best_run = run;
      }
    }
    return true;
  }
}

}  // namespace warpfold::axis
