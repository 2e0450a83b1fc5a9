// How a thread folds the items of one loaded 16-byte vector into its accumulator.
//
// The plain way applies the op once per item. For most ops that is the cheapest there is (an
// add, a min). Two ops cost far more per call than per item needs, so they first reduce the
// vector among its own items with something cheaper, then combine once:
// - argmin/argmax: the op compares indices (64-bit) and checks both sides for "no element" and
//   NaN on every call. Within one vector the indices are known to rise, so the best item is
//   found with 32-bit compares of values alone (strictly better wins, so the first of equal
//   items stays), and only that item meets the op. For 8 halves per vector this is most of the
//   work: H100, 2026-11-23, f16 argmin at 2^24..2^30 ran at 62-65% of the read ceiling with
//   the op per item.
// - combine_moments (var_mean, std_mean): a merge of moments divides and converts 64-bit
//   counts. The vector's own count, mean and M2 are computed exactly as a small two-pass
//   (mean first, then the squared deviations from it, so no cancellation), and merged once.
// Both give the results the per-item fold gives: argmin/argmax the same (value, index); moments
// the same value up to rounding, by a merge tree that is no deeper.
#pragma once

#include <cstdint>
#include <type_traits>

#include "warpfold/accumulator.hpp"
#include "warpfold/config.hpp"
#include "warpfold/stats/moments.hpp"

namespace warpfold::blocks {

// Whether item x beats the best so far for argmin (Max = false) or argmax (Max = true): a NaN
// beats every number, and among equals the earlier item stays.
template <bool Max, typename V>
WARPFOLD_DEVICE bool beats(V x, V best) {
  if (detail::is_nan(best)) return false;
  if (detail::is_nan(x)) return true;
  return Max ? best < x : x < best;
}

// acc = op(acc, to_acc(items[k], first + k)) for k = 0 .. K-1, in that order (or as if).
template <typename Op, typename Acc, typename Item, int K, typename ToAcc>
WARPFOLD_DEVICE Acc fold_vector_items(Op op, Acc acc, const Item (&items)[K], std::int64_t first, ToAcc to_acc) {
  if constexpr (is_arg_op_v<Op>) {
    constexpr bool is_max = std::is_same_v<Op, op::argmax>;
    // Only the .value of to_acc's (value, index) is used here; the compiler drops the index.
    // (The item itself is kept, not its position: items[best_k] would put the vector in
    // local memory.)
    auto best = to_acc(items[0], first).value;
    Item best_item = items[0];
    int best_k = 0;
#pragma unroll
    for (int k = 1; k < K; ++k) {
      const auto x = to_acc(items[k], first + k).value;
      if (beats<is_max>(x, best)) {
        best = x;
        best_item = items[k];
        best_k = k;
      }
    }
    return op(acc, to_acc(best_item, first + best_k));
  } else if constexpr (std::is_same_v<Op, op::combine_moments>) {
    using A = decltype(acc.mean);
    A x[K];
    A sum = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      x[k] = to_acc(items[k], first + k).mean;  // an element's moments are {1, x, 0}
      sum += x[k];
    }
    const A mean = sum / A(K);
    A m2 = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) m2 += (x[k] - mean) * (x[k] - mean);
    return op(acc, Acc{K, mean, m2});
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) acc = op(acc, to_acc(items[k], first + k));
    return acc;
  }
}

}  // namespace warpfold::blocks
