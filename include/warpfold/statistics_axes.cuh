// Definitions of statistics_axes.hpp: a statistic (stats/statistics.hpp) along axes runs on
// the axis planner's kernels (axis/launch.cuh) with its transform as the element step, its op
// as the combine, and its finish in the store (axis/output.cuh), so a mean along dim 1 is read
// exactly as a sum along dim 1 is. Include from a .cu file; the project compiles every
// statistic x type once in src/stats/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "warpfold/axes.cuh"
#include "warpfold/axis/output.cuh"
#include "warpfold/statistics_axes.hpp"

namespace warpfold::detail {

// The statistic as the plan's outputs need it: a mean along axes learns how many elements
// each output reduces.
template <typename Stat>
Stat for_plan(Stat stat, const axis::plan&) {
  return stat;
}
template <typename T>
stat::mean_of_known_count<T> for_plan(stat::mean_of_known_count<T> stat, const axis::plan& p) {
  stat.count = p.reduced;
  return stat;
}

template <typename Stat, typename T>
void enqueue_statistic_axes(const Stat& stat, const T* d_in, const axis::plan& p, typename Stat::result* out,
                            device::launcher& l) {
  static_assert(!std::is_same_v<typename Stat::combine, op::combine_moments> ||
                    blocks::makes_unit_moments<statistic_element<Stat>>::value,
                "a statistic merged by combine_moments should say that its element step gives unit moments");
  static_assert(!takes_pairs<Stat>::value, "statistics of two arrays (dot) are not taken along axes");
  const Stat planned = for_plan(stat, p);
  axis::launch<T, typename Stat::accumulator>(d_in, p, axis::finished_output<Stat>{out, planned},
                                              typename Stat::combine{}, statistic_element<Stat>{planned}, l);
}

template <typename Stat, typename T>
void statistic_axes_into(const Stat& stat, const T* d_in, const shape& in, const strides* view, const axes& reduce,
                         typename Stat::result* d_out, std::int64_t out_capacity, cudaStream_t stream, const char* api) {
  const int device = device::current_device();
  // The elements are visited in any order: no statistic here reports an index.
  const axis::plan p = checked_axis_plan(d_in, in, view, reduce, false, api, device);
  check_axis_output(p, in, d_out, out_capacity, api, device);
  device::launcher l(device, stream, nullptr);
  enqueue_statistic_axes(stat, d_in, p, d_out, l);
}

template <typename Stat, typename T>
std::vector<typename Stat::result> statistic_axes_to_host(const Stat& stat, const T* d_in, const shape& in,
                                                          const strides* view, const axes& reduce, cudaStream_t stream,
                                                          const char* api) {
  using R = typename Stat::result;
  const int device = device::current_device();
  const axis::plan p = checked_axis_plan(d_in, in, view, reduce, false, api, device);
  return run_to_host<R>(p.outputs, stream, api, [&](R* out) {
    device::launcher l(device, stream, nullptr);
    enqueue_statistic_axes(stat, d_in, p, out, l);
  });
}

}  // namespace warpfold::detail

// One statistic x type, compiled once (src/stats/).
#define WARPFOLD_INSTANTIATE_STATISTIC_AXES(Stat, T)                                                                      \
  template void warpfold::detail::statistic_axes_into<Stat, T>(const Stat&, const T*, const warpfold::shape&,            \
                                                               const warpfold::strides*, const warpfold::axes&,          \
                                                               typename Stat::result*, std::int64_t, cudaStream_t,       \
                                                               const char*);                                             \
  template std::vector<typename Stat::result> warpfold::detail::statistic_axes_to_host<Stat, T>(                          \
      const Stat&, const T*, const warpfold::shape&, const warpfold::strides*, const warpfold::axes&, cudaStream_t,      \
      const char*);

// Every statistic that goes along axes, for one float type.
#define WARPFOLD_INSTANTIATE_FLOAT_STATISTICS_AXES(T)                                  \
  WARPFOLD_INSTANTIATE_STATISTIC_AXES(warpfold::stat::mean_of_known_count<T>, T)       \
  WARPFOLD_INSTANTIATE_STATISTIC_AXES(warpfold::stat::var_mean<T>, T)                  \
  WARPFOLD_INSTANTIATE_STATISTIC_AXES(warpfold::stat::norm_l1<T>, T)                   \
  WARPFOLD_INSTANTIATE_STATISTIC_AXES(warpfold::stat::norm_l2<T>, T)                   \
  WARPFOLD_INSTANTIATE_STATISTIC_AXES(warpfold::stat::norm_linf<T>, T)
