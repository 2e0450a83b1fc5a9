// Rows streamed flat: [R, L] along dim 1 for row lengths that the flat kernel does not take
// (anything but 1, 2, 4, ... 32 whole aligned vectors), rows that start anywhere, and slices
// whose gaps are small: the rows are one stretch of memory, and the grid reads it as the full
// reduce reads an array, in equal shares, whatever R and L are.
//
// Why: the kernels that give each row to a group of lanes or a block leave two kinds of
// waste that no choice of group fixes. A row of 617 floats is 155 16-byte blocks, which a
// warp with four loads a lane reads in two rounds, the second 21% full; and 8,597 rows of 3,203
// floats on 4,224 warps are 2.04 rows a warp, so a few warps read a third row while the rest
// wait (H100, 2026-11-28: 72% and 74% of the read ceiling, against 92% for [8192, 8192]).
//
// How: the grid's warps split the stretch's aligned 16-byte vectors into equal ranges
// (chunk_of). A warp streams its range, row_stream_slots loads a lane in flight, and follows
// which row each element is in: a row's end inside a warp's round of loads closes the row
// (a warp reduction; the next elements go to the next row). A row that a warp holds whole is
// written by it. A row that crosses ranges leaves a partial per warp in scratch; the warp that
// ends the row's run of partials counts them on an arrival counter, and the last to arrive adds
// them up in range order, so the result is the same run to run.
#pragma once

#include <cstdint>
#include <limits>

#include "warpfold/axis/plan.hpp"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/vector_fold.cuh"
#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/device/scratch.hpp"

