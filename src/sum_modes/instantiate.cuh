// Explicit instantiation of the reproducible and exact sums for one element type: each is
// compiled once, in the sum_modes_<type>.cu file that includes this.
#pragma once

#include <cstdint>

#include "warpfold/axes_sum_modes.cuh"
#include "warpfold/sum_modes.cuh"

#define WARPFOLD_INSTANTIATE_SUM_MODES(T)                                                                              \
  template void warpfold::detail::sum_reproducible_into<T>(const T*, std::int64_t, warpfold::float_sum_t<T>*,         \
                                                           cudaStream_t, const warpfold::scratch_space*);             \
  template warpfold::float_sum_t<T> warpfold::detail::sum_reproducible_to_host<T>(const T*, std::int64_t, cudaStream_t); \
  template void warpfold::detail::sum_exact_into<T>(const T*, std::int64_t, warpfold::float_sum_t<T>*, cudaStream_t,  \
                                                    const warpfold::scratch_space*);                                  \
  template warpfold::float_sum_t<T> warpfold::detail::sum_exact_to_host<T>(const T*, std::int64_t, cudaStream_t);      \
  template std::size_t warpfold::sum_exact_scratch_bytes<T>(std::int64_t);

// The axis and segment forms (axes_sum_modes.hpp), in their own files: their kernels take a
// while to compile, and separate files compile in parallel.
#define WARPFOLD_INSTANTIATE_AXES_SUM_MODES(T)                                                                          \
  template void warpfold::detail::float_sum_axes_into<T>(warpfold::detail::float_sum_mode, const T*,                    \
                                                         const warpfold::shape&, const warpfold::strides*,              \
                                                         const warpfold::axes&, warpfold::float_sum_t<T>*,               \
                                                         std::int64_t, cudaStream_t);                                   \
  template std::vector<warpfold::float_sum_t<T>> warpfold::detail::float_sum_axes_to_host<T>(                           \
      warpfold::detail::float_sum_mode, const T*, const warpfold::shape&, const warpfold::strides*,                     \
      const warpfold::axes&, cudaStream_t);                                                                             \
  template void warpfold::detail::float_sum_segments_into<T>(warpfold::detail::float_sum_mode, const T*,                \
                                                             const std::int64_t*, const std::int64_t*, std::int64_t,    \
                                                             warpfold::float_sum_t<T>*, cudaStream_t);                  \
  template std::vector<warpfold::float_sum_t<T>> warpfold::detail::float_sum_segments_to_host<T>(                       \
      warpfold::detail::float_sum_mode, const T*, const std::int64_t*, const std::int64_t*, std::int64_t, cudaStream_t);
