// Many arrays in one launch: a statistic of each array, and of all of them together, for a
// list of device arrays of any sizes (thousands, from 0 to billions of elements each).
// The common case is gradient clipping: every parameter's L2 norm and the global norm,
//
//   std::vector<warpfold::array_ref<float>> grads = ...;            // {pointer, size} each
//   warpfold::norm_l2_many(grads, d_norms, d_global_norm, stream);
//
// One launch for lists of up to 4096 arrays (each block plans its own share), two for longer
// ones (a plan by one cluster of blocks, then the reduction: many/), and the same bits run to
// run on one GPU. Either output may be null (not both).
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
// combined one is that of all elements together), any_nonfinite, count_nonzero, any, all, and
// dot over a list of pairs (array_pair_ref: x, y and their common size; the combined result is
// the dot product of all pairs together); element types __half, __nv_bfloat16, float, double;
// results as for whole arrays (statistics.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
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
template <typename T>
using array_pair_ref = many::array_pair_ref<T>;

namespace detail {

// A list's entries: an array, or for a statistic of two arrays (dot) a pair of them.
template <typename Stat, typename T>
using many_entry_t = std::conditional_t<takes_pairs<Stat>::value, array_pair_ref<T>, array_ref<T>>;

// Defined in many.cuh, compiled once per statistic and type in src/stats/. Exactly one of
// d_list and h_list is set.
template <typename Stat, typename T>
void many_into(const Stat& stat, const many_entry_t<Stat, T>* d_list, const many_entry_t<Stat, T>* h_list, std::int64_t count,
               typename Stat::result* d_per_array, typename Stat::result* d_combined, std::int64_t* d_status,
               cudaStream_t stream, const scratch_space* scratch, const char* api);

}  // namespace detail

// The most scratch that a many-array call over `count` arrays may need (device-list forms).
inline std::size_t many_scratch_bytes(std::int64_t count) {
  constexpr std::int64_t largest_accumulator = 24;  // moments<double>, scaled_squares
  const many::layout l = many::layout_for(count, device::reduce_policy::max_grid, largest_accumulator,
                                          sizeof(array_pair_ref<double>));  // the largest entry
  return device::scratch_bytes_for({1, count, l.bytes});
}

#define WARPFOLD_DECLARE_MANY(name, Stat, Entry, ...)                                                                          \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  void name(const Entry<T>* d_arrays, std::int64_t count, typename Stat<T>::result* d_per_array,                        \
            typename Stat<T>::result* d_combined, cudaStream_t stream, std::int64_t* d_status = nullptr,                \
            const scratch_space& scratch = {}) {                                                                        \
    detail::check_float_statistic<T>();                                                                                 \
    detail::many_into<Stat<T>, T>(Stat<T>{__VA_ARGS__}, d_arrays, nullptr, count, d_per_array, d_combined, d_status,     \
                                  detail::callers_stream<PerThread>(stream), detail::callers_scratch(scratch),          \
                                  "warpfold::" #name);                                                                  \
  }                                                                                                                     \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                            \
  void name(const std::vector<Entry<T>>& arrays, typename Stat<T>::result* d_per_array,                                 \
            typename Stat<T>::result* d_combined, cudaStream_t stream = nullptr) {                                      \
    detail::check_float_statistic<T>();                                                                                 \
    detail::many_into<Stat<T>, T>(Stat<T>{__VA_ARGS__}, nullptr, arrays.data(), static_cast<std::int64_t>(arrays.size()), \
                                  d_per_array, d_combined, nullptr, detail::callers_stream<PerThread>(stream), nullptr, \
                                  "warpfold::" #name);                                                                  \
  }

WARPFOLD_DECLARE_MANY(sum_many, stat::sum, array_ref)
WARPFOLD_DECLARE_MANY(min_many, stat::min, array_ref)
WARPFOLD_DECLARE_MANY(max_many, stat::max, array_ref)
WARPFOLD_DECLARE_MANY(norm_l1_many, stat::norm_l1, array_ref)
WARPFOLD_DECLARE_MANY(norm_l2_many, stat::norm_l2, array_ref)
WARPFOLD_DECLARE_MANY(norm_linf_many, stat::norm_linf, array_ref)
WARPFOLD_DECLARE_MANY(mean_many, stat::mean, array_ref)
WARPFOLD_DECLARE_MANY(any_nonfinite_many, stat::any_nonfinite, array_ref)
// Unbiased (correction 1) variance with the mean; var_mean() takes another correction.
WARPFOLD_DECLARE_MANY(var_mean_many, stat::var_mean, array_ref, 1.0, false)
// Per pair of arrays: sum x[i] * y[i]; combined: the dot product of all pairs together.
WARPFOLD_DECLARE_MANY(dot_many, stat::dot, array_pair_ref)
WARPFOLD_DECLARE_MANY(count_nonzero_many, stat::count_nonzero, array_ref)
WARPFOLD_DECLARE_MANY(any_many, stat::any, array_ref)
WARPFOLD_DECLARE_MANY(all_many, stat::all, array_ref)
#undef WARPFOLD_DECLARE_MANY

}  // namespace warpfold
