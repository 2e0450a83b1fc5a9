// Warp layer: combine one value per lane into one value per warp with register shuffles.
// No shared memory and no barrier: the 32 lanes exchange registers directly, which is why the
// ladder's step 8 and the production path use this instead of a shared-memory tree.
#pragma once

#include <cstring>
#include <type_traits>

#include "warpfold/config.hpp"
#include "warpfold/ops.hpp"

namespace warpfold::blocks {

constexpr int warp_size = 32;
constexpr unsigned full_warp_mask = 0xffffffffu;

// __shfl_down_sync takes only built-in types; a struct (argmin's value_index, say) is moved as
// 4-byte words. The compiler turns the memcpy calls into register moves.
template <typename T>
WARPFOLD_DEVICE T shuffle_down(T value, int delta) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffle_down needs a trivially copyable type");
  constexpr int words = (sizeof(T) + sizeof(int) - 1) / sizeof(int);
  int packed[words] = {};
  std::memcpy(packed, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < words; ++w) packed[w] = __shfl_down_sync(full_warp_mask, packed[w], delta);
  T result;
  std::memcpy(&result, packed, sizeof(T));
  return result;
}

// Contract: all 32 lanes call it; the result is valid in lane 0 only.
// The combine order is a fixed tree, so a float result is the same on every run.
template <typename T, typename Op>
WARPFOLD_DEVICE T warp_reduce(T value, Op op) {
#pragma unroll
  for (int delta = warp_size / 2; delta > 0; delta /= 2) value = op(value, shuffle_down(value, delta));
  return value;
}

// argmin and argmax need no tree of their op, whose every call checks both sides for "no
// element" and NaN and compares 64-bit indices (about 20 instructions, with branches, per level
// and a few shuffles). The warp agrees on the best value first, as an integer key with one
// redux instruction (two for 64-bit values), then on the smallest index among the lanes that
// hold it (two more). The result is the op tree's: the first index of the best value, NaN
// beating every number, -0 equal to +0; it is valid in every lane. H100, 2026-11-24, f32
// argmin of 2^22 elements (one 16-byte vector per lane in each of four loads, so the reduce
// and finish weigh): the kernel ran 4.8M warp instructions, CUB's two kernels 2.2M.
namespace arg_detail {

// An unsigned integer whose order is v's order: floats by value (-0 and +0 alike), signed
// integers shifted by half their range. NaN is the caller's to place.
template <typename V>
WARPFOLD_DEVICE auto ordered_key(V v) {
  if constexpr (std::is_same_v<V, float>) {
    const unsigned bits = __float_as_uint(v == 0.0f ? 0.0f : v);
    return (bits >> 31) != 0u ? ~bits : bits | 0x80000000u;
  } else if constexpr (std::is_same_v<V, double>) {
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(v == 0.0 ? 0.0 : v));
    return (bits >> 63) != 0u ? ~bits : bits | (1ull << 63);
  } else if constexpr (sizeof(V) <= 4) {
    if constexpr (std::is_signed_v<V>) return static_cast<unsigned>(static_cast<int>(v)) ^ 0x80000000u;
    else return static_cast<unsigned>(v);
  } else {
    if constexpr (std::is_signed_v<V>) return static_cast<unsigned long long>(v) ^ (1ull << 63);
    else return static_cast<unsigned long long>(v);
  }
}

// The warp's smallest (Max = false) or largest key among lanes that take part.
template <bool Max>
WARPFOLD_DEVICE unsigned warp_best(unsigned key, bool takes_part) {
  if (Max) return __reduce_max_sync(full_warp_mask, takes_part ? key : 0u);
  return __reduce_min_sync(full_warp_mask, takes_part ? key : ~0u);
}
template <bool Max>
WARPFOLD_DEVICE unsigned long long warp_best(unsigned long long key, bool takes_part) {
  const unsigned high = warp_best<Max>(static_cast<unsigned>(key >> 32), takes_part);
  const unsigned low = warp_best<Max>(static_cast<unsigned>(key), takes_part && static_cast<unsigned>(key >> 32) == high);
  return (static_cast<unsigned long long>(high) << 32) | low;
}

template <bool Max, typename V>
WARPFOLD_DEVICE value_index<V> arg_warp_reduce(value_index<V> value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800  // no redux instructions: the op's tree
  using Op = std::conditional_t<Max, op::argmax, op::argmin>;
#pragma unroll
  for (int delta = warp_size / 2; delta > 0; delta /= 2) value = Op{}(value, shuffle_down(value, delta));
  return value;
#else
  const bool present = value.index >= 0;
  auto key = ordered_key(value.value);
  if constexpr (std::is_floating_point_v<V>) {
    if (value.value != value.value) key = Max ? ~decltype(key)(0) : decltype(key)(0);  // NaN beats every number
  }
  const bool any = __any_sync(full_warp_mask, present);
  if (!any) return value;  // no lane holds an element: every one is the identity
  const auto best = warp_best<Max>(key, present);
  const bool holds_best = present && key == best;
  const unsigned long long first = warp_best<false>(static_cast<unsigned long long>(value.index), holds_best);
  const unsigned winner = __ffs(__ballot_sync(full_warp_mask, holds_best && static_cast<unsigned long long>(value.index) == first)) - 1;
  value_index<V> result;
  result.index = static_cast<std::int64_t>(first);
  if constexpr (sizeof(V) < sizeof(int)) result.value = static_cast<V>(__shfl_sync(full_warp_mask, static_cast<int>(value.value), winner));
  else result.value = __shfl_sync(full_warp_mask, value.value, winner);
  return result;
#endif
}

}  // namespace arg_detail

template <typename V>
WARPFOLD_DEVICE value_index<V> warp_reduce(value_index<V> value, op::argmin) {
  return arg_detail::arg_warp_reduce<false>(value);
}
template <typename V>
WARPFOLD_DEVICE value_index<V> warp_reduce(value_index<V> value, op::argmax) {
  return arg_detail::arg_warp_reduce<true>(value);
}

// The same within aligned groups of `group_size` lanes (a power of two up to 32), so that one
// warp reduces 32 / group_size short rows at once. All 32 lanes call it; the result is valid
// in the first lane of each group. Lanes near a group's end also read the next group's
// values, but only lanes whose partners stay inside their own group feed the first lane.
template <typename T, typename Op>
WARPFOLD_DEVICE T group_reduce(T value, Op op, int group_size) {
  for (int delta = group_size / 2; delta > 0; delta /= 2) value = op(value, shuffle_down(value, delta));
  return value;
}

}  // namespace warpfold::blocks
