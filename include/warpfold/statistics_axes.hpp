// Means, variances and norms along axes of N-D arrays, host side: the statistics of
// statistics.hpp with the shapes, views and axes of axes.hpp. Declarations only; the
// definitions are in statistics_axes.cuh, compiled once per type in src/stats/.
//
//   // x is 4096 x 768 floats on the device (a batch of 4096 rows)
//   std::vector<float> m = warpfold::mean_axes(d_x, {4096, 768}, {1});                // 4096 means
//   auto mv = warpfold::var_mean_axes(d_x, {4096, 768}, {1});                         // mean and var
//   std::vector<float> n = warpfold::norm_l2_axes(d_x, {4096, 768}, {0});             // 768 column norms
//   // batch-norm statistics of an (N, C, H, W) array: one mean and variance per channel
//   warpfold::var_mean_axes(d_act, {32, 64, 56, 56}, {0, 2, 3}, 0.0, d_stats, 64, stream);
//
// Everything about shapes, views and axes is as in axes.hpp: rank 0 to 8, row-major or any
// strided view (transposed, permuted, sliced, broadcast), read in place; any set of axes;
// the output row-major over the kept axes; every call one kernel launch, on the axis
// planner's kernels, with the statistic's finish (the division, the square root) in the
// store. The asynchronous forms only enqueue (graph capture works) and take their scratch
// from the library's pool; the blocking forms return a std::vector.
//
// Element types: __half, __nv_bfloat16, float and double; results are float (double for
// double), as for the whole-array statistics:
// - mean_axes: the sum of each output's elements divided by their number (NaN for none);
// - var_mean_axes, std_mean_axes: mean and variance (or standard deviation) in one pass
//   (Welford and Chan, stats/moments.hpp), dividing by n - correction; NaN where
//   n - correction <= 0;
// - norm_l1_axes, norm_l2_axes, norm_linf_axes: the L2 norm neither overflows nor
//   underflows when the norm itself is representable.
//
// Errors (warpfold::invalid_argument; nothing is launched or written): those of axes.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/statistics.hpp"

namespace warpfold {
namespace detail {

// Defined in statistics_axes.cuh. A null `view` means row-major.
template <typename Stat, typename T>
void statistic_axes_into(const Stat& stat, const T* d_in, const shape& in, const strides* view, const axes& reduce,
                         typename Stat::result* d_out, std::int64_t out_capacity, cudaStream_t stream, const char* api);
template <typename Stat, typename T>
std::vector<typename Stat::result> statistic_axes_to_host(const Stat& stat, const T* d_in, const shape& in,
                                                          const strides* view, const axes& reduce, cudaStream_t stream,
                                                          const char* api);

}  // namespace detail

// The four forms of one statistic along axes: blocking or asynchronous, row-major or a view.
// `Stat` is its definition, `make` builds it from the call's extra parameter (none, or the
// correction), declared by `params` (asynchronous forms) and `defaulted_params` (blocking).
#define WARPFOLD_DECLARE_STATISTIC_AXES(name, Stat, make, params, defaulted_params)                               \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  std::vector<typename Stat<T>::result> name##_axes(const T* d_in, const shape& in, const axes& reduce defaulted_params, \
                                                    cudaStream_t stream = nullptr) {                                   \
    detail::check_float_statistic<T>();                                                                                \
    return detail::statistic_axes_to_host(make, d_in, in, nullptr, reduce, detail::callers_stream<PerThread>(stream),   \
                                          "warpfold::" #name "_axes");                                                 \
  }                                                                                                                     \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  std::vector<typename Stat<T>::result> name##_axes(const T* d_in, const shape& in, const strides& view,                \
                                                    const axes& reduce defaulted_params,                                \
                                                    cudaStream_t stream = nullptr) {                                   \
    detail::check_float_statistic<T>();                                                                                \
    return detail::statistic_axes_to_host(make, d_in, in, &view, reduce, detail::callers_stream<PerThread>(stream),     \
                                          "warpfold::" #name "_axes");                                                 \
  }                                                                                                                     \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  void name##_axes(const T* d_in, const shape& in, const axes& reduce params, typename Stat<T>::result* d_out,          \
                   std::int64_t out_capacity, cudaStream_t stream) {                                                    \
    detail::check_float_statistic<T>();                                                                                \
    detail::statistic_axes_into(make, d_in, in, nullptr, reduce, d_out, out_capacity,                                   \
                                detail::callers_stream<PerThread>(stream), "warpfold::" #name "_axes");                 \
  }                                                                                                                     \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  void name##_axes(const T* d_in, const shape& in, const strides& view, const axes& reduce params,                      \
                   typename Stat<T>::result* d_out, std::int64_t out_capacity, cudaStream_t stream) {                   \
    detail::check_float_statistic<T>();                                                                                \
    detail::statistic_axes_into(make, d_in, in, &view, reduce, d_out, out_capacity,                                     \
                                detail::callers_stream<PerThread>(stream), "warpfold::" #name "_axes");                 \
  }

// The extra parameters, as macros: an argument holding a comma would split in two.
#define WARPFOLD_NO_PARAMETER
#define WARPFOLD_CORRECTION , double correction
#define WARPFOLD_DEFAULT_CORRECTION , double correction = 1
// The count of mean_of_known_count is filled in from the plan (statistics_axes.cuh).
WARPFOLD_DECLARE_STATISTIC_AXES(mean, stat::mean_of_known_count, stat::mean_of_known_count<T>{}, WARPFOLD_NO_PARAMETER,
                                WARPFOLD_NO_PARAMETER)
WARPFOLD_DECLARE_STATISTIC_AXES(norm_l1, stat::norm_l1, stat::norm_l1<T>{}, WARPFOLD_NO_PARAMETER, WARPFOLD_NO_PARAMETER)
WARPFOLD_DECLARE_STATISTIC_AXES(norm_l2, stat::norm_l2, stat::norm_l2<T>{}, WARPFOLD_NO_PARAMETER, WARPFOLD_NO_PARAMETER)
WARPFOLD_DECLARE_STATISTIC_AXES(norm_linf, stat::norm_linf, stat::norm_linf<T>{}, WARPFOLD_NO_PARAMETER,
                                WARPFOLD_NO_PARAMETER)
// var_mean_axes(d_in, shape, axes, correction = 1, ...) and std_mean_axes: the correction
// comes right after the axes, as in var_mean.
WARPFOLD_DECLARE_STATISTIC_AXES(var_mean, stat::var_mean, (stat::var_mean<T>{correction, false}), WARPFOLD_CORRECTION,
                                WARPFOLD_DEFAULT_CORRECTION)
WARPFOLD_DECLARE_STATISTIC_AXES(std_mean, stat::var_mean, (stat::var_mean<T>{correction, true}), WARPFOLD_CORRECTION,
                                WARPFOLD_DEFAULT_CORRECTION)
#undef WARPFOLD_NO_PARAMETER
#undef WARPFOLD_CORRECTION
#undef WARPFOLD_DEFAULT_CORRECTION
#undef WARPFOLD_DECLARE_STATISTIC_AXES

}  // namespace warpfold
