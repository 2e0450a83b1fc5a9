// CPU references for the reproducible and exact sums (warpfold/sum_modes.hpp). Neither shares
// code with the library:
// - exact_sum_reference adds every element in MPFR at a precision that makes each addition
//   exact (400 bits for float-range inputs, 2200 for double), then rounds once to the result
//   type with MPFR's own IEEE emulation (exponent range and subnormals set for that type);
// - reproducible_sum_reference performs, in plain C++ float or double arithmetic, the order of
//   additions that warpfold/sum_modes/reproducible_order.hpp describes in words.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace warpfold_test {

template <typename T>
using float_sum_result_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
float_sum_result_t<T> exact_sum_reference(const T* x, std::int64_t n);

template <typename T>
float_sum_result_t<T> reproducible_sum_reference(const T* x, std::int64_t n);

}  // namespace warpfold_test
