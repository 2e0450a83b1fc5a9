// Many arrays in one launch: a statistic of each array, and of all of them together, for a
// list of device arrays of any sizes (thousands, from 0 to billions of elements each).
// The common case is gradient clipping: every parameter's L2 norm and the global norm,
//
//   std::vector<warpfold::array_ref<float>> grads = ...;            // {pointer, size} each
//   warpfold::norm_l2_many(grads, d_norms, d_global_norm, stream);
//
// Two launches whatever the list (a one-block plan, then the reduction: many/), and the same
// bits run to run on one GPU. Either output may be null (not both).
//
// Two forms of each:
// - host list (std::vector): checked here (negative size, null data with size > 0, host
//   memory, another device's memory: warpfold::invalid_argument, nothing launched) and copied
//   to the GPU with the call; not for use inside a CUDA graph capture.
// - device list (array_ref<T> in device memory): nothing is copied, so the call can be
//   captured in a graph and the list changed between replays. The GPU checks each entry: if
//   one has a negative size, or null data with size > 0, nothing is written but *d_status (if
//   given) = the index of the first such entry; otherwise *d_status = -1. Data pointers are
//   trusted to be device memory, as CUB trusts its offsets.
//
// Statistics: sum, min, max, norm_l1, norm_l2, norm_linf, mean, var_mean (of each array; the
// combined one is that of all elements together), any_nonfinite; element types __half,
// __nv_bfloat16, float, double; results as for whole arrays (statistics.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "warpfold/device/reduce_policy.hpp"
#include "warpfold/reduce.hpp"
#include "warpfold/device/scratch.hpp"
#include "warpfold/device/scratch_pool.hpp"
#include "warpfold/many/layout.cuh"
#include "warpfold/stats/statistics.hpp"
#include "warpfold/stream.hpp"

namespace warpfold {

template <typename T>
using array_ref = many::array_ref<T>;

namespace detail {

// Defined in many.cuh, compiled once per statistic and type in src/stats/. Exactly one of
// d_list and h_list is set.
template <typename Stat, typename T>
void many_into(const Stat& stat, const array_ref<T>* d_list, const array_ref<T>* h_list, std::int64_t count,
               typename Stat::result* d_per_array, typename Stat::result* d_combined, std::int64_t* d_status,
               cudaStream_t stream, const scratch_space* scratch, const char* api);

}  // namespace detail

// The most scratch that a many-array call over `count` arrays may need (device-list forms).
inline std::size_t many_scratch_bytes(std::int64_t count) {
  constexpr std::int64_t largest_accumulator = 24;  // moments<double>, scaled_squares
  const many::layout l = many::layout_for(count, device::reduce_policy::max_grid, largest_accumulator,
                                          sizeof(array_ref<float>));
  return device::scratch_bytes_for({1, count + 1, l.bytes});
}

#define WARPFOLD_DECLARE_MANY(name, Stat, ...)                                                                          \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  void name(const array_ref<T>* d_arrays, std::int64_t count, typename Stat<T>::result* d_per_array,                    \
            typename Stat<T>::result* d_combined, cudaStream_t stream, std::int64_t* d_status = nullptr,                \
            const scratch_space& scratch = {}) {                                                                        \
    detail::check_float_statistic<T>();                                                                                 \
    detail::many_into(Stat<T>{__VA_ARGS__}, d_arrays, static_cast<const array_ref<T>*>(nullptr), count, d_per_array,    \
                      d_combined, d_status, detail::callers_stream<PerThread>(stream), detail::callers_scratch(scratch), \
                      "warpfold::" #name);                                                                              \
  }                                                                                                                     \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  void name(const std::vector<array_ref<T>>& arrays, typename Stat<T>::result* d_per_array,                              \
            typename Stat<T>::result* d_combined, cudaStream_t stream = nullptr) {                                      \
    detail::check_float_statistic<T>();                                                                                 \
    detail::many_into(Stat<T>{__VA_ARGS__}, static_cast<const array_ref<T>*>(nullptr), arrays.data(),                   \
                      static_cast<std::int64_t>(arrays.size()), d_per_array, d_combined, nullptr,                       \
                      detail::callers_stream<PerThread>(stream), nullptr, "warpfold::" #name);                          \
  }

WARPFOLD_DECLARE_MANY(sum_many, stat::sum)
WARPFOLD_DECLARE_MANY(min_many, stat::min)
WARPFOLD_DECLARE_MANY(max_many, stat::max)
WARPFOLD_DECLARE_MANY(norm_l1_many, stat::norm_l1)
WARPFOLD_DECLARE_MANY(norm_l2_many, stat::norm_l2)
WARPFOLD_DECLARE_MANY(norm_linf_many, stat::norm_linf)
WARPFOLD_DECLARE_MANY(mean_many, stat::mean)
WARPFOLD_DECLARE_MANY(any_nonfinite_many, stat::any_nonfinite)
// Unbiased (correction 1) variance with the mean; var_mean() takes another correction.
WARPFOLD_DECLARE_MANY(var_mean_many, stat::var_mean, 1.0, false)
#undef WARPFOLD_DECLARE_MANY

}  // namespace warpfold
