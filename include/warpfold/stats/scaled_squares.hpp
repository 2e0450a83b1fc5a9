// The sum of squares behind an L2 norm that neither overflows nor underflows when the norm
// itself is representable, in one pass with no division: Blue's algorithm (ACM TOMS, 1978), in
// the form that LAPACK's nrm2 uses since 3.10 (Anderson, "Algorithm 978: Safe scaling in the
// level 1 BLAS", ACM TOMS, 2017).
//
// Each |x| falls in one of three ranges, and its square goes to that range's sum, scaled by a
// power of two that keeps it representable (multiplying by a power of two is exact):
//   |x| >  big_threshold   -> big    += (|x| * big_scale)^2      (squares would overflow)
//   |x| <  small_threshold -> small  += (|x| * small_scale)^2    (squares would underflow)
//   otherwise              -> medium += x^2
// The three sums add componentwise, so partial results combine in any order, and finish()
// brings them together once. Used for double elements; float, half and bfloat16 squares are
// summed in double instead, whose range holds every one of them (stats/statistics.hpp).
#pragma once

#include <cmath>
#include <limits>

#include "warpfold/config.hpp"

namespace warpfold {

struct scaled_squares {
  double small;
  double medium;
  double big;
};

namespace detail::blue {
// The thresholds and scales for double (Anderson's table, radix 2, 53 digits,
// exponents -1021 .. 1024).
inline constexpr double small_threshold = 0x1p-511;
inline constexpr double big_threshold = 0x1p486;
inline constexpr double small_scale = 0x1p537;
inline constexpr double big_scale = 0x1p-538;
}  // namespace detail::blue

namespace op {

struct add_scaled_squares {
  template <typename S>
  WARPFOLD_HOST_DEVICE static S identity() {
    return S{0, 0, 0};
  }
  template <typename S>
  WARPFOLD_HOST_DEVICE S operator()(const S& a, const S& b) const {
    return S{a.small + b.small, a.medium + b.medium, a.big + b.big};
  }
};

}  // namespace op

WARPFOLD_HOST_DEVICE scaled_squares square_into_range(double x) {
  using namespace detail::blue;
  const double a = fabs(x);
  if (a > big_threshold) return {0, 0, (a * big_scale) * (a * big_scale)};
  if (a < small_threshold) return {(a * small_scale) * (a * small_scale), 0, 0};
  return {0, a * a, 0};  // NaN lands here, and propagates through medium
}

// sqrt of the whole sum of squares.
WARPFOLD_HOST_DEVICE double finish_scaled_squares(scaled_squares s) {
  using namespace detail::blue;
  if (s.big > 0) {
    // The medium squares are too small to matter unless they are NaN; adding them scaled
    // keeps a NaN a NaN.
    if (s.medium > 0 || s.medium != s.medium) s.big += (s.medium * big_scale) * big_scale;
    return sqrt(s.big) / big_scale;
  }
  if (s.small > 0) {
    if (s.medium > 0 || s.medium != s.medium) {
      // Both sums count: take their square roots in range and combine the two like hypot.
      const double medium_root = sqrt(s.medium);
      const double small_root = sqrt(s.small) / small_scale;
      const double larger = medium_root > small_root ? medium_root : small_root;
      const double smaller = medium_root > small_root ? small_root : medium_root;
      const double ratio = smaller / larger;
      return larger * sqrt(1 + ratio * ratio);
    }
    return sqrt(s.small) / small_scale;
  }
  return sqrt(s.medium);
}

}  // namespace warpfold
