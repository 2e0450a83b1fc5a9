// Explicit instantiation of the axis API for one element type: each op x type is compiled
// once, in the axis_<type>.cu file that includes this.
#pragma once

#include <cstdint>

#include "warpfold/axes.cuh"

#define WARPFOLD_INSTANTIATE_AXES_OP(Op, T)                                                                              \
  template void warpfold::detail::reduce_axes_into<Op, T>(                                                              \
      const T*, const warpfold::shape&, const warpfold::strides*, const warpfold::axes&, warpfold::axis_result_t<Op, T>*, \
      std::int64_t, cudaStream_t, const warpfold::scratch_space*);                                                      \
  template std::vector<warpfold::axis_result_t<Op, T>> warpfold::detail::reduce_axes_to_host<Op, T>(                     \
      const T*, const warpfold::shape&, const warpfold::strides*, const warpfold::axes&, cudaStream_t);                  \
  template std::size_t warpfold::detail::reduce_axes_scratch_bytes<Op, T>(                                               \
      const T*, const warpfold::shape&, const warpfold::strides*, const warpfold::axes&);                                \
  template void warpfold::detail::reduce_segments_into<Op, T>(const T*, const std::int64_t*, const std::int64_t*,       \
                                                              std::int64_t, warpfold::axis_result_t<Op, T>*,            \
                                                              cudaStream_t);                                            \
  template std::vector<warpfold::axis_result_t<Op, T>> warpfold::detail::reduce_segments_to_host<Op, T>(                 \
      const T*, const std::int64_t*, const std::int64_t*, std::int64_t, cudaStream_t);

// Every op that fits any element type.
#define WARPFOLD_INSTANTIATE_AXES_ARITHMETIC(T)         \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::sum, T)    \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::prod, T)   \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::min, T)    \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::max, T)    \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::argmin, T) \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::argmax, T)

// Integers also get the bitwise ops.
#define WARPFOLD_INSTANTIATE_AXES_INTEGER(T)              \
  WARPFOLD_INSTANTIATE_AXES_ARITHMETIC(T)                 \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::bit_and, T)  \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::bit_or, T)   \
  WARPFOLD_INSTANTIATE_AXES_OP(warpfold::op::bit_xor, T)
