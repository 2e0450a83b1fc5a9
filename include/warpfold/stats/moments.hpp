// Mean and variance in one pass, without E[x^2] - E[x]^2 (which loses every digit when the
// mean is large against the spread: x = 1e4 + noise in float has var ~ 0 or negative that way).
//
// Each accumulator holds a count, a mean and M2 = sum (x - mean)^2 of the elements it has seen.
// An element enters by Welford's update; two accumulators merge by Chan, Golub and LeVeque's
// formula (1979),
//   delta = mean_b - mean_a,  n = n_a + n_b,
//   mean  = mean_a + delta * n_b / n,
//   M2    = M2_a + M2_b + delta^2 * n_a * n_b / n,
// so the grid can combine partials in any tree shape: the error grows with the depth of the
// tree (log n), not with n. The count is an integer: a float count stops growing at 2^24.
#pragma once

#include <cstdint>

#include "warpfold/config.hpp"

namespace warpfold {

template <typename A>
struct moments {
  std::int64_t count;
  A mean;
  A m2;
};

namespace op {

// Merges moments. Identity: no elements.
struct combine_moments {
  template <typename M>
  WARPFOLD_HOST_DEVICE static M identity() {
    return M{0, 0, 0};
  }
  template <typename M>
  WARPFOLD_HOST_DEVICE M operator()(const M& a, const M& b) const {
    using A = decltype(a.mean);
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    const A delta = b.mean - a.mean;
    // Equal counts, as the threads of a block and the blocks of a grid mostly have at the end:
    // b's share is exactly 1/2, so the general formula needs no division.
    if (a.count == b.count) {
      const A half_count = A(a.count) * A(0.5);
      return M{a.count + b.count, a.mean + delta * A(0.5), a.m2 + b.m2 + delta * delta * half_count};
    }
    const std::int64_t count = a.count + b.count;
    const A share_b = share_of<A>(b.count, count);
    return M{count, a.mean + delta * share_b, a.m2 + b.m2 + delta * delta * A(a.count) * share_b};
  }
  // b's share of the merged count, n_b / n. On the GPU, for float moments, n_b times the
  // hardware's reciprocal of n (within 2 ulp, which moves the merged mean and M2 by no more):
  // an IEEE division is a dozen instructions and a branch, and merges run one after another
  // where each block and then the grid combine their threads' moments.
  template <typename A>
  WARPFOLD_HOST_DEVICE static A share_of(std::int64_t count_b, std::int64_t count) {
#ifdef __CUDA_ARCH__
    if constexpr (sizeof(A) == sizeof(float)) return __fdividef(A(count_b), A(count));
#endif
    return A(count_b) / A(count);
  }
};

}  // namespace op

// Welford's update: one element into moments (a merge with a count of one, cheaper).
template <typename A>
WARPFOLD_HOST_DEVICE moments<A> add_to_moments(moments<A> m, A x) {
  m.count += 1;
  const A delta = x - m.mean;
  m.mean += delta / A(m.count);
  m.m2 += delta * (x - m.mean);
  return m;
}

}  // namespace warpfold
