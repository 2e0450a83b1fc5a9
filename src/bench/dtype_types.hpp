// The one place that maps a bench dtype to its C++ element type. Needs the CUDA half types,
// so it is kept apart from dtype.hpp, which plain C++ (the option parser, CPU tests) uses.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bench/dtype.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {

template <typename T>
struct type_tag {
  using type = T;
};

// Calls visit(type_tag<T>{}) with the element type of `t` and returns what it returns.
template <typename Visit>
decltype(auto) visit_dtype(dtype t, Visit&& visit) {
  switch (t) {
    case dtype::i32: return visit(type_tag<std::int32_t>{});
    case dtype::f32: return visit(type_tag<float>{});
    case dtype::f64: return visit(type_tag<double>{});
    case dtype::f16: return visit(type_tag<__half>{});
    case dtype::bf16: return visit(type_tag<__nv_bfloat16>{});
  }
  throw invalid_argument("unknown dtype");
}

template <typename T>
inline constexpr bool half_like = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The result of a baseline's sum that keeps the element type: T, except that half and bf16
// sums are accumulated and returned in float (summed in half, 2^24 values in [0, 1) give inf).
template <typename T>
using sum_in_type_t = std::conditional_t<half_like<T>, float, T>;

// How an answer of type R is checked: an int32 sum wraps, other integers are exact, floats
// get a tolerance for their width.
template <typename R>
constexpr result_kind result_kind_of() {
  if constexpr (std::is_same_v<R, std::int32_t>) return result_kind::int32_wrapping;
  else if constexpr (std::is_integral_v<R>) return result_kind::int64;
  else if constexpr (std::is_same_v<R, double>) return result_kind::float64;
  else return result_kind::float32;
}

template <typename R>
result_value to_result_value(R value) {
  result_value r;
  if constexpr (std::is_integral_v<R>) r.integer = static_cast<std::int64_t>(value);
  else r.real = static_cast<double>(value);
  return r;
}

}  // namespace warpfold::bench
