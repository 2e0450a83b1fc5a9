// Norms, dot products, means and variances, counts and tests of whole arrays: the statistics
// of stats/statistics.hpp, host side (declarations; definitions in statistics.cuh, compiled
// once per type in src/stats/).
//
//   float n2 = warpfold::norm_l2(d_x, n);                 // blocking, result on the host
//   warpfold::dot(d_x, d_y, n, d_out, stream);            // async, result in device memory
//   auto [mean, var] = warpfold::var_mean(d_x, n);        // one pass, unbiased by default
//
// Element types: norm_l1, norm_l2, norm_linf, dot, mean, var_mean, std_mean, any_nonfinite take
// __half, __nv_bfloat16, float and double and return float (double for double);
// count_nonzero, any and all take every supported element type, and bool.
// Each call is one kernel launch, with the contract of reduce.hpp: the asynchronous form can be
// captured in a CUDA graph, results are the same bits run to run on one GPU, arguments are
// checked before anything is launched (negative n, null pointer with n > 0, host memory,
// another device's memory), and the blocking form refuses to run inside a capture.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "warpfold/device/scratch_pool.hpp"
#include "warpfold/reduce.hpp"
#include "warpfold/stats/statistics.hpp"
#include "warpfold/stream.hpp"

namespace warpfold {
namespace detail {

// Defined in statistics.cuh. `y` is null for statistics of one array.
template <typename Stat, typename T>
void statistic_into(const Stat& stat, const T* x, const T* y, std::int64_t n, typename Stat::result* d_out,
                    cudaStream_t stream, const scratch_space* scratch, const char* api);
template <typename Stat, typename T>
typename Stat::result statistic_to_host(const Stat& stat, const T* x, const T* y, std::int64_t n, cudaStream_t stream,
                                        const char* api);

}  // namespace detail

// The most scratch that any statistic of n elements (n pairs: arrays = 2) of `element_bytes`
// may need, for the asynchronous forms' `scratch` argument.
inline std::size_t statistics_scratch_bytes(std::int64_t n, std::size_t element_bytes, int arrays = 1) {
  constexpr std::size_t largest_accumulator = 24;  // moments<double>, scaled_squares
  return reduce_scratch_bytes(n * arrays, element_bytes, largest_accumulator);
}

// One statistic of one array, in both forms. `name` is the function, `Stat` its definition,
// `check` the element types it takes.
#define WARPFOLD_DECLARE_STATISTIC(name, check)                                                                          \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  typename stat::name<T>::result name(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {                  \
    check<T>();                                                                                                         \
    return detail::statistic_to_host(stat::name<T>{}, d_in, static_cast<const T*>(nullptr), n,                          \
                                     detail::callers_stream<PerThread>(stream), "warpfold::" #name);                    \
  }                                                                                                                     \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  void name(const T* d_in, std::int64_t n, typename stat::name<T>::result* d_out, cudaStream_t stream,                  \
            const scratch_space& scratch = {}) {                                                                        \
    check<T>();                                                                                                         \
    detail::statistic_into(stat::name<T>{}, d_in, static_cast<const T*>(nullptr), n, d_out,                              \
                           detail::callers_stream<PerThread>(stream), detail::callers_scratch(scratch),                 \
                           "warpfold::" #name);                                                                         \
  }

// L1, L2 and max norms. norm_l2 never overflows or underflows when the norm is representable:
// norm_l2 of the floats {3e30, 4e30} is 5e30, of {3e-30, 4e-30} 5e-30.
WARPFOLD_DECLARE_STATISTIC(norm_l1, detail::check_float_statistic)
WARPFOLD_DECLARE_STATISTIC(norm_l2, detail::check_float_statistic)
WARPFOLD_DECLARE_STATISTIC(norm_linf, detail::check_float_statistic)
// The mean (NaN for no elements).
WARPFOLD_DECLARE_STATISTIC(mean, detail::check_float_statistic)
// Whether any element is inf or NaN.
WARPFOLD_DECLARE_STATISTIC(any_nonfinite, detail::check_float_statistic)
// Elements that are not zero; whether any is, whether all are.
WARPFOLD_DECLARE_STATISTIC(count_nonzero, detail::check_counted_element)
WARPFOLD_DECLARE_STATISTIC(any, detail::check_counted_element)
WARPFOLD_DECLARE_STATISTIC(all, detail::check_counted_element)
#undef WARPFOLD_DECLARE_STATISTIC

// bool arrays, read as their bytes (0 or 1).
template <bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
std::int64_t count_nonzero(const bool* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return count_nonzero<std::uint8_t, PerThread>(reinterpret_cast<const std::uint8_t*>(d_in), n, stream);
}
template <bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
bool any(const bool* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return any<std::uint8_t, PerThread>(reinterpret_cast<const std::uint8_t*>(d_in), n, stream);
}
template <bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
bool all(const bool* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return all<std::uint8_t, PerThread>(reinterpret_cast<const std::uint8_t*>(d_in), n, stream);
}

// sum x[i] * y[i] over two arrays of n elements each.
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
float_result_t<T> dot(const T* d_x, const T* d_y, std::int64_t n, cudaStream_t stream = nullptr) {
  detail::check_float_statistic<T>();
  return detail::statistic_to_host(stat::dot<T>{}, d_x, d_y, n, detail::callers_stream<PerThread>(stream), "warpfold::dot");
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void dot(const T* d_x, const T* d_y, std::int64_t n, float_result_t<T>* d_out, cudaStream_t stream,
         const scratch_space& scratch = {}) {
  detail::check_float_statistic<T>();
  detail::statistic_into(stat::dot<T>{}, d_x, d_y, n, d_out, detail::callers_stream<PerThread>(stream),
                         detail::callers_scratch(scratch), "warpfold::dot");
}

// Mean and variance in one pass (Welford and Chan: stats/moments.hpp). The variance divides by
// n - correction (torch's convention: 1, the default, is unbiased; 0 the population
// variance); it is NaN where n - correction <= 0. std_mean and stddev give the standard deviation.
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
mean_var<float_result_t<T>> var_mean(const T* d_in, std::int64_t n, double correction = 1, cudaStream_t stream = nullptr) {
  detail::check_float_statistic<T>();
  return detail::statistic_to_host(stat::var_mean<T>{correction, false}, d_in, static_cast<const T*>(nullptr), n,
                                   detail::callers_stream<PerThread>(stream), "warpfold::var_mean");
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void var_mean(const T* d_in, std::int64_t n, double correction, mean_var<float_result_t<T>>* d_out, cudaStream_t stream,
              const scratch_space& scratch = {}) {
  detail::check_float_statistic<T>();
  detail::statistic_into(stat::var_mean<T>{correction, false}, d_in, static_cast<const T*>(nullptr), n, d_out,
                         detail::callers_stream<PerThread>(stream), detail::callers_scratch(scratch), "warpfold::var_mean");
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
mean_var<float_result_t<T>> std_mean(const T* d_in, std::int64_t n, double correction = 1, cudaStream_t stream = nullptr) {
  detail::check_float_statistic<T>();
  return detail::statistic_to_host(stat::var_mean<T>{correction, true}, d_in, static_cast<const T*>(nullptr), n,
                                   detail::callers_stream<PerThread>(stream), "warpfold::std_mean");
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void std_mean(const T* d_in, std::int64_t n, double correction, mean_var<float_result_t<T>>* d_out, cudaStream_t stream,
              const scratch_space& scratch = {}) {
  detail::check_float_statistic<T>();
  detail::statistic_into(stat::var_mean<T>{correction, true}, d_in, static_cast<const T*>(nullptr), n, d_out,
                         detail::callers_stream<PerThread>(stream), detail::callers_scratch(scratch), "warpfold::std_mean");
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
float_result_t<T> var(const T* d_in, std::int64_t n, double correction = 1, cudaStream_t stream = nullptr) {
  return var_mean<T, PerThread>(d_in, n, correction, stream).var;
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
float_result_t<T> stddev(const T* d_in, std::int64_t n, double correction = 1, cudaStream_t stream = nullptr) {
  return std_mean<T, PerThread>(d_in, n, correction, stream).var;
}

}  // namespace warpfold
