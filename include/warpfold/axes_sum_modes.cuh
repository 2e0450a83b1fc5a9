// Definitions of the reproducible and exact axis and segment sums (declared in
// axes_sum_modes.hpp). Compiled once per element type in src/sum_modes/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "warpfold/axes.cuh"
#include "warpfold/axes_sum_modes.hpp"
#include "warpfold/sum_modes.cuh"
#include "warpfold/sum_modes/launch.cuh"
#include "warpfold/sum_modes/sequences.cuh"

namespace warpfold {
namespace detail {


template <typename T, typename Sequences, typename Out>
void launch_float_sum_sequences(float_sum_mode mode, const Sequences& list, Out* out, device::launcher& l) {
  if (mode == float_sum_mode::exact) sum_modes::launch_exact_sequences<T>(list, out, l);
  else sum_modes::launch_reproducible_sequences<T>(list, out, l);
}

// The plan visits the reduced axes in the view's row-major order (the reproducible order's
// sequence); each kind of plan becomes its list of sequences (sum_modes/sequences.cuh).
template <typename T, typename Out>
void launch_float_sum_axes(float_sum_mode mode, const T* in, const axis::plan& p, Out* out, device::launcher& l) {
  using axis::plan_kind;
  if (p.kind == plan_kind::nothing || p.outputs == 0) return;
  if (p.kind == plan_kind::full) {  // one output of contiguous elements: the full sums themselves
    if (mode == float_sum_mode::exact) sum_modes::launch_exact<T, Out>(in, p.reduced, out, l);
    else sum_modes::launch_reproducible<T, Out>(in, p.reduced, out, l);
    return;
  }
  if (p.kind == plan_kind::rows && (p.reduced == 0 || (p.runs.count == 0 && p.inner_stride == 1))) {
    launch_float_sum_sequences<T>(mode, sum_modes::row_sequences<T>{in, p.kept, p.reduced, p.outputs}, out, l);
    return;
  }
  // Columns are rows of one-element runs over every kept axis (axis/plan.hpp's kept_all).
  const bool columns = p.kind == plan_kind::columns;
  const sum_modes::strided_sequences<T> list{
      in, columns ? p.kept_all : p.kept, p.runs, columns ? 1 : p.run_length, columns ? 1 : p.inner_stride,
      p.reduced, p.outputs};
  launch_float_sum_sequences<T>(mode, list, out, l);
}

// The name in error messages, built once (not on every call).
inline const std::string& float_sum_api(float_sum_mode mode, bool segments) {
  static const std::string names[2][2] = {{"warpfold::sum_axes_reproducible", "warpfold::sum_axes_exact"},
                                          {"warpfold::sum_segments_reproducible", "warpfold::sum_segments_exact"}};
  return names[segments ? 1 : 0][mode == float_sum_mode::exact ? 1 : 0];
}

template <typename T>
void float_sum_axes_into(float_sum_mode mode, const T* d_in, const shape& in, const strides* view, const axes& reduce,
                         float_sum_t<T>* d_out, std::int64_t out_capacity, cudaStream_t stream) {
  const std::string& api = float_sum_api(mode, false);
  const int device = device::current_device();
  const axis::plan p = checked_axis_plan(d_in, in, view, reduce, true, api, device);
  check_axis_output(p, in, d_out, out_capacity, api, device);
  device::launcher l(device, stream, nullptr);
  launch_float_sum_axes(mode, d_in, p, d_out, l);
}

template <typename T>
std::vector<float_sum_t<T>> float_sum_axes_to_host(float_sum_mode mode, const T* d_in, const shape& in,
                                                   const strides* view, const axes& reduce, cudaStream_t stream) {
  const std::string& api = float_sum_api(mode, false);
  const int device = device::current_device();
  const axis::plan p = checked_axis_plan(d_in, in, view, reduce, true, api, device);
  return run_to_host<float_sum_t<T>>(p.outputs, stream, api, [&](float_sum_t<T>* out) {
    device::launcher l(device, stream, nullptr);
    launch_float_sum_axes(mode, d_in, p, out, l);
  });
}

template <typename T>
void float_sum_segments_into(float_sum_mode mode, const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end,
                             std::int64_t segments, float_sum_t<T>* d_out, cudaStream_t stream) {
  const std::string& api = float_sum_api(mode, true);
  const int device = device::current_device();
  check_segments(d_in, d_begin, d_end, segments, api, device);
  if (segments > 0) require_device_output(d_out, api.c_str(), device);
  device::launcher l(device, stream, nullptr);
  launch_float_sum_sequences<T>(mode, sum_modes::segment_sequences<T>{d_in, d_begin, d_end, segments}, d_out, l);
}

template <typename T>
std::vector<float_sum_t<T>> float_sum_segments_to_host(float_sum_mode mode, const T* d_in, const std::int64_t* d_begin,
                                                       const std::int64_t* d_end, std::int64_t segments,
                                                       cudaStream_t stream) {
  const std::string& api = float_sum_api(mode, true);
  const int device = device::current_device();
  check_segments(d_in, d_begin, d_end, segments, api, device);
  return run_to_host<float_sum_t<T>>(segments, stream, api, [&](float_sum_t<T>* out) {
    device::launcher l(device, stream, nullptr);
    launch_float_sum_sequences<T>(mode, sum_modes::segment_sequences<T>{d_in, d_begin, d_end, segments}, out, l);
  });
}

}  // namespace detail
}  // namespace warpfold
