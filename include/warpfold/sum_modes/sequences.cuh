// What each output of an axis or segmented sum in the reproducible and exact modes adds: a
// sequence of elements, in order. Output o of a list of sequences is list[o], which says how
// many elements it has and where element i is. The kernels (sequences_kernel.cuh) see only
// this, so segments, rows and any strided view share them:
// - segment_sequences: d_in[begin[o] .. end[o]), contiguous;
// - row_sequences: output o's elements are contiguous, starting at kept.offset(o) (the rows of
//   a matrix, or any view whose reduced axes form one run of stride 1);
// - strided_sequences: anything else an axis plan describes (axis/plan.hpp, with the reduced
//   axes in the view's row-major order): element i of output o is at kept.offset(o) +
//   runs.offset(i / run_length) + (i % run_length) * inner_stride.
// The order of a sequence is the row-major order of the view's reduced axes, so the
// reproducible sum of output o is the reproducible sum of those elements copied out in that
// order, on every GPU.
#pragma once

#include <cstdint>

#include "warpfold/axis/plan.hpp"
#include "warpfold/blocks/load.cuh"
#include "warpfold/config.hpp"
#include "warpfold/sum_modes/reproducible_order.hpp"

namespace warpfold::sum_modes {

template <typename T>
struct contiguous_sequence {
  const T* first;
  std::int64_t length;
  WARPFOLD_DEVICE T operator[](std::int64_t i) const { return first[i]; }
};

template <typename T>
struct segment_sequences {
  static constexpr bool uniform_length = false;
  const T* in;
  const std::int64_t* begin;
  const std::int64_t* end;
  std::int64_t count;
  WARPFOLD_DEVICE contiguous_sequence<T> operator[](std::int64_t o) const {
    const std::int64_t b = begin[o], e = end[o];
    return {in + b, e > b ? e - b : 0};  // end <= begin: an empty segment
  }
};

template <typename T>
struct row_sequences {
  static constexpr bool uniform_length = true;  // every output has `length` elements
  const T* in;
  axis::strided_dims kept;
  std::int64_t length;
  std::int64_t count;
  WARPFOLD_DEVICE contiguous_sequence<T> operator[](std::int64_t o) const { return {in + kept.offset(o), length}; }
};

// A sequence of a strided view. Reading it costs index arithmetic per element (a multiply when
// the reduced axes are one run, a division per further run axis); its speed is reported, not
// tuned, as it is for every mode's strided case.
template <typename T>
struct strided_sequence {
  const T* first;
  std::int64_t length;
  const axis::strided_dims* runs;
  std::int64_t run_length;
  std::int64_t inner_stride;
  WARPFOLD_DEVICE T operator[](std::int64_t i) const {
    if (runs->count == 0) return first[i * inner_stride];
    return first[runs->offset(i / run_length) + (i % run_length) * inner_stride];
  }
};

template <typename T>
struct strided_sequences {
  static constexpr bool uniform_length = true;
  const T* in;
  axis::strided_dims kept;
  axis::strided_dims runs;
  std::int64_t run_length;
  std::int64_t inner_stride;
  std::int64_t length;
  std::int64_t count;
  WARPFOLD_DEVICE strided_sequence<T> operator[](std::int64_t o) const {
    return {in + kept.offset(o), length, &runs, run_length, inner_stride};
  }
};

// The reproducible sum's element source (reproducible_kernel.cuh) for a strided sequence:
// element by element, +0 past the end.
template <typename T>
struct strided_source {
  static constexpr bool whole_vectors = false;
  const strided_sequence<T>& sequence;
  WARPFOLD_DEVICE blocks::vector16<T> whole_vector(std::int64_t) const { return {}; }  // never called
  WARPFOLD_DEVICE blocks::vector16<T> lane_vector(std::int64_t first, std::int64_t end) const {
    constexpr int V = reproducible_vector_elements<T>;
    blocks::vector16<T> v;
#pragma unroll
    for (int j = 0; j < V; ++j) v.items[j] = first + j < end ? sequence[first + j] : T(0.0f);
    return v;
  }
};

}  // namespace warpfold::sum_modes
