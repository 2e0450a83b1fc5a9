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
//
// Wider slabs come here too ([B, 26, 3] halves over the 26, [B, 24, 34]: 78 and 816 elements a
// slab, a few to hundreds per tile), where a column tile of one slab would give a block a few
// dozen elements: a group of lanes adds up each output when a tile holds fewer outputs than
// the block has threads.
//
// Longer rows that start anywhere ([N, 157] floats, [N, 975] halves: up to a few per tile)
// come here too. Read by rows, each row is the aligned 16-byte blocks that hold it, a group
// of lanes per row with one or two loads each in flight, and a power-of-two group on 40
// blocks leaves a third of its lanes idle: 48% of the read ceiling for f32 [429536, 157]
// (H100, 2026-11-27). From the tile, a group of `group` lanes adds up each row instead of
// one thread, so that a tile of a few long rows still keeps the block busy.
#pragma once

#include <cstdint>

#include "warpfold/axis/plan.hpp"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

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
  // Each row may hold `columns` outputs ([B, R, C] over R: row b is the slab of b, and output
  // (b, c) adds its elements c, c + S, ..., c + (R - 1) S, S = slab_row_stride, C for a
  // contiguous slab): row_length is (R - 1) S + C. 1 for plain rows.
  std::int64_t columns;
  std::int64_t slab_rows;        // R
  std::int64_t slab_row_stride;  // S
  output_order order;  // plain rows: where output o (row-major over block, row) goes
  // The lanes that add up one row (plain rows) or one output (slabs) from the tile, a power of
  // two up to a warp, so that the tile's rows or outputs x group is about the block's threads.
  int group;
};

// The rows per tile for rows of `length` elements `stride` apart.
template <typename T>
WARPFOLD_HOST_DEVICE std::int64_t tiled_rows_per_tile(std::int64_t stride, std::int64_t length) {
  return (tiled_rows_elements<T> - length) / stride + 1;
}

