// How a thread folds the items of one loaded 16-byte vector into its accumulator.
//
// The plain way applies the op once per item. For most ops that is the cheapest there is (an
// add, a min). Two ops cost far more per call than per item needs, so they first reduce the
// vector among its own items with something cheaper, then combine once:
// - argmin/argmax: the op compares indices (64-bit) and checks both sides for "no element" and
//   NaN on every call. A vector's best value is found first, by value alone (for halves, two
//   at a time with min.NaN/max.NaN); if it does not beat the thread's best so far, which is
//   nearly always once a thread has seen a few vectors, that is all; otherwise the first item
//   holding it meets the op. H100, 2026-11-23: f16 argmin at 2^28 ran at 62-65% of the read
//   ceiling with the op per item, 80.9% with the best item per vector, 97.4% with this.
// - combine_moments (var_mean, std_mean): a merge of moments divides and converts 64-bit
//   counts. The vector's own count, mean and M2 are computed exactly as a small two-pass
//   (mean first, then the squared deviations from it, so no cancellation), and merged once.
//   f16 var_mean at 2^28: 57-59% of the ceiling merged per item, 96.9% this way.
// - min/max of halves and bfloat16s, and their L-infinity norm: each item would be widened to
//   float and meet the op's NaN checks; instead the vector's items (or their magnitudes) meet
//   two at a time (min.NaN/max.NaN), and only their best is widened. H100, 2026-11-23, 2^28:
//   f16 max ran at 97.1% of the read ceiling with the op per item, 98.5-99.1% this way; f16
//   norm_linf at 97.3%, then 98.4-98.6% (the f16 sum: 99.2%).
// - sums and products of halves and bfloat16s: the items are widened two at a time from the
//   words that hold them (widen_pair), in the same order, so the result's bits do not change.
// All give the results the per-item fold gives: argmin/argmax the same (value, index); min/max
// the same value (NaN if any item is NaN; of -0 and +0 either, fixed by the order); moments
// the same value up to rounding, by a merge tree that is no deeper. Each shortcut is taken only
// where the converter says it may be (blocks/fold_traits.hpp).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "warpfold/accumulator.hpp"
#include "warpfold/blocks/fold_traits.hpp"
#include "warpfold/config.hpp"
#include "warpfold/stats/moments.hpp"

