// Independent CPU references. They share no code with the library: integer sums are done in
// uint64 and truncated to the accumulator (the definition of "wraps modulo 2^bits"), float sums
// in long double with compensation, so the reference is far more accurate than any GPU order.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "warpfold_test/tolerance.hpp"
#include "warpfold_test/types.hpp"

namespace warpfold_test {

// Exact sum of x[0, n) modulo 2^bits(Acc): each element is converted to Acc first (so int8
// sign-extends into an int64 accumulator), the additions are done in uint64 (well defined,
// and congruent modulo 2^64), and the total is truncated to Acc's width.
template <typename Acc, typename T>
Acc wrapped_sum(const T* x, std::int64_t n) {
  static_assert(is_integer_v<Acc> && is_integer_v<T>, "wrapped_sum is for integers");
  std::uint64_t total = 0;
  for (std::int64_t i = 0; i < n; ++i) total += static_cast<std::uint64_t>(static_cast<Acc>(x[i]));
  return static_cast<Acc>(static_cast<std::make_unsigned_t<Acc>>(total));
}

// A compensated (Neumaier) long double sum and the sum of magnitudes. The error of `sum` is
// about 2 * 2^-64 * sum_abs, whatever n: negligible next to any tolerance for float or double.
struct real_sum {
  long double sum = 0;
  long double compensation = 0;
  long double sum_abs = 0;

  void add(long double x) {
    const long double t = sum + x;
    compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
    sum_abs += std::fabs(x);
  }
  void merge(const real_sum& other) {
    const long double abs_before = sum_abs;
    add(other.sum);
    add(other.compensation);
    sum_abs = abs_before + other.sum_abs;
  }
  long double value() const { return sum + compensation; }
};

template <typename T>
real_sum real_sum_of(const T* x, std::int64_t n) {
  real_sum s;
  for (std::int64_t i = 0; i < n; ++i) s.add(to_real(x[i]));
  return s;
}

// What a sum of n elements of T into an accumulator Acc must come out as. Computed once per
// input, then checked against every kernel's result.
// - integer Acc: exactly `exact` (the wrapped sum);
// - float Acc: within sum_tolerance<Acc>(n, sum_abs) of `real` (see tolerance.hpp).
template <typename Acc>
struct expected_sum {
  std::int64_t n = 0;
  Acc exact{};             // integers only
  long double real = 0;    // floats: the compensated long double sum; integers: the unwrapped sum
  long double sum_abs = 0;

  long double tolerance() const { return is_integer_v<Acc> ? 0.0L : sum_tolerance<Acc>(n, sum_abs); }

  ::testing::AssertionResult matches(Acc got) const;
};

// Large inputs: the reference is computed on all cores, in fixed chunks, so the result does
// not depend on the number of threads.
template <typename Acc, typename T>
expected_sum<Acc> expect_sum(const T* x, std::int64_t n);

template <typename Acc, typename T>
expected_sum<Acc> expect_sum(const std::vector<T>& x) {
  return expect_sum<Acc>(x.data(), static_cast<std::int64_t>(x.size()));
}

// Combines the references of consecutive slices (for inputs made chunk by chunk).
template <typename Acc>
struct sum_accumulator {
  std::int64_t n = 0;
  std::uint64_t wrapped = 0;  // integers
  real_sum real;

