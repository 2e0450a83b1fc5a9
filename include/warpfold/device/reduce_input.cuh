// What the production reduce kernel reads: one array, or two arrays read side by side (a dot
// product's x and y). Each knows its size in bytes, which picks the launch shape
// (device/dispatch.cuh), and folds one thread's share into an accumulator (blocks/thread_reduce.cuh).
#pragma once

#include <cstdint>

#include "warpfold/blocks/thread_reduce.cuh"

namespace warpfold::device {

template <typename T>
struct one_array {
  using element = T;
  static constexpr int arrays = 1;
  const T* in;
  std::int64_t n;

  // to_acc(x, i) is what element i contributes. The vector body starts on a 512-byte boundary
  // (blocks/load.cuh, stream_body_alignment), so that a misaligned input streams as fast as an
  // aligned one.
  template <int Unroll, typename Load, typename Acc, typename Op, typename ToAcc>
  WARPFOLD_DEVICE Acc fold(std::int64_t rank, std::int64_t count, Op op, Acc acc, ToAcc to_acc) const {
    return blocks::thread_reduce_vectorized<Unroll, Load, blocks::stream_body_alignment>(in, n, rank, count, op, acc,
                                                                                          to_acc);
  }
};

template <typename T>
struct two_arrays {
  using element = T;
  static constexpr int arrays = 2;
  const T* x;
  const T* y;
  std::int64_t n;

  // to_acc(x, y, i) is what the pair at index i contributes. Half as many loads in flight per
  // array as one_array, so that a thread holds the same bytes.
  template <int Unroll, typename Load, typename Acc, typename Op, typename ToAcc>
  WARPFOLD_DEVICE Acc fold(std::int64_t rank, std::int64_t count, Op op, Acc acc, ToAcc to_acc) const {
    constexpr int pairs_in_flight = Unroll / 2 > 0 ? Unroll / 2 : 1;
    return blocks::thread_reduce_pairs_vectorized<pairs_in_flight, Load>(x, y, n, rank, count, op, acc, to_acc);
  }
};

}  // namespace warpfold::device