namespace warpfold::blocks {

// The low and high halves of a half2 or bfloat162.
WARPFOLD_DEVICE __half low_half(__half2 p) { return __low2half(p); }
WARPFOLD_DEVICE __half high_half(__half2 p) { return __high2half(p); }
WARPFOLD_DEVICE __nv_bfloat16 low_half(__nv_bfloat162 p) { return __low2bfloat16(p); }
WARPFOLD_DEVICE __nv_bfloat16 high_half(__nv_bfloat162 p) { return __high2bfloat16(p); }

// Whether value x beats the best so far for argmin (Max = false) or argmax (Max = true): a NaN
// beats every number, and among equals the earlier item stays.
template <bool Max, typename V>
WARPFOLD_DEVICE bool beats(V x, V best) {
  if (detail::is_nan(best)) return false;
  if (detail::is_nan(x)) return true;
  return Max ? best < x : x < best;
}

// Halves and bfloat16s in an even count: what packed_best takes.
template <typename Item, int K>
inline constexpr bool packs_in_pairs = (std::is_same_v<Item, __half> || std::is_same_v<Item, __nv_bfloat16>) && K % 2 == 0;

// The smallest (Max = false) or largest item of a vector, NaN if any is NaN: one min.NaN
// (max.NaN) of two halves at a time, K / 2 instructions for K items. With Magnitudes, of the
// items' absolute values.
template <bool Max, bool Magnitudes = false, typename Item, int K>
WARPFOLD_DEVICE Item packed_best(const Item (&items)[K]) {
  static_assert(packs_in_pairs<Item, K>, "halves or bfloat16s, an even count");
  using Pair = std::conditional_t<std::is_same_v<Item, __half>, __half2, __nv_bfloat162>;
  Pair pairs[K / 2];
  memcpy(pairs, items, sizeof(pairs));
  if constexpr (Magnitudes) {
#pragma unroll
    for (int j = 0; j < K / 2; ++j) pairs[j] = __habs2(pairs[j]);  // clears the signs; a NaN stays NaN
  }
  Pair m = pairs[0];
#pragma unroll
  for (int j = 1; j < K / 2; ++j) m = Max ? __hmax2_nan(m, pairs[j]) : __hmin2_nan(m, pairs[j]);
  return Max ? __hmax_nan(low_half(m), high_half(m)) : __hmin_nan(low_half(m), high_half(m));
}

// The two halves or bfloat16s of a 32-bit word (item 2j is word j's low half), widened to
// float exactly, straight from the word: a bfloat16 is a float's high 16 bits (a shift, a
// mask), and HADD2.F32 reads either half of a register. Widened one item at a time, each word
// was first cut in two (a PRMT an item), every item then held a register of its own, and
// 2-byte rows kernels spilled: bf16 rows of 7215 ran 120 instructions a 16-byte vector
// (H200, 2026-11-29, Nsight Compute).
template <typename Item>
WARPFOLD_DEVICE float2 widen_pair(unsigned word) {
  if constexpr (std::is_same_v<Item, __nv_bfloat16>) {
    return make_float2(__uint_as_float(word << 16), __uint_as_float(word & 0xffff0000u));
  } else {
    static_assert(std::is_same_v<Item, __half>, "halves or bfloat16s");
    __half2 pair;
    memcpy(&pair, &word, sizeof(pair));
    return __half22float2(pair);
  }
}

// f(j, the two items of word j widened by widen_pair), for each 32-bit word j of a vector of
// halves or bfloat16s, in order: the walk that the folds below share. Pair by pair, not
// through an array of the vector's widened items: that form made ptxas spill 24 bytes in the
// aligned 2-byte rows kernel (sm_90, CUDA 13.0).
template <typename Item, int K, typename F>
WARPFOLD_DEVICE void for_each_widened_pair(const Item (&items)[K], F f) {
  unsigned words[K / 2];
  memcpy(words, items, sizeof(words));
#pragma unroll
  for (int j = 0; j < K / 2; ++j) f(j, widen_pair<Item>(words[j]));
}

// The best value among a vector's items (NaN if any is NaN), as to_acc's value type.
template <bool Max, typename Item, int K, typename ToAcc>
WARPFOLD_DEVICE auto best_value(const Item (&items)[K], std::int64_t first, ToAcc to_acc) {
  if constexpr (packs_in_pairs<Item, K> && keeps_value_order<ToAcc>::value) {
    return to_acc(packed_best<Max>(items), first).value;
  } else {
    auto best = to_acc(items[0], first).value;
#pragma unroll
    for (int k = 1; k < K; ++k) {
      const auto x = to_acc(items[k], first + k).value;
      if (Max ? (best < x || detail::is_nan(x)) : (x < best || detail::is_nan(x))) best = x;
    }
    return best;
  }
}

// Whether op and to_acc merge each item's own moments ({1, x, 0}: var_mean). Their items may
// be folded K at a time in any grouping, whatever their indices (fold_vector_items with any
// `first`): a column kernel's U rows of one column meet in one merge instead of U
// (fold_column_rows).
template <typename Op, typename ToAcc>
inline constexpr bool merges_unit_moments = std::is_same_v<Op, op::combine_moments> && makes_unit_moments<ToAcc>::value;

// Whether to_acc only widens halves or bfloat16s to a float type: their fold may then widen
// them two at a time from the words that hold them (widen_pair).
template <typename Item, int K, typename ToAcc>
inline constexpr bool widens_pairs =
    packs_in_pairs<Item, K> && only_widens<ToAcc>::value &&
    std::is_floating_point_v<decltype(std::declval<ToAcc>()(std::declval<Item>(), std::int64_t{0}))>;

// acc = op(acc, to_acc(items[k], first + k)) for lo <= k < hi, in that order: a whole vector,
// or the part of one that lies in a row (the masked folds of the rows kernels). Halves and
// bfloat16s that only widen take widen_pair; their results are the same, bit for bit.
template <typename Op, typename Acc, typename Item, int K, typename ToAcc>
WARPFOLD_DEVICE Acc fold_vector_range(Op op, Acc acc, const Item (&items)[K], std::int64_t first, int lo, int hi,
                                      ToAcc to_acc) {
  if constexpr (widens_pairs<Item, K, ToAcc>) {
    using R = decltype(to_acc(items[0], first));
    for_each_widened_pair(items, [&](int j, float2 pair) {
      if (2 * j >= lo && 2 * j < hi) acc = op(acc, static_cast<R>(pair.x));
      if (2 * j + 1 >= lo && 2 * j + 1 < hi) acc = op(acc, static_cast<R>(pair.y));
    });
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (k >= lo && k < hi) acc = op(acc, to_acc(items[k], first + k));
  }
  return acc;
}

// acc = op(acc, to_acc(items[k], first + k)) for k = 0 .. K-1, in that order (or as if).
template <typename Op, typename Acc, typename Item, int K, typename ToAcc>
WARPFOLD_DEVICE Acc fold_vector_items(Op op, Acc acc, const Item (&items)[K], std::int64_t first, ToAcc to_acc) {
  if constexpr (is_arg_op_v<Op>) {
    constexpr bool is_max = std::is_same_v<Op, op::argmax>;
    // Only the .value of to_acc's (value, index) is used until the item is known; the compiler
    // drops the index.
    const auto best = best_value<is_max>(items, first, to_acc);
    // An earlier item that this vector's best does not beat stays: after a thread's first few
    // vectors this is nearly every vector, and costs one compare.
    const bool earlier = acc.index >= 0 && acc.index < first;
    if (earlier && !beats<is_max>(best, acc.value)) return acc;
    // Otherwise the first item that holds the best value. (The item itself is kept, not its
    // position: items[best_k] would put the vector in local memory.)
    Item best_item = items[K - 1];
    int best_k = K - 1;
#pragma unroll
    for (int k = K - 2; k >= 0; --k) {
      const auto x = to_acc(items[k], first + k).value;
      if (x == best || (detail::is_nan(x) && detail::is_nan(best))) {
        best_item = items[k];
        best_k = k;
      }
    }
    const auto candidate = to_acc(best_item, first + best_k);
    // It replaces an empty accumulator, or an earlier item that it beats, without the op's
    // checks: a thread's first vectors take this path often (at 2^22 floats, every thread
    // reads only four vectors).
    if (acc.index < 0 || earlier) return candidate;
    return op(acc, candidate);
  } else if constexpr ((std::is_same_v<Op, op::min> || std::is_same_v<Op, op::max>) && packs_in_pairs<Item, K> &&
                       only_widens<ToAcc>::value) {
    return op(acc, to_acc(packed_best<std::is_same_v<Op, op::max>>(items), first));
  } else if constexpr (folds_largest_magnitude<ToAcc>::value && packs_in_pairs<Item, K>) {
    return op(acc, to_acc(packed_best<true, true>(items), first));
  } else if constexpr (merges_unit_moments<Op, ToAcc>) {
    using A = decltype(acc.mean);
    A x[K];
    A sum = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      x[k] = to_acc(items[k], first + k).mean;
      sum += x[k];
    }
    const A mean = sum / A(K);
    A m2 = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) m2 += (x[k] - mean) * (x[k] - mean);
    return op(acc, Acc{K, mean, m2});
  } else {
    return fold_vector_range(op, acc, items, first, 0, K, to_acc);
  }
}

