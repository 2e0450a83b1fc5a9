// Thread layer: what one thread folds into its register before any cooperation.
// A grid-stride loop lets a fixed, machine-sized grid cover any n (64-bit indices, so n may
// exceed 2^31), and the vector variant reads 16 bytes per load.
#pragma once

#include <cstdint>

#include "warpfold/blocks/load.cuh"

namespace warpfold::blocks {

// Plain scalar grid-stride loop: thread `rank` of `count` visits rank, rank+count, ...
template <typename Acc, typename T, typename Op>
WARPFOLD_DEVICE Acc thread_reduce_strided(const T* in, std::int64_t n, std::int64_t rank,
                                          std::int64_t count, Op op, Acc acc) {
  for (std::int64_t i = rank; i < n; i += count) acc = op(acc, static_cast<Acc>(in[i]));
  return acc;
}

// Vector grid-stride loop over any pointer: head and tail scalars go to the first threads,
// the aligned body is read 16 bytes at a time.
template <typename Acc, typename T, typename Op>
WARPFOLD_DEVICE Acc thread_reduce_vectorized(const T* in, std::int64_t n, std::int64_t rank,
                                             std::int64_t count, Op op, Acc acc) {
  const aligned_split split = split_at_alignment(in, n);
  if (rank < split.head) acc = op(acc, static_cast<Acc>(in[rank]));
  const T* body = in + split.head;
  for (std::int64_t v = rank; v < split.body_vectors; v += count) {
    const vector16<T> vec = load_vector(body, v);
#pragma unroll
    for (int k = 0; k < vector16<T>::size; ++k) acc = op(acc, static_cast<Acc>(vec.items[k]));
  }
  const std::int64_t tail_index = split.tail_begin + rank;
  if (tail_index < n) acc = op(acc, static_cast<Acc>(in[tail_index]));
  return acc;
}

}  // namespace warpfold::blocks