namespace warpfold::axis {

inline constexpr int row_stream_block = 512;
inline constexpr int row_stream_warps = row_stream_block / blocks::warp_size;
// Two 512-thread blocks per SM with eight 16-byte loads a lane: 128 KB in flight per SM, what
// the production reduce keeps with twice the threads and four loads each. Four for other
// element sizes, whose folds (eight halves to float, or 64-bit items) made ptxas spill 48-312
// bytes with eight within 64 registers (sm_90).
template <typename T>
inline constexpr int row_stream_slots = sizeof(T) == 4 ? 8 : 4;

// Folds the items of vector v (positions x0 .. x0 + V - 1) that lie in [lo, hi), indexed from
// row_offset.
template <typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE Acc fold_in_span(Acc acc, const blocks::vector16<T>& v, int x0, int lo, int hi, std::int64_t row_offset,
                                 Op op, ToAcc to_acc) {
  constexpr int V = blocks::vector16<T>::size;
  if (lo <= x0 && x0 + V <= hi) return blocks::fold_vector_items(op, acc, v.items, x0 - row_offset, to_acc);
  if (x0 + V <= lo || hi <= x0) return acc;
  return blocks::fold_vector_range(op, acc, v.items, x0 - row_offset, lo - x0, hi - x0, to_acc);
}

// A warp's part of a row that crosses ranges: stored as partial `slot` (2w for the row the warp
// ends, 2w + 1 for one that goes on past its range); the last of the row's warps adds the row's
// partials in warp order and writes the output. Every lane calls it; `part` is valid in lane 0.
template <typename T, typename Acc, typename Op, typename Out>
WARPFOLD_DEVICE void hand_over_split_row(const row_stream_shape& s, std::int64_t row, std::int64_t slot, Acc part, Out out,
                                         Op op, const device::scratch_view& scratch) {
  const int lane = threadIdx.x % blocks::warp_size;
  const std::int64_t first = s.warp_holding(s.start(row), sizeof(T)), last = s.warp_holding(s.end(row) - 1, sizeof(T));
  Acc* partials = scratch.partials_as<Acc>();
  int arrives_last = 0;
  if (lane == 0) {
    partials[slot] = part;
    __threadfence();
    arrives_last = blocks::take_last_ticket(scratch.counters + last, static_cast<unsigned>(last - first + 1));
  }
  if (!__shfl_sync(blocks::full_warp_mask, arrives_last, 0)) return;
  __threadfence();  // pairs with the other warps' fences
  Acc total = op.template identity<Acc>();
  for (std::int64_t w = first + lane; w <= last; w += blocks::warp_size)
    total = op(total, blocks::load_from_other_blocks(partials + (w == last ? 2 * w : 2 * w + 1)));
  total = blocks::warp_reduce(total, op);
  if (lane == 0) {
    blocks::count_group_finished(scratch.finished);
    out[s.order(row)] = total;
  }
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(row_stream_block, 2)
    row_stream_kernel(const T* in, row_stream_shape s, Out out, Op op, ToAcc to_acc, device::scratch_view scratch) {
  blocks::wait_for_prior_kernels();
  constexpr int V = blocks::vector16<T>::size;
  constexpr int W = blocks::warp_size;
  constexpr int past = std::numeric_limits<int>::max();
  const blocks::streaming_vector_load load;
  const int lane = threadIdx.x % W;
  const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / W;
  if (warp >= s.warps) return;  // a small stretch: fewer warps than the last block has
  const index_range range = chunk_of(s.vectors, s.warps, warp);
  const std::int64_t lo = range.begin * V;
  // From here positions count from the range's start, in 32 bits (the host keeps a range under
  // 2^31 elements): 64-bit positions took the loop past 64 registers.
  const T* base = in - s.head + lo;
  const int vectors = static_cast<int>(range.end - range.begin);
  const int end = vectors * V;
  const std::int64_t view_end = s.end(s.rows - 1) - lo;  // the view's last element is before it
  const auto clamp = [](std::int64_t x) { return static_cast<int>(x < -1 ? -1 : x > past ? past : x); };
  const int loaded_end = clamp(view_end);

  // The row that the warp folds into now: its index, its start from lo in 64 bits (indices of
  // argmin/argmax count from it), and its start and end clamped to 32 bits (past: none left).
  std::int64_t row = s.first_row_ending_after(lo);
  std::int64_t row_offset = s.start(row) - lo;
  int row_start = clamp(row_offset), row_end = clamp(row_offset + s.row_length);
  const bool first_row_began_before = row_offset < 0;
  const auto next_row = [&] {
    ++row;
    row_offset += s.row_stride;
    row_start = row < s.rows ? clamp(row_offset) : past;
    row_end = row < s.rows ? clamp(row_offset + s.row_length) : past;
  };
  Acc acc = op.template identity<Acc>();
  Acc head_part = op.template identity<Acc>();  // the first row's part, when it began before lo

  for (int q0 = 0; q0 < vectors; q0 += row_stream_slots<T> * W) {
    blocks::vector16<T> v[row_stream_slots<T>];
#pragma unroll
    for (int k = 0; k < row_stream_slots<T>; ++k) {
      const int q = q0 + k * W + lane;
      if (q >= vectors) continue;
      if ((q + 1) * V <= loaded_end) {
        v[k] = load(base, q);
      } else {  // the view's last vector: its elements only, nothing past the view
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (q * V + e < loaded_end) v[k].items[e] = base[q * V + e];
      }
    }
    const int step_end = (q0 + row_stream_slots<T> * W < vectors ? q0 + row_stream_slots<T> * W : vectors) * V;
    if (row_start <= q0 * V && step_end < row_end) {
      // Inside one row (every round of a long row's range but its ends): whole vectors.
#pragma unroll
      for (int k = 0; k < row_stream_slots<T>; ++k) {
        const int q = q0 + k * W + lane;
        if (q < vectors) acc = blocks::fold_vector_items(op, acc, v[k].items, q * V - row_offset, to_acc);
      }
      continue;
    }
#pragma unroll
    for (int k = 0; k < row_stream_slots<T>; ++k) {
      const int slot_first = q0 + k * W;
      if (slot_first >= vectors) break;  // the same for the whole warp
      const int q = slot_first + lane;
      const bool mine = q < vectors;
      const int slot_end = (slot_first + W < vectors ? slot_first + W : vectors) * V;
      // Rows that end in this round of the warp's loads, one at a time.
      while (row_end <= slot_end) {
        if (mine) acc = fold_in_span(acc, v[k], q * V, row_start, row_end, row_offset, op, to_acc);
        const Acc total = blocks::warp_reduce(acc, op);
        if (row_offset >= 0) {
          if (lane == 0) out[s.order(row)] = total;
        } else {
          head_part = total;
        }
        acc = op.template identity<Acc>();
        next_row();
      }
      if (mine) acc = fold_in_span(acc, v[k], q * V, row_start, row_end, row_offset, op, to_acc);
    }
  }

  // The first row, if it began in an earlier range and ended in this one.
  const std::int64_t first_row = s.first_row_ending_after(lo);
  if (first_row_began_before && first_row < row)
    hand_over_split_row<T>(s, first_row, 2 * warp, head_part, out, op, scratch);
  // The row that goes on past the range, if the range holds any of it.
  if (row < s.rows && row_start < end) {
    const Acc part = blocks::warp_reduce(acc, op);
    hand_over_split_row<T>(s, row, 2 * warp + 1, part, out, op, scratch);
  }
}

}  // namespace warpfold::axis
