// Definitions of statistics.hpp: each statistic (stats/statistics.hpp) runs through the
// production reduce kernel (device/reduce_kernel.cuh) with its transform as the element step,
// its op as the combine and its finish in the store, so it is exactly as fast as a sum of the
// same bytes. Include from a .cu file; the project compiles every statistic x type once in
// src/stats/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "warpfold/device/dispatch.cuh"
#include "warpfold/device/launcher.hpp"
#include "warpfold/statistics.hpp"
#include "warpfold/warpfold.cuh"

namespace warpfold::detail {

// The store: the grid's total, finished.
template <typename Stat>
struct store_finished {
  Stat stat;
  typename Stat::result* out;
  WARPFOLD_DEVICE void operator()(const typename Stat::accumulator& total) const { *out = stat.finish(total); }
};

template <typename Stat, typename T>
void enqueue_statistic(const Stat& stat, const T* x, const T* y, std::int64_t n, typename Stat::result* out, int device,
                       cudaStream_t stream, const scratch_space* scratch) {
  if constexpr (std::is_same_v<Stat, stat::mean<T>>) {
    // A whole array's count is n, known here: only the sum is accumulated (4 bytes a thread for
    // floats, against the 16 of mean's count and running sum, which many arrays need), so the
    // mean runs as the sum does, then divides as mean does. H100, 2026-11-24: f32 mean at 2^30
    // took 1.0072x the sum's time before (1381.0 us, torch 1380.5), 1.0004x after (1373.7 us).
    // (An else, not a return: the statements after a return would still compile mean's kernel.)
    enqueue_statistic(stat::mean_of_known_count<T>{n}, x, y, n, out, device, stream, scratch);
  } else {
    static_assert(!std::is_same_v<typename Stat::combine, op::combine_moments> ||
                      blocks::makes_unit_moments<statistic_element<Stat>>::value,
                  "a statistic merged by combine_moments should say that its element step gives unit moments, so "
                  "that a thread folds each vector's moments at once (blocks/vector_fold.cuh)");
    device::launcher l(device, stream, scratch);
    device::launch_reduce_arrays<device::reduce_policy, typename Stat::accumulator, takes_pairs<Stat>::value>(
        x, y, n, typename Stat::combine{}, statistic_element<Stat>{stat}, store_finished<Stat>{stat, out}, l);
  }
}

template <typename Stat, typename T>
void require_statistic_inputs(const T* x, const T* y, std::int64_t n, const char* api, int device) {
  if constexpr (takes_pairs<Stat>::value) require_device_pair(x, y, n, api, device);
  else require_device_input(x, n, api, device);
}

template <typename Stat, typename T>
void statistic_into(const Stat& stat, const T* x, const T* y, std::int64_t n, typename Stat::result* d_out,
                    cudaStream_t stream, const scratch_space* scratch, const char* api) {
  const int device = device::current_device();
  require_statistic_inputs<Stat>(x, y, n, api, device);
  require_device_output(d_out, api, device);
  require_caller_scratch(scratch, api, device);
  enqueue_statistic(stat, x, y, n, d_out, device, stream, scratch);
}

template <typename Stat, typename T>
typename Stat::result statistic_to_host(const Stat& stat, const T* x, const T* y, std::int64_t n, cudaStream_t stream,
                                        const char* api) {
  using R = typename Stat::result;
  const int device = device::current_device();
  require_statistic_inputs<Stat>(x, y, n, api, device);
  return run_to_host<R>(stream, api, [&](R* slot) { enqueue_statistic(stat, x, y, n, slot, device, stream, nullptr); });
}

}  // namespace warpfold::detail

// Every statistic of one type, compiled once (src/stats/).
#define WARPFOLD_INSTANTIATE_STATISTIC(Stat, T)                                                                          \
  template void warpfold::detail::statistic_into<Stat, T>(const Stat&, const T*, const T*, std::int64_t,                \
                                                          typename Stat::result*, cudaStream_t,                         \
                                                          const warpfold::scratch_space*, const char*);                 \
  template typename Stat::result warpfold::detail::statistic_to_host<Stat, T>(const Stat&, const T*, const T*,         \
                                                                              std::int64_t, cudaStream_t, const char*);

#define WARPFOLD_INSTANTIATE_COUNTS(T)                                   \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::count_nonzero<T>, T)   \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::any<T>, T)             \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::all<T>, T)

#define WARPFOLD_INSTANTIATE_FLOAT_STATISTICS(T)                         \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::norm_l1<T>, T)         \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::norm_l2<T>, T)         \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::norm_linf<T>, T)       \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::mean<T>, T)            \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::any_nonfinite<T>, T)   \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::dot<T>, T)             \
  WARPFOLD_INSTANTIATE_STATISTIC(warpfold::stat::var_mean<T>, T)        \
  WARPFOLD_INSTANTIATE_COUNTS(T)
