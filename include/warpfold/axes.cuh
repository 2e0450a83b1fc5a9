// warpfold's axis reductions, with their definitions. Include this from a .cu file (to
// instantiate another accumulator, say); plain C++ includes <warpfold/axes.hpp> and links
// the instantiations in src/axis/. See axes.hpp for the contract.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/axis/launch.cuh"
#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/workspace.hpp"
#include "warpfold/validate.hpp"
#include "warpfold/warpfold.cuh"

namespace warpfold {
namespace detail {

// What each element becomes before it is combined: argmin/argmax keep its index.
template <typename Op, typename Acc>
auto element_to_accumulator() {
  if constexpr (is_arg_op_v<Op>) {
    return with_index<decltype(Acc::value)>{};
  } else {
    return blocks::convert_to<Acc>{};
  }
}

// Checks everything about an axis call before anything runs; returns its plan.
template <typename T>
axis::plan checked_axis_plan(const T* d_in, const shape& in, const axes& reduce, const std::string& api) {
  const axis::plan p = axis::make_plan(in, reduce, api.c_str());
  require_device_input(d_in, p.outputs == 0 || p.reduced == 0 ? 0 : in.elements(), api.c_str());
  return p;
}

// The blocking forms: enqueue into the workspace's output, copy it back, wait.
template <typename Acc, typename Enqueue>
std::vector<Acc> run_to_host(std::int64_t outputs, cudaStream_t stream, Enqueue enqueue) {
  std::vector<Acc> result(static_cast<std::size_t>(outputs));
  if (outputs == 0) return result;
  axis::workspace& ws = axis::workspace_for(stream);
  auto* d_out = reinterpret_cast<Acc*>(ws.output.reserve(static_cast<std::size_t>(outputs) * sizeof(Acc)));
  enqueue(d_out);
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(result.data(), d_out, result.size() * sizeof(Acc), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

}  // namespace detail

template <typename Op, typename T, typename Acc>
void reduce_axes(const T* d_in, const shape& in, const axes& reduce, Acc* d_out, std::int64_t out_capacity,
                 cudaStream_t stream) {
  check_op_fits<Op, T>();
  static const std::string api = std::string(detail::api_name<Op>()) + "_axes";  // built once, not per call
  const axis::plan p = detail::checked_axis_plan(d_in, in, reduce, api);
  if (out_capacity < p.outputs)
    throw invalid_argument(api + ": the output holds " + std::to_string(out_capacity) + " values, but reducing shape " +
                           in.to_string() + " writes " + std::to_string(p.outputs));
  if (p.outputs > 0) detail::require_device_output(d_out, api.c_str());
  axis::launch<T, Acc>(d_in, p, d_out, Op{}, detail::element_to_accumulator<Op, Acc>(), stream);
}

template <typename Op, typename T, typename Acc>
std::vector<Acc> reduce_axes(const T* d_in, const shape& in, const axes& reduce, cudaStream_t stream) {
  check_op_fits<Op, T>();
  static const std::string api = std::string(detail::api_name<Op>()) + "_axes";  // built once, not per call
  const axis::plan p = detail::checked_axis_plan(d_in, in, reduce, api);
  return detail::run_to_host<Acc>(p.outputs, stream, [&](Acc* d_out) {
    axis::launch<T, Acc>(d_in, p, d_out, Op{}, detail::element_to_accumulator<Op, Acc>(), stream);
  });
}

namespace detail {

inline void check_segments(const void* d_in, const std::int64_t* d_begin, const std::int64_t* d_end,
                           std::int64_t segments, const std::string& api) {
  require_non_negative(segments, (api + " (segments)").c_str());
  if (segments == 0) return;
  require_device_input(d_begin, segments, (api + " (begin offsets)").c_str());
  require_device_input(d_end, segments, (api + " (end offsets)").c_str());
  require_device_input(d_in, 1, api.c_str());
}

}  // namespace detail

template <typename Op, typename T, typename Acc>
void reduce_segments(const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end, std::int64_t segments,
                     Acc* d_out, cudaStream_t stream) {
  check_op_fits<Op, T>();
  static const std::string api = std::string(detail::api_name<Op>()) + "_segments";  // built once, not per call
  detail::check_segments(d_in, d_begin, d_end, segments, api);
  if (segments > 0) detail::require_device_output(d_out, api.c_str());
  axis::launch_segments<T, Acc>(d_in, d_begin, d_end, segments, d_out, Op{}, detail::element_to_accumulator<Op, Acc>(),
                                stream);
}

template <typename Op, typename T, typename Acc>
std::vector<Acc> reduce_segments(const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end,
                                 std::int64_t segments, cudaStream_t stream) {
  check_op_fits<Op, T>();
  static const std::string api = std::string(detail::api_name<Op>()) + "_segments";  // built once, not per call
  detail::check_segments(d_in, d_begin, d_end, segments, api);
  return detail::run_to_host<Acc>(segments, stream, [&](Acc* d_out) {
    axis::launch_segments<T, Acc>(d_in, d_begin, d_end, segments, d_out, Op{}, detail::element_to_accumulator<Op, Acc>(),
                                  stream);
  });
}

}  // namespace warpfold
