// Warp layer: combine one value per lane into one value per warp with register shuffles.
// No shared memory and no barrier: the 32 lanes exchange registers directly, which is why the
// ladder's step 8 and the production path use this instead of a shared-memory tree.
#pragma once

#include <cstring>
#include <type_traits>

#include "warpfold/config.hpp"

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
