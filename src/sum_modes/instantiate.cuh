// Explicit instantiation of the reproducible and exact sums for one element type: each is
// compiled once, in the sum_modes_<type>.cu file that includes this.
#pragma once

#include <cstdint>

#include "warpfold/sum_modes.cuh"

#define WARPFOLD_INSTANTIATE_SUM_MODES(T)                                                                              \
  template void warpfold::detail::sum_reproducible_into<T>(const T*, std::int64_t, warpfold::float_sum_t<T>*,         \
                                                           cudaStream_t, const warpfold::scratch_space*);             \
  template warpfold::float_sum_t<T> warpfold::detail::sum_reproducible_to_host<T>(const T*, std::int64_t, cudaStream_t); \
  template void warpfold::detail::sum_exact_into<T>(const T*, std::int64_t, warpfold::float_sum_t<T>*, cudaStream_t,  \
                                                    const warpfold::scratch_space*);                                  \
  template warpfold::float_sum_t<T> warpfold::detail::sum_exact_to_host<T>(const T*, std::int64_t, cudaStream_t);      \
  template std::size_t warpfold::sum_exact_scratch_bytes<T>(std::int64_t);