// acc[e] = op(acc[e], to_acc(items[e], index)) for every item e: one row of a column kernel's
// vector, an item for each of its columns. Halves and bfloat16s that only widen take
// widen_pair, as fold_vector_range does.
template <typename Op, typename Acc, typename Item, int K, typename ToAcc>
WARPFOLD_DEVICE void fold_vector_columns(Op op, Acc (&acc)[K], const Item (&items)[K], std::int64_t index,
                                         ToAcc to_acc) {
  if constexpr (widens_pairs<Item, K, ToAcc>) {
    using R = decltype(to_acc(items[0], index));
    for_each_widened_pair(items, [&](int j, float2 pair) {
      acc[2 * j] = op(acc[2 * j], static_cast<R>(pair.x));
      acc[2 * j + 1] = op(acc[2 * j + 1], static_cast<R>(pair.y));
    });
  } else {
#pragma unroll
    for (int e = 0; e < K; ++e) acc[e] = op(acc[e], to_acc(items[e], index));
  }
}

// Rows of the same columns, loaded together by a column kernel: row u (index first + u *
// step, which argmin/argmax report) holds one item of each column, and column e folds into
// acc[e]. Where the op merges unit moments (var_mean), each column's rows merge once, as one
// vector's items do; otherwise they meet acc[e] one row after another.
template <typename Op, typename Acc, typename T, int U, typename ToAcc>
WARPFOLD_DEVICE void fold_column_rows(Op op, Acc (&acc)[vector16<T>::size], const vector16<T> (&rows)[U],
                                      std::int64_t first, std::int64_t step, ToAcc to_acc) {
  if constexpr (merges_unit_moments<Op, ToAcc>) {
#pragma unroll
    for (int e = 0; e < vector16<T>::size; ++e) {
      T column[U];
#pragma unroll
      for (int u = 0; u < U; ++u) column[u] = rows[u].items[e];
      acc[e] = fold_vector_items(op, acc[e], column, first, to_acc);
    }
  } else {
#pragma unroll
    for (int u = 0; u < U; ++u) fold_vector_columns(op, acc, rows[u].items, first + u * step, to_acc);
  }
}
// The same for one column read an element at a time.
template <typename Op, typename Acc, typename T, int U, typename ToAcc>
WARPFOLD_DEVICE Acc fold_column_rows(Op op, Acc acc, const T (&rows)[U], std::int64_t first, std::int64_t step,
                                     ToAcc to_acc) {
  if constexpr (merges_unit_moments<Op, ToAcc>) {
    return fold_vector_items(op, acc, rows, first, to_acc);
  } else {
#pragma unroll
    for (int u = 0; u < U; ++u) acc = op(acc, to_acc(rows[u], first + u * step));
    return acc;
  }
}

}  // namespace warpfold::blocks