// Items 0 .. count - 1 of a tile (rows, or a slab's outputs), a group of G lanes each (a power
// of two up to a warp): group g of a warp takes item step + g, fold(item, rank) is lane rank's
// share of it, and the group's first lane stores the group's total. The loop bound depends on
// the warp only, so every lane reaches group_reduce together.
template <typename Acc, typename Op, typename Fold, typename Store>
WARPFOLD_DEVICE void for_each_by_groups(int count, int G, Op op, Fold fold, Store store) {
  const int log2_group = __ffs(G) - 1;
  const int lane = threadIdx.x % blocks::warp_size;
  const int rank = lane & (G - 1);
  const int per_warp = blocks::warp_size >> log2_group;
  constexpr int warps = tiled_rows_block / blocks::warp_size;
  for (int step = static_cast<int>(threadIdx.x / blocks::warp_size) * per_warp; step < count; step += warps * per_warp) {
    const int item = step + (lane >> log2_group);
    Acc acc = item < count ? fold(item, rank) : op.template identity<Acc>();
    if (G > 1) acc = blocks::group_reduce(acc, op, G);
    if (rank == 0 && item < count) store(item, acc);
  }
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(tiled_rows_block)
    tiled_rows_kernel(const T* in, tiled_rows_shape s, Out out, Op op, ToAcc to_acc) {
  blocks::wait_for_prior_kernels();
  // Raw bytes: __half and __nv_bfloat16 have constructors, which __shared__ arrays may not run.
  // One vector more than a tile's stretch: the body is placed 16-byte aligned (below).
  __shared__ alignas(16) unsigned char tile_bytes[tiled_rows_bytes + blocks::vector_bytes];
  constexpr int V = blocks::vector16<T>::size;
  constexpr int L = tiled_loads_in_flight;
  static_assert(tiled_rows_bytes / blocks::vector_bytes + 1 <= L * tiled_rows_block,
                "one round of L loads a thread covers a tile's vectors");
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
    // after its last one alone, the rest as vectors. Every load of the tile is issued before
    // any is stored (a tile's vectors are at most L a thread), so a block has its whole tile
    // in flight at once; loaded one by one, each thread waited for each of its vectors in
    // turn. Element i of the stretch goes to tile[i], with the tile placed so that the body's
    // vectors land 16-byte aligned in shared memory too and are stored whole: storing a
    // vector element by element at an unaligned place was V stores, each with 4-way bank
    // conflicts. Copying the next tile with cp.async while this one is added up (two tiles a
    // block) left the CLI's tile cases as they were, some 6-14% slower (H200, 2026-11-28:
    // docs/results/H200/tile_copy_2026-11-28; branch experiment/tile-copy-async).
    const blocks::aligned_split split = blocks::split_at_alignment(stretch, span);
    T* tile = reinterpret_cast<T*>(tile_bytes) + (split.head == 0 ? 0 : V - split.head);
    const T* body = stretch + split.head;
    blocks::vector16<T> x[L];
#pragma unroll
    for (int u = 0; u < L; ++u) {
      const std::int64_t v = threadIdx.x + u * tiled_rows_block;
      if (v < split.body_vectors) x[u] = load(body, v);
    }
    const bool has_head = threadIdx.x < split.head;
    const std::int64_t tail = split.tail_begin + threadIdx.x;
    const bool has_tail = tail < span;
    T head_element{}, tail_element{};
    if (has_head) head_element = stretch[threadIdx.x];
    if (has_tail) tail_element = stretch[tail];
    auto* body_tile = reinterpret_cast<blocks::vector16<T>*>(tile + split.head);
#pragma unroll
    for (int u = 0; u < L; ++u) {
      const std::int64_t v = threadIdx.x + u * tiled_rows_block;
      if (v < split.body_vectors) body_tile[v] = x[u];
    }
    if (has_head) tile[threadIdx.x] = head_element;
    if (has_tail) tile[tail] = tail_element;
    __syncthreads();

    if (s.columns == 1) {  // plain rows: no division per output (rows of 2 are most of the work)
      auto fold_row = [&](std::int64_t r, int first, int step) {
        Acc acc = op.template identity<Acc>();
        const T* row = tile + r * s.row_stride;
        for (std::int64_t i = first; i < s.row_length; i += step) acc = op(acc, to_acc(row[i], i));
        return acc;
      };
      // Outputs in order, or through the map (a permuted view): separate loops, as a test
      // per store made copies (rows of one element) 1.5x slower.
      const std::int64_t first_output = outer * s.rows + first_row;
      if (s.group == 1) {  // short rows: a thread per row
        if (s.order.identity()) {
          for (std::int64_t r = threadIdx.x; r < rows; r += tiled_rows_block) to[r] = fold_row(r, 0, 1);
        } else {
          for (std::int64_t r = threadIdx.x; r < rows; r += tiled_rows_block)
            out[s.order(first_output + r)] = fold_row(r, 0, 1);
        }
      } else {  // long rows: a group per row, its lanes every G-th element
        for_each_by_groups<Acc>(static_cast<int>(rows), s.group, op, [&](int r, int rank) { return fold_row(r, rank, s.group); },
                                [&](int r, const Acc& acc) {
                                  if (s.order.identity()) to[r] = acc;
                                  else out[s.order(first_output + r)] = acc;
                                });
      }
    } else {
      // Slabs: output q of the tile is (slab r, column c), a group per output, its lanes every
      // G-th row of the slab. A tile holds at most a tile's elements of outputs, so 32-bit
      // positions do.
      const int columns = static_cast<int>(s.columns);
      const int slab_rows = static_cast<int>(s.slab_rows), slab_row_stride = static_cast<int>(s.slab_row_stride);
      const int G = s.group;
      auto fold_output = [&](int q, int rank) {
        const int r = q / columns, c = q - r * columns;
        const T* column = tile + r * static_cast<int>(s.row_stride) + c;
        Acc acc = op.template identity<Acc>();
        for (int i = rank; i < slab_rows; i += G) acc = op(acc, to_acc(column[i * slab_row_stride], i));
        return acc;
      };
      for_each_by_groups<Acc>(static_cast<int>(rows) * columns, G, op, fold_output, [&](int q, const Acc& acc) { to[q] = acc; });
    }
    __syncthreads();  // the tile is read before the next one overwrites it
  }
}

}  // namespace warpfold::axis
