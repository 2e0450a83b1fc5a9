// How far a float sum computed on the GPU may be from the exact sum.
//
//   tol(n) = eps(Acc) * sum|x| * (2 * ceil(log2(n + 1)) + 2 * sqrt(n))
//
// Why this bound. Every result is the exact sum plus one rounding error per addition, and an
// error made at a partial sum s is at most eps/2 * |s| <= eps/2 * sum|x|. What differs between
// the kernels is the shape of the additions:
// - trees (shared-memory and shuffle trees inside a block, the relaunch finisher's levels, the
//   last block's tree): an element passes through at most ceil(log2 n) additions in all, so
//   the tree part of the error is at most ceil(log2 n) * eps/2 * sum|x| (Higham, "Accuracy and
//   Stability of Numerical Algorithms", ch. 4: |error| <= gamma_h * sum|x| for height h);
// - sequential chains: each thread's grid-stride loop (steps 7-9), the host finisher's loop
//   over the partials, the second kernel's strided loop and the order of float atomics. A
//   chain of m additions has worst case m * eps/2 * sum|x|, but its rounding errors are
//   unbiased (round to nearest even) and independent for varied data, so they add like a
//   random walk: about sqrt(m) * eps/2 * sum|x|. No chain is longer than n.
// The sum of the two terms with a factor 4 of headroom (2 * eps = 4 * eps/2) gives tol(n).
// The tree term is a proof; the chain term is a statistical bound (Higham's rule of thumb),
// exceeded only by chains that round the same way over and over, i.e. by a bug such as
// accumulating in a narrower type. Inputs come from fixed seeds, so a pass is reproducible.
//
// What it can and cannot catch. For double, tol(10^8) is ~4e-4 while every element is ~1, so
// one dropped, doubled or stray element fails the test. For float, tol(10^8) is ~2e5 and only
// gross errors show: the exact integer tests are the ones that catch an index that is off by
// one at large n.
#pragma once

#include <cmath>
#include <cstdint>

#include "warpfold_test/types.hpp"

namespace warpfold_test {

inline long double tolerance_factor(std::int64_t n) {
  if (n <= 0) return 0.0L;
  const long double depth = std::ceil(std::log2(static_cast<long double>(n) + 1.0L));
  return 2.0L * depth + 2.0L * std::sqrt(static_cast<long double>(n));
}

// Acc is the type the sum is accumulated in (float for half inputs that accumulate in float).
template <typename Acc>
long double sum_tolerance(std::int64_t n, long double sum_abs) {
  return epsilon<Acc>() * sum_abs * tolerance_factor(n);
}

}  // namespace warpfold_test
