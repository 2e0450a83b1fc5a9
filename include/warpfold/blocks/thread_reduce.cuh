// Thread layer: what one thread folds into its register before any cooperation.
// A grid-stride loop lets a fixed, machine-sized grid cover any n (64-bit indices, so n may
// exceed 2^31), and the vector variant reads 16 bytes per load.
#pragma once

#include <cstdint>

#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/vector_fold.cuh"

namespace warpfold::blocks {

// Turns element x at index i into the accumulator type. The default ignores the index and
// converts (int32 -> int64 for a widened sum, __half -> float); argmin/argmax keep the index.
template <typename Acc>
struct convert_to {
  template <typename T>
  WARPFOLD_DEVICE Acc operator()(T x, std::int64_t /*index*/) const { return static_cast<Acc>(x); }
};

template <typename Acc>
struct only_widens<convert_to<Acc>> : std::true_type {};

// Element i of a piece is element i + first of the whole it belongs to: argmin/argmax count in
// the output's elements (an axis output's reduced elements, a segment), not in the piece.
template <typename ToAcc>
struct shift_index {
  ToAcc to_acc;
  std::int64_t first;
  template <typename T>
  WARPFOLD_DEVICE auto operator()(T x, std::int64_t i) const { return to_acc(x, i + first); }
};
template <typename ToAcc>
struct keeps_value_order<shift_index<ToAcc>> : keeps_value_order<ToAcc> {};
template <typename ToAcc>
struct makes_unit_moments<shift_index<ToAcc>> : makes_unit_moments<ToAcc> {};
template <typename ToAcc>
struct only_widens<shift_index<ToAcc>> : only_widens<ToAcc> {};

// Plain scalar grid-stride loop: thread `rank` of `count` visits rank, rank+count, ...
template <typename Acc, typename T, typename Op>
WARPFOLD_DEVICE Acc thread_reduce_strided(const T* in, std::int64_t n, std::int64_t rank,
                                          std::int64_t count, Op op, Acc acc) {
  for (std::int64_t i = rank; i < n; i += count) acc = op(acc, static_cast<Acc>(in[i]));
  return acc;
}

// Vector grid-stride loop over any pointer: head and tail scalars go to the first threads,
// the aligned body is read 16 bytes at a time. With Unroll > 1 each thread issues Unroll
// independent 16-byte loads before it adds any of them, so more bytes are in flight per
// thread while it waits on DRAM.
// Load picks the 16-byte load instruction (blocks/load.cuh).
// BodyAlignment: where the vector body starts (blocks/load.cuh, split_at_alignment); the head
// before it may then hold more elements than there are threads, so it is a loop too.
// BatchMoments: whether moments merge once per batch of Unroll vectors (below) rather than
// once per vector; a kernel held to a tight register budget (the many-array kernel's 64) may
// say no, since the batch's items are live at once.
template <int Unroll = 1, typename Load = plain_vector_load, int BodyAlignment = vector_bytes, bool BatchMoments = true,
          typename Acc, typename T, typename Op, typename ToAcc = convert_to<Acc>>
WARPFOLD_DEVICE Acc thread_reduce_vectorized(const T* in, std::int64_t n, std::int64_t rank,
                                             std::int64_t count, Op op, Acc acc, ToAcc to_acc = {}) {
  const Load load;
  constexpr int per_vector = vector16<T>::size;
  const aligned_split split = split_at_alignment(in, n, BodyAlignment);
  for (std::int64_t i = rank; i < split.head; i += count) acc = op(acc, to_acc(in[i], i));

  const T* body = in + split.head;
  auto fold_vector = [&](const vector16<T>& vec, std::int64_t v) {
    acc = fold_vector_items(op, acc, vec.items, split.head + v * per_vector, to_acc);
  };
  std::int64_t v = rank;
  for (; v + (Unroll - 1) * count < split.body_vectors; v += Unroll * count) {
    vector16<T> batch[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) batch[u] = load(body, v + u * count);
    if constexpr (BatchMoments && merges_unit_moments<Op, ToAcc> && Unroll > 1) {
      // The batch's items meet the thread's moments in one merge, not one per vector (a merge
      // divides and converts 64-bit counts); their positions do not matter to moments. H100,
      // 2026-11-24, f16 var_mean against a merge per vector: 8.4-8.6 -> 7.5 us at 2^22,
      // 184.4-185.0 -> 183.4-183.7 us at 2^28.
      T items[Unroll * per_vector];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
#pragma unroll
        for (int k = 0; k < per_vector; ++k) items[u * per_vector + k] = batch[u].items[k];
      acc = fold_vector_items(op, acc, items, split.head + v * per_vector, to_acc);
    } else {
#pragma unroll
      for (int u = 0; u < Unroll; ++u) fold_vector(batch[u], v + u * count);
    }
  }
  for (; v < split.body_vectors; v += count) fold_vector(load(body, v), v);

  const std::int64_t tail_index = split.tail_begin + rank;
  if (tail_index < n) acc = op(acc, to_acc(in[tail_index], tail_index));
  return acc;
}

// The same loop over two arrays read side by side: to_acc(x[i], y[i], i) is what element i
// contributes (a dot product's x[i] * y[i]). x's body starts on a 512-byte boundary. When both
// arrays sit at the same offset from a 16-byte boundary (two cudaMalloc'd arrays, or one offset into each), both are read as 16-byte
// vectors. Otherwise x is read as vectors and y one element at a time: each warp instruction
// still reads whole 32-byte sectors that the next three reuse from L1, but issues four times as
// many loads for y.
template <int Unroll = 1, typename Load = plain_vector_load, typename Acc, typename T, typename Op, typename ToAcc>
WARPFOLD_DEVICE Acc thread_reduce_pairs_vectorized(const T* x, const T* y, std::int64_t n, std::int64_t rank,
                                                   std::int64_t count, Op op, Acc acc, ToAcc to_acc) {
  const Load load;
  constexpr int per_vector = vector16<T>::size;
  const aligned_split split = split_at_alignment(x, n, stream_body_alignment);  // load.cuh says why
  for (std::int64_t i = rank; i < split.head; i += count) acc = op(acc, to_acc(x[i], y[i], i));

  const T* x_body = x + split.head;
  const T* y_body = y + split.head;
  auto fold_vectors = [&](const vector16<T>& xs, const vector16<T>& ys, std::int64_t v) {
#pragma unroll
    for (int k = 0; k < per_vector; ++k)
      acc = op(acc, to_acc(xs.items[k], ys.items[k], split.head + v * per_vector + k));
  };
  auto gather = [&](std::int64_t v) {
    vector16<T> ys;
#pragma unroll
    for (int k = 0; k < per_vector; ++k) ys.items[k] = y_body[v * per_vector + k];
    return ys;
  };
  auto fold_body = [&](auto y_load) {
    std::int64_t v = rank;
    for (; v + (Unroll - 1) * count < split.body_vectors; v += Unroll * count) {
      vector16<T> xs[Unroll], ys[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        xs[u] = load(x_body, v + u * count);
        ys[u] = y_load(v + u * count);
      }
#pragma unroll
      for (int u = 0; u < Unroll; ++u) fold_vectors(xs[u], ys[u], v + u * count);
    }
    for (; v < split.body_vectors; v += count) fold_vectors(load(x_body, v), y_load(v), v);
  };
  if (is_vector_aligned(y_body))
    fold_body([&](std::int64_t v) { return load(y_body, v); });
  else
    fold_body(gather);

  const std::int64_t tail_index = split.tail_begin + rank;
  if (tail_index < n) acc = op(acc, to_acc(x[tail_index], y[tail_index], tail_index));
  return acc;
}

}  // namespace warpfold::blocks
