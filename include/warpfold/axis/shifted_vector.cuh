// Load layer for columns whose rows do not start on 16-byte boundaries: a matrix with an odd
// number of columns (7 x 10000019 along dim 0), f16 rows of 61 elements, a sliced view. Such
// columns used to be read one element per thread, 4 or 2 bytes a load: a quarter or an eighth
// of what a warp needs in flight to stream.
//
// A thread still owns V consecutive columns (one 16-byte vector's worth). In a row where they
// start s elements past a 16-byte boundary, it loads the two aligned vectors that hold them and
// keeps items s .. s + V - 1 of the pair. The second vector is the first of the thread to its
// right, loaded again: these loads allocate in L1 (the streaming loads of the aligned kernels
// do not), so the repeat is served there and memory is read once. s may change from row to row
// (rows of an odd length), so the window is cut at run time: two selects by words, then a
// funnel shift for the bytes.
//
// That is two loads and about forty instructions a warp's row (Nsight Compute, H200: 37.1
// million warp instructions for f32 [354439, 311] along dim 0, 864 thousand warp rows). Where
// every row of a thread starts at the same shift, the columns kernel avoids both (block space:
// columns_kernel.cuh, realign_block_sums). Taking the second block from the neighbouring lane
// by shuffles instead of a second load was tried and lost (H200, 2026-11-29: 1.24x to 2.07x
// slower over 40 shifted cases, by the rows in flight; its realignment still cost as many
// instructions a row, and more registers).
#pragma once

#include <cstdint>
#include <cstring>

#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/vector_fold.cuh"
#include "warpfold/config.hpp"

namespace warpfold::axis {

// Bytes from the 16-byte boundary at or before `at` to `at`.
template <typename T>
WARPFOLD_DEVICE unsigned shift_bytes_of(const T* at) {
  return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(at) % blocks::vector_bytes);
}

// The 16 bytes from `at` on, for any alignment of `at` (a multiple of sizeof(T)). Reads the
// two 16-byte blocks that hold them: the caller makes sure that both lie inside the array
// (blocks that end past the array's last byte may lie past its allocation).
template <typename T>
WARPFOLD_DEVICE blocks::vector16<T> load_shifted(const T* at) {
  const unsigned shift_bytes = shift_bytes_of(at);
  const auto* aligned = reinterpret_cast<const uint4*>(reinterpret_cast<std::uintptr_t>(at) - shift_bytes);
  const uint4 low = __ldg(aligned), high = __ldg(aligned + 1);
  unsigned w[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
  // Whole words first (0-3 of them), as two conditional moves of 2 and 1 words.
  if (shift_bytes & 8u) {
#pragma unroll
    for (int k = 0; k < 6; ++k) w[k] = w[k + 2];
  }
  if (shift_bytes & 4u) {
#pragma unroll
    for (int k = 0; k < 5; ++k) w[k] = w[k + 1];
  }
  // Then the bytes within a word (halves and bytes only; 0 for 4- and 8-byte types).
  const unsigned bits = (shift_bytes & 3u) * 8u;
  unsigned out[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) out[k] = __funnelshift_r(w[k], w[k + 1], bits);
  blocks::vector16<T> v;
  static_assert(sizeof(v) == sizeof(out), "a vector is 16 bytes");
  memcpy(&v, out, sizeof(v));
  return v;
}

// Whether load_shifted(at) reads only bytes before `end` (one past the array's last byte).
template <typename T>
WARPFOLD_DEVICE bool shifted_load_fits(const T* at, const T* end) {
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  return address - address % blocks::vector_bytes + 2 * blocks::vector_bytes <= reinterpret_cast<std::uintptr_t>(end);
}

// The vector at `at` by load_shifted where both of its aligned blocks lie before `end`, else
// (only near the view's end) element by element, its first `valid` elements only: nothing
// past the view is read, and the rest are zero.
template <typename T>
WARPFOLD_DEVICE blocks::vector16<T> load_shifted_before(const T* at, const T* end, std::int64_t valid) {
  if (shifted_load_fits(at, end)) return load_shifted(at);
  blocks::vector16<T> v;
#pragma unroll
  for (int e = 0; e < blocks::vector16<T>::size; ++e) v.items[e] = e < valid ? at[e] : T{};
  return v;
}

// The aligned block at `block` (block space: columns_kernel.cuh), or, where it ends past `end`
// (one past the view's last element), its elements before `end` and zeros: nothing past the
// view is read.
template <typename T>
WARPFOLD_DEVICE blocks::vector16<T> load_block_before(const T* block, const T* end) {
  if (block + blocks::vector16<T>::size <= end) return blocks::streaming_vector_load{}(block, 0);
  blocks::vector16<T> v{};
#pragma unroll
  for (int e = 0; e < blocks::vector16<T>::size; ++e)
    if (block + e < end) v.items[e] = block[e];
  return v;
}

// Rows of contiguous elements that start anywhere (f16 rows of 975, x[:, 1:-1]) are read in
// the aligned 16-byte blocks that hold them, one load each, where load_shifted would load two:
// block k of a row that starts `shift` elements past a boundary holds its elements
// k V - shift .. k V - shift + V - 1, of which those in [0, length) are the row's. A row
// touches at most ceil((shift + length) / V) blocks.
struct row_blocks {
  std::int64_t shift;   // elements from the first block's start to the row's
  std::int64_t length;  // the row's elements
  template <typename T>
  WARPFOLD_DEVICE static row_blocks of(const T* row, std::int64_t length) {
    return {static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(row) % blocks::vector_bytes / sizeof(T)), length};
  }
  // Row index of element 0 of block k (negative in the first block when shift > 0).
  template <typename T>
  WARPFOLD_DEVICE std::int64_t first_index(std::int64_t k) const { return k * blocks::vector16<T>::size - shift; }
  template <typename T>
  WARPFOLD_DEVICE bool holds_row_elements(std::int64_t k) const { return first_index<T>(k) < length; }
  template <typename T>
  WARPFOLD_DEVICE bool whole(std::int64_t k) const {
    return first_index<T>(k) >= 0 && first_index<T>(k) + blocks::vector16<T>::size <= length;
  }
};

