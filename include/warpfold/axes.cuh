// warpfold's axis reductions, with their definitions. Include this from a .cu file (to
// instantiate another accumulator, say); plain C++ includes <warpfold/axes.hpp> and links
// the instantiations in src/axis/. See axes.hpp for the contract.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/axis/launch.cuh"
#include "warpfold/axis/plan.hpp"
#include "warpfold/device/host_result.hpp"
#include "warpfold/device/launcher.hpp"
#include "warpfold/validate.hpp"
#include "warpfold/warpfold.cuh"

namespace warpfold {
namespace detail {

// argmin/argmax report indices, so their reduced axes are visited in the view's order.
template <typename Op>
inline constexpr bool reports_indices = std::is_same_v<Op, op::argmin> || std::is_same_v<Op, op::argmax>;

// Bitwise ops see only bits, so an unsigned type's kernels would be its signed twin's,
// instruction for instruction: its launches run the twin's kernels on the same bytes. Every op
// x type instantiates every axis kernel, and the twelve unsigned bitwise ones were about a
// tenth of the library's compile time.
template <typename Op, typename T>
inline constexpr bool runs_as_signed_twin =
    std::is_integral_v<T> && std::is_unsigned_v<T> &&
    (std::is_same_v<Op, op::bit_and> || std::is_same_v<Op, op::bit_or> || std::is_same_v<Op, op::bit_xor>);

// Enqueues plan p's kernel for op Op (axis::launch), through the signed twin where it has one.
template <typename Op, typename T, typename Acc>
void launch_axes(const T* d_in, const axis::plan& p, Acc* d_out, device::launcher& l) {
  if constexpr (runs_as_signed_twin<Op, T>) {
    using S = std::make_signed_t<T>;
    launch_axes<Op>(reinterpret_cast<const S*>(d_in), p, reinterpret_cast<S*>(d_out), l);
  } else {
    axis::launch<T, Acc>(d_in, p, d_out, Op{}, element_to_accumulator<Op, Acc>(), l);
  }
}

// The same for segments (axis::launch_segments).
template <typename Op, typename T, typename Acc>
void launch_segments(const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end, std::int64_t segments,
                     Acc* d_out, device::launcher& l) {
  if constexpr (runs_as_signed_twin<Op, T>) {
    using S = std::make_signed_t<T>;
    launch_segments<Op>(reinterpret_cast<const S*>(d_in), d_begin, d_end, segments, reinterpret_cast<S*>(d_out), l);
  } else {
    axis::launch_segments<T, Acc>(d_in, d_begin, d_end, segments, d_out, Op{}, element_to_accumulator<Op, Acc>(), l);
  }
}

// The plan of a call, with the view's strides checked against its shape. `in_view_order`:
// visit the reduced axes in the view's row-major order (axis::make_plan).
inline axis::plan axis_plan(const shape& in, const strides* view, const axes& reduce, bool in_view_order,
                            const char* api) {
  if (view && view->rank() != in.rank())
    throw invalid_argument(std::string(api) + ": " + std::to_string(view->rank()) + " strides for shape " +
                           in.to_string() + " of rank " + std::to_string(in.rank()));
  return axis::make_plan(in, view ? view->data() : nullptr, reduce, in_view_order, api);
}
template <typename Op>
axis::plan axis_plan(const shape& in, const strides* view, const axes& reduce, const char* api) {
  return axis_plan(in, view, reduce, reports_indices<Op>, api);
}

// Checks everything about an axis call before anything runs; returns its plan.
template <typename T>
axis::plan checked_axis_plan(const T* d_in, const shape& in, const strides* view, const axes& reduce,
                             bool in_view_order, const std::string& api, int device) {
  const axis::plan p = axis_plan(in, view, reduce, in_view_order, api.c_str());
  const bool reads = p.outputs > 0 && p.reduced > 0;
  require_device_input(d_in, reads ? axis::view_span(in, view ? view->data() : nullptr, api.c_str()) : 0, api.c_str(),
                       device);
  return p;
}

// An asynchronous call's output: room for every output, in device memory.
inline void check_axis_output(const axis::plan& p, const shape& in, const void* d_out, std::int64_t out_capacity,
                              const std::string& api, int device) {
  if (out_capacity < p.outputs)
    throw invalid_argument(api + ": the output holds " + std::to_string(out_capacity) + " values, but reducing shape " +
                           in.to_string() + " writes " + std::to_string(p.outputs));
  if (p.outputs > 0) require_device_output(d_out, api.c_str(), device);
}

// The blocking forms: the kernel writes into the calling thread's mapped host buffer
// (device/host_result.hpp); the call waits for its stream and copies the values out.
template <typename Acc, typename Enqueue>
std::vector<Acc> run_to_host(std::int64_t outputs, cudaStream_t stream, const std::string& api, Enqueue enqueue) {
  std::vector<Acc> result(static_cast<std::size_t>(outputs));
  if (outputs == 0) return result;
  device::require_not_capturing(stream, api);
  auto* out = static_cast<Acc*>(device::thread_result_buffer(result.size() * sizeof(Acc)));
  enqueue(out);
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::memcpy(result.data(), out, result.size() * sizeof(Acc));
  return result;
}


template <typename Op, typename T>
void reduce_axes_into(const T* d_in, const shape& in, const strides* view, const axes& reduce,
                      axis_result_t<Op, T>* d_out, std::int64_t out_capacity, cudaStream_t stream,
                      const scratch_space* scratch) {
  check_op_fits<Op, T>();
  static const std::string api = std::string(api_name<Op>()) + "_axes";  // built once, not per call
  const int device = device::current_device();
  const axis::plan p = checked_axis_plan(d_in, in, view, reduce, reports_indices<Op>, api, device);
  check_axis_output(p, in, d_out, out_capacity, api, device);
  require_caller_scratch(scratch, api.c_str(), device);
  device::launcher l(device, stream, scratch);
  launch_axes<Op>(d_in, p, d_out, l);
}

template <typename Op, typename T>
std::vector<axis_result_t<Op, T>> reduce_axes_to_host(const T* d_in, const shape& in, const strides* view,
                                                      const axes& reduce, cudaStream_t stream) {
  using Acc = axis_result_t<Op, T>;
  check_op_fits<Op, T>();
  static const std::string api = std::string(api_name<Op>()) + "_axes";  // built once, not per call
  const int device = device::current_device();
  const axis::plan p = checked_axis_plan(d_in, in, view, reduce, reports_indices<Op>, api, device);
  return run_to_host<Acc>(p.outputs, stream, api, [&](Acc* out) {
    device::launcher l(device, stream, nullptr);
    launch_axes<Op>(d_in, p, out, l);
  });
}

template <typename Op, typename T>
std::size_t reduce_axes_scratch_bytes(const T* d_in, const shape& in, const strides* view, const axes& reduce) {
  using Acc = axis_result_t<Op, T>;
  check_op_fits<Op, T>();
  const axis::plan p = axis_plan<Op>(in, view, reduce, "warpfold::reduce_axes_scratch_bytes");
  device::launcher dry = device::launcher::dry_run(device::current_device());
  launch_axes<Op>(d_in, p, static_cast<Acc*>(nullptr), dry);
  return device::scratch_bytes_for(dry.requested());
}


inline void check_segments(const void* d_in, const std::int64_t* d_begin, const std::int64_t* d_end,
                           std::int64_t segments, const std::string& api, int device) {
  require_non_negative(segments, (api + " (segments)").c_str());
  if (segments == 0) return;
  require_device_input(d_begin, segments, (api + " (begin offsets)").c_str(), device);
  require_device_input(d_end, segments, (api + " (end offsets)").c_str(), device);
  require_device_input(d_in, 1, api.c_str(), device);
}

template <typename Op, typename T>
void reduce_segments_into(const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end, std::int64_t segments,
                          axis_result_t<Op, T>* d_out, cudaStream_t stream) {
  check_op_fits<Op, T>();
  static const std::string api = std::string(api_name<Op>()) + "_segments";  // built once, not per call
  const int device = device::current_device();
  check_segments(d_in, d_begin, d_end, segments, api, device);
  if (segments > 0) require_device_output(d_out, api.c_str(), device);
  device::launcher l(device, stream, nullptr);
  launch_segments<Op>(d_in, d_begin, d_end, segments, d_out, l);
}

template <typename Op, typename T>
std::vector<axis_result_t<Op, T>> reduce_segments_to_host(const T* d_in, const std::int64_t* d_begin,
                                                          const std::int64_t* d_end, std::int64_t segments,
                                                          cudaStream_t stream) {
  using Acc = axis_result_t<Op, T>;
  check_op_fits<Op, T>();
  static const std::string api = std::string(api_name<Op>()) + "_segments";  // built once, not per call
  const int device = device::current_device();
  check_segments(d_in, d_begin, d_end, segments, api, device);
  return run_to_host<Acc>(segments, stream, api, [&](Acc* out) {
    device::launcher l(device, stream, nullptr);
    launch_segments<Op>(d_in, d_begin, d_end, segments, out, l);
  });
}

}  // namespace detail

}  // namespace warpfold
