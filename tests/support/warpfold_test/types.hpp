// What the tests need to know about each element type, in one place: a short name for test
// names and traces, whether it is an integer or a float, its conversion to long double, its
// machine epsilon, and the "poison" value written around an input to catch stray reads.
// Covers every type the production API supports: int8..int64, uint8..uint64, __half,
// __nv_bfloat16, float and double.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace warpfold_test {

template <typename T>
inline constexpr bool is_half_like_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <typename T>
inline constexpr bool is_float_like_v = std::is_floating_point_v<T> || is_half_like_v<T>;

template <typename T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, __half>) return "half";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bfloat16";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else static_assert(sizeof(T) == 0, "warpfold_test: no name for this element type");
}

// Exact for every supported type (long double has a 64-bit mantissa on x86-64).
template <typename T>
long double to_real(T x) {
  if constexpr (std::is_same_v<T, __half>) return static_cast<long double>(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return static_cast<long double>(__bfloat162float(x));
  else return static_cast<long double>(x);
}

// Rounds a double to T (round to nearest even). Integers truncate, as static_cast does.
template <typename T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __double2half(x);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __double2bfloat16(x);
  else return static_cast<T>(x);
}

// Unit roundoff times two: the gap between 1 and the next value of T (float for half types
// when they accumulate in float: pass the accumulator type, not the element type).
template <typename T>
constexpr long double epsilon() {
  if constexpr (std::is_same_v<T, __half>) return 0x1p-10L;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return 0x1p-7L;
  else return static_cast<long double>(std::numeric_limits<T>::epsilon());
}

// Written around an input (see device_input) so that a kernel reading even one element too
// many gets a wrong answer without any sanitizer:
// - floats: a quiet NaN, which turns any sum, min or max it enters into NaN;
// - integers: an odd value, so m stray reads add m * poison, which is never 0 modulo 2^bits
//   for 0 < m < 2^bits, and never vanishes from a sum in any accumulator width.
// (For min/max tests of integers, pass a poison beyond the data's range instead.)
template <typename T>
T default_poison() {
  if constexpr (is_float_like_v<T>) {
    return from_double<T>(std::numeric_limits<double>::quiet_NaN());
  } else {
    static_assert(is_integer_v<T>, "warpfold_test: unsupported element type");
    return static_cast<T>((0x5EADBEEF5EADBEEFull >> (64 - 8 * sizeof(T))) | 1u);
  }
}

}  // namespace warpfold_test
