// CPU references for the statistics (warpfold/statistics.hpp): long double sums over the
// host copy of the data, and the bounds that the GPU results must stay within.
#pragma once

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <string>

#include <warpfold/error.hpp>

#include "warpfold_test/tolerance.hpp"
#include "warpfold_test/types.hpp"

namespace statistics_test {

using warpfold_test::to_real;

struct reference {
  long double l1 = 0, sum_squares = 0, linf = 0, sum = 0, mean = 0, m2 = 0;
  bool nan = false, inf = false;
  std::int64_t n = 0;
};

// Two passes in long double: the mean, then the squared deviations from it.
template <typename T>
reference reference_of(const T* x, std::int64_t n) {
  reference r;
  r.n = n;
  for (std::int64_t i = 0; i < n; ++i) {
    const long double v = to_real(x[i]);
    if (std::isnan(v)) r.nan = true;
    if (std::isinf(v)) r.inf = true;
    r.l1 += std::fabs(v);
    r.sum_squares += v * v;
    r.linf = std::fmax(r.linf, std::fabs(v));
    r.sum += v;
  }
  r.mean = n > 0 ? r.sum / n : 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const long double d = to_real(x[i]) - r.mean;
    r.m2 += d * d;
  }
  return r;
}

// |got - expected| <= bound, or both NaN.
inline ::testing::AssertionResult near(long double got, long double expected, long double bound, const char* what) {
  if (std::isnan(expected) && std::isnan(got)) return ::testing::AssertionSuccess();
  if (got == expected) return ::testing::AssertionSuccess();
  if (std::fabs(got - expected) <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": got " << static_cast<double>(got) << ", expected "
                                       << static_cast<double>(expected) << " (bound " << static_cast<double>(bound)
                                       << ", off by " << static_cast<double>(std::fabs(got - expected)) << ")";
}

// What norm_l2 sums the squares of T in (stat::norm_l2): float for half, double otherwise
// (double's own norm goes through scaled sums, also in double).
template <typename T>
using squares_t = std::conditional_t<std::is_same_v<T, __half>, float, double>;

// Bounds, for results of type R accumulated in Acc (warpfold_test/tolerance.hpp for the form).
template <typename Acc, typename R>
long double l1_bound(const reference& r) {
  return warpfold_test::sum_tolerance<Acc>(r.n, r.l1) + warpfold_test::epsilon<R>() * r.l1;
}
// sqrt(S) moves by about dS / (2 sqrt S); then one rounding to R.
template <typename SquaresAcc, typename R>
long double l2_bound(const reference& r) {
  const long double norm = std::sqrt(r.sum_squares);
  if (norm == 0) return 0;
  return warpfold_test::sum_tolerance<SquaresAcc>(r.n, r.sum_squares) / (2 * norm) + warpfold_test::epsilon<R>() * norm;
}
template <typename Acc>
long double mean_bound(const reference& r) {
  if (r.n == 0) return 0;
  return warpfold_test::sum_tolerance<Acc>(r.n, r.l1) / r.n + warpfold_test::epsilon<Acc>() * std::fabs(r.mean);
}
// Welford's chains and Chan's merges: an error of a few eps per level and step, scaled by the
// variance and by |mean| * sigma (the size of the terms that cancel in x - mean).
template <typename Acc>
long double var_bound(const reference& r, long double var) {
  const long double sigma = std::sqrt(std::fabs(var));
  return 4 * warpfold_test::epsilon<Acc>() * warpfold_test::tolerance_factor(r.n) * (std::fabs(var) + std::fabs(r.mean) * sigma);
}

// Runs `call`, which must throw warpfold::invalid_argument with `words` in its message.
template <typename Call>
void expect_invalid_argument(Call call, const char* words) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one mentioning '" << words << "'";
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

inline long double var_of(const reference& r, double correction) {
  const long double dof = static_cast<long double>(r.n) - correction;
  return dof > 0 ? r.m2 / dof : std::numeric_limits<long double>::quiet_NaN();
}

}  // namespace statistics_test
