// Which type a reduction accumulates in, by default, for each op and element type.
//
// - sum and prod of integers of 32 bits or fewer accumulate in 64 bits (int64 for signed,
//   uint64 for unsigned): summing 2^31 int32 values cannot overflow int64, so the usual
//   "sum of a big int32 array" is simply right. 64-bit integers stay 64-bit and wrap
//   modulo 2^64; products wrap modulo 2^64 too.
// - __half and __nv_bfloat16 accumulate in float for every op: half has 11 bits of mantissa,
//   so summing in half stops growing at 2048 ones and overflows to inf at 65504 (CUB sums
//   half in half: 2^24 values in [0,1) give inf). float holds every half and bf16 exactly, so
//   min, max and argmin/argmax lose nothing either.
// - float and double accumulate in themselves.
// - min, max and the bitwise ops of integers accumulate in the element type: they cannot
//   overflow.
// Any call can name another accumulator through warpfold::reduce.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "warpfold/ops.hpp"

namespace warpfold {

template <typename T>
inline constexpr bool is_half_like_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The element types the production path supports.
template <typename T>
inline constexpr bool is_supported_element_v =
    is_half_like_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

namespace detail {

template <typename T>
using widened_integer_t = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;

template <typename Op, typename T>
struct default_accumulator {
  static_assert(is_supported_element_v<T>,
                "warpfold: unsupported element type (int8..int64, uint8..uint64, __half, __nv_bfloat16, float, double)");
  static constexpr bool widens = std::is_same_v<Op, op::sum> || std::is_same_v<Op, op::prod>;
  using type = std::conditional_t<is_half_like_v<T>, float,
               std::conditional_t<std::is_integral_v<T> && widens, widened_integer_t<T>, T>>;
};

}  // namespace detail

template <typename Op, typename T>
using accumulator_t = typename detail::default_accumulator<Op, T>::type;

// Fails to compile, with a readable message, when an op does not fit an element type.
template <typename Op, typename T>
constexpr void check_op_fits() {
  static_assert(is_supported_element_v<T>,
                "warpfold: unsupported element type (int8..int64, uint8..uint64, __half, __nv_bfloat16, float, double)");
  constexpr bool bitwise = std::is_same_v<Op, op::bit_and> || std::is_same_v<Op, op::bit_or> || std::is_same_v<Op, op::bit_xor>;
  static_assert(!bitwise || std::is_integral_v<T>, "warpfold: bit_and, bit_or and bit_xor need an integer element type");
}

// argmin/argmax carry the value in the same type as min/max do.
template <typename T>
using arg_result_t = value_index<accumulator_t<op::min, T>>;

template <typename Op>
inline constexpr bool is_arg_op_v = std::is_same_v<Op, op::argmin> || std::is_same_v<Op, op::argmax>;

// What a reduction with Op of T elements returns: (value, index) for argmin and argmax, the
// accumulator for every other op.
template <typename Op, typename T>
using reduce_result_t = std::conditional_t<is_arg_op_v<Op>, arg_result_t<T>, accumulator_t<Op, T>>;

}  // namespace warpfold
