// Data and comparisons that the tests of the reproducible and exact sums share: the kinds of
// data they sum (narrow, wide and full exponent range, cancellation) and a bit-for-bit
// comparison of results.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "warpfold_test/types.hpp"

namespace sum_modes_test {

using warpfold_test::to_real;

template <typename T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(static_cast<float>(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(static_cast<float>(x));
  else return static_cast<T>(x);
}

// The exponent range that every kind of data stays in, per type.
template <typename T>
constexpr int lowest_exponent() {
  return std::is_same_v<T, __half> ? -24 : std::is_same_v<T, double> ? -1074 : std::is_same_v<T, float> ? -149 : -133;
}
template <typename T>
constexpr int highest_exponent() {
  return std::is_same_v<T, __half> ? 15 : std::is_same_v<T, double> ? 1023 : 127;
}

// The largest finite value of T.
template <typename T>
constexpr double largest_finite() {
  return std::is_same_v<T, __half> ? 65504.0
         : std::is_same_v<T, double> ? DBL_MAX
         : std::is_same_v<T, float>  ? double(FLT_MAX)
                                     : 0x1.fep127;  // bfloat16
}

enum class data_kind {
  unit,        // uniform in [-1, 1)
  wide,        // magnitudes log-uniform over 2^-40 .. 2^40 (as far as the type reaches), random signs
  full,        // random finite bit patterns: every exponent, subnormals included
  cancelling,  // wide values, then each of them negated, shuffled, and a few tiny ones: the sum is tiny
};
inline const char* kind_name(data_kind k) {
  switch (k) {
    case data_kind::unit: return "unit";
    case data_kind::wide: return "wide";
    case data_kind::full: return "full";
    case data_kind::cancelling: return "cancelling";
  }
  return "?";
}
inline constexpr data_kind all_kinds[] = {data_kind::unit, data_kind::wide, data_kind::full, data_kind::cancelling};

template <typename T>
T random_finite_bits(std::mt19937_64& rng) {
  for (;;) {
    const std::uint64_t bits = rng();
    T x;
    std::memcpy(static_cast<void*>(&x), &bits, sizeof(T));
    if (std::isfinite(static_cast<double>(to_real(x)))) return x;
  }
}

template <typename T>
std::vector<T> make_data(std::int64_t n, std::uint64_t seed, data_kind kind) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const int low = std::max(-40, lowest_exponent<T>() + 11), high = std::min(40, highest_exponent<T>() - 1);
  std::uniform_int_distribution<int> exponent(low, high);
  auto wide = [&] { return std::ldexp(unit(rng), exponent(rng)); };
  std::vector<T> x(static_cast<std::size_t>(n));
  if (kind == data_kind::cancelling) {
    const std::int64_t half = n / 2;
    for (std::int64_t i = 0; i < half; ++i) {
      x[i] = from_double<T>(wide());
      x[half + i] = from_double<T>(-static_cast<double>(to_real(x[i])));
    }
    std::shuffle(x.begin(), x.begin() + 2 * half, rng);
    for (std::int64_t i = 2 * half; i < n; ++i) x[i] = from_double<T>(std::ldexp(unit(rng), low));
    return x;
  }
  for (auto& v : x) {
    if (kind == data_kind::unit) v = from_double<T>(unit(rng));
    else if (kind == data_kind::wide) v = from_double<T>(wide());
    else v = random_finite_bits<T>(rng);
  }
  return x;
}

template <typename R>
::testing::AssertionResult same_bits(R got, R expected) {
  if ((std::isnan(got) && std::isnan(expected)) || std::memcmp(&got, &expected, sizeof(R)) == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << "got " << got << ", expected " << expected << std::defaultfloat
                                       << " (" << got << " vs " << expected << ")";
}

}  // namespace sum_modes_test