// Block k of a shifted row (row_blocks), and its fold. A block that ends past the view's last
// element (only the last rows' last blocks) is read element by element, its row's elements
// only, so nothing past the view is read.
template <typename T>
WARPFOLD_DEVICE blocks::vector16<T> load_row_block(const T* row, const row_blocks& rb, std::int64_t k, const T* end) {
  constexpr int V = blocks::vector16<T>::size;
  const T* block = row + rb.first_index<T>(k);
  if (block + V <= end) return blocks::streaming_vector_load{}(block, 0);
  blocks::vector16<T> v{};
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const std::int64_t i = rb.first_index<T>(k) + e;
    if (i >= 0 && i < rb.length) v.items[e] = row[i];
  }
  return v;
}
template <typename Acc, typename T, typename Op, typename ToAcc>
WARPFOLD_DEVICE void fold_row_block(Acc& acc, const blocks::vector16<T>& v, const row_blocks& rb, std::int64_t k, Op op,
                                    ToAcc to_acc) {
  constexpr int V = blocks::vector16<T>::size;
  const std::int64_t first = rb.first_index<T>(k);
  if (rb.whole<T>(k)) {
    acc = blocks::fold_vector_items(op, acc, v.items, first, to_acc);
    return;
  }
  // Items [lo, hi) of the block are the row's: two 32-bit compares an item, where comparing
  // each item's 64-bit index took four.
  const int lo = first < 0 ? static_cast<int>(-first) : 0;
  const int hi = rb.length - first < V ? static_cast<int>(rb.length - first) : V;
  acc = blocks::fold_vector_range(op, acc, v.items, first, lo, hi, to_acc);
}

// One regular row of short_rows_kernel walked block by block (row_blocks), with what each
// block asks worked out once for the row: blocks before whole_end (from block 1 on, or block 0
// where the row starts on a boundary) hold only the row's elements and fold without a mask;
// blocks before loadable end before the view's end and load whole. Such a row touches at most
// max_group_row_items + 1 blocks (axis/launch.cuh), so block indices are ints. Per block that
// leaves a few 32-bit compares and a load, where row_blocks' own checks took a dozen 64-bit
// operations.
template <typename T>
struct shifted_row {
  static constexpr int V = blocks::vector16<T>::size;
  const T* first_block;  // the aligned block that holds the row's first element
  int shift;             // row_blocks::shift
  int length;
  int count;             // blocks the row touches (0 for a row past the last)
  int whole_end;         // blocks before it end inside the row
  int loadable;

  WARPFOLD_DEVICE static shifted_row of(const T* row, std::int64_t length, const T* view_end, bool exists) {
    shifted_row r;
    r.shift = static_cast<int>(row_blocks::of(row, length).shift);
    r.length = static_cast<int>(length);
    r.first_block = row - r.shift;
    const int span = r.shift + r.length;
    r.count = exists ? (span + V - 1) / V : 0;
    r.whole_end = span / V;
    const std::int64_t before_end = (view_end - r.first_block) / V;
    r.loadable = before_end < r.count ? static_cast<int>(before_end) : r.count;
    return r;
  }
  WARPFOLD_DEVICE blocks::vector16<T> load(int k, const T* view_end) const {
    if (k < loadable) return blocks::streaming_vector_load{}(first_block, k);
    return load_row_block(first_block + shift, row_blocks{shift, length}, k, view_end);
  }
  template <typename Acc, typename Op, typename ToAcc>
  WARPFOLD_DEVICE void fold(Acc& acc, const blocks::vector16<T>& v, int k, Op op, ToAcc to_acc) const {
    if (k < whole_end && (k > 0 || shift == 0))
      acc = blocks::fold_vector_items(op, acc, v.items, std::int64_t(k) * V - shift, to_acc);
    else
      fold_row_block(acc, v, row_blocks{shift, length}, k, op, to_acc);
  }
};

}  // namespace warpfold::axis