  template <typename T>
  void add(const T* x, std::int64_t count);
  void add(const sum_accumulator& other) {
    n += other.n;
    wrapped += other.wrapped;
    real.merge(other.real);
  }
  expected_sum<Acc> result() const;
};

// min, max and the first index of each (argmin/argmax), for inputs without NaN.
template <typename T>
struct expected_extrema {
  T min{}, max{};
  std::int64_t argmin = -1, argmax = -1;  // -1 for an empty input
};

template <typename T>
expected_extrema<T> expect_extrema(const T* x, std::int64_t n) {
  expected_extrema<T> e;
  for (std::int64_t i = 0; i < n; ++i) {
    if (e.argmin < 0 || to_real(x[i]) < to_real(e.min)) e.min = x[i], e.argmin = i;
    if (e.argmax < 0 || to_real(x[i]) > to_real(e.max)) e.max = x[i], e.argmax = i;
  }
  return e;
}

// and/or/xor over x[0, n): the identities (all ones, 0, 0) for an empty input.
template <typename T>
struct expected_bits {
  T all_and = static_cast<T>(~T(0));
  T any_or = T(0);
  T parity_xor = T(0);
};

template <typename T>
expected_bits<T> expect_bits(const T* x, std::int64_t n) {
  static_assert(is_integer_v<T>, "bitwise references are for integers");
  expected_bits<T> e;
  for (std::int64_t i = 0; i < n; ++i) {
    e.all_and = static_cast<T>(e.all_and & x[i]);
    e.any_or = static_cast<T>(e.any_or | x[i]);
    e.parity_xor = static_cast<T>(e.parity_xor ^ x[i]);
  }
  return e;
}

// Formats a value for a failure message: integers exactly, floats with 21 significant digits
// (enough to show every bit of a double).
std::string format_real(long double x);

template <typename T>
std::string format_value(T x) {
  if constexpr (is_integer_v<T>) {
    if constexpr (std::is_signed_v<T>) return std::to_string(static_cast<long long>(x));
    else return std::to_string(static_cast<unsigned long long>(x));
  } else {
    return format_real(to_real(x));
  }
}

// ---- definitions ----

template <typename Acc>
::testing::AssertionResult expected_sum<Acc>::matches(Acc got) const {
  if constexpr (is_integer_v<Acc>) {
    if (got == exact) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "sum of " << n << " elements: got " << format_value(got) << ", expected exactly "
           << format_value(exact) << " (" << type_name<Acc>() << " wraps modulo 2^" << 8 * sizeof(Acc)
           << "; the unwrapped sum is " << format_real(real) << ")";
  } else {
    const long double value = to_real(got);
    const long double error = std::fabs(value - real);
    const long double tol = tolerance();
    if (error <= tol) return ::testing::AssertionSuccess();  // false for NaN
    return ::testing::AssertionFailure()
           << "sum of " << n << " elements: got " << format_real(value) << ", expected " << format_real(real)
           << " +- " << format_real(tol) << " (error " << format_real(error) << " = "
           << (tol > 0 ? format_real(error / tol) + " x the tolerance" : std::string("any error fails at n = 0"))
           << "; sum|x| = " << format_real(sum_abs) << ", eps(" << type_name<Acc>() << ") = "
           << format_real(epsilon<Acc>()) << ")";
  }
}

template <typename Acc>
template <typename T>
void sum_accumulator<Acc>::add(const T* x, std::int64_t count) {
  n += count;
  for (std::int64_t i = 0; i < count; ++i) {
    if constexpr (is_integer_v<Acc>) wrapped += static_cast<std::uint64_t>(static_cast<Acc>(x[i]));
    real.add(to_real(x[i]));
  }
}

template <typename Acc>
expected_sum<Acc> sum_accumulator<Acc>::result() const {
  expected_sum<Acc> e;
  e.n = n;
  if constexpr (is_integer_v<Acc>) e.exact = static_cast<Acc>(static_cast<std::make_unsigned_t<Acc>>(wrapped));
  e.real = real.value();
  e.sum_abs = real.sum_abs;
  return e;
}

// Defined in reference.cpp: splits [0, n) in fixed chunks and runs them on all cores.
void for_each_reference_chunk(std::int64_t n, const std::function<void(std::int64_t index, std::int64_t begin,
                                                                         std::int64_t end)>& body);
std::int64_t reference_chunk_count(std::int64_t n);

template <typename Acc, typename T>
expected_sum<Acc> expect_sum(const T* x, std::int64_t n) {
  std::vector<sum_accumulator<Acc>> pieces(static_cast<std::size_t>(reference_chunk_count(n)));
  for_each_reference_chunk(n, [&](std::int64_t index, std::int64_t begin, std::int64_t end) {
    pieces[static_cast<std::size_t>(index)].add(x + begin, end - begin);
  });
  sum_accumulator<Acc> total;
  for (const sum_accumulator<Acc>& piece : pieces) total.add(piece);
  return total.result();
}

}  // namespace warpfold_test
