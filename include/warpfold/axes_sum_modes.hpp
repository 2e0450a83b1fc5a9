// The reproducible and exact sums (sum_modes.hpp) along axes and over segments: what
// sum_axes and reduce_segments<op::sum> do, with the result of each output fixed as
// sum_reproducible or sum_exact fixes a full sum's.
//
//   // x is 4096 x 1000 floats on the device
//   std::vector<float> rows = warpfold::sum_axes_exact(d_x, {4096, 1000}, {1});
//   warpfold::sum_axes_reproducible(d_x, {4096, 1000}, {0}, d_out, 1000, stream);
//   warpfold::sum_segments_exact(d_x, d_begin, d_end, segments, d_out, stream);
//
// - Exact: each output is the exact sum of its elements, rounded once (to nearest, ties to
//   even), with the IEEE rules of sum_exact. It depends on the values only.
// - Reproducible: output o is sum_reproducible of its elements listed in order: the
//   row-major order of the reduced axes of the view (for a segment, its order in memory). So
//   it is the same on every GPU, grid and address, and equal to sum_reproducible of that list
//   copied to a contiguous array.
// - Element types __half, __nv_bfloat16, float and double; results float_sum_t<T> (float, or
//   double for double). Shapes, strided views, axes, output order and empty cases are as for
//   sum_axes (axes.hpp), and segments as for reduce_segments; so are the argument checks.
// - One launch per call, capturable in a CUDA graph, no scratch (except a call that reduces
//   everything to one output: that is sum_reproducible or sum_exact, with its scratch from
//   the library's pool).
// Speed: these forms are reported by `warpfold bench --axis` and `--segments`, not tuned case
// by case as the default sums are; a sequence is summed by one warp or one block
// (sum_modes/sequences_kernel.cuh), so a few very long outputs use only a few SMs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/sum_modes.hpp"

namespace warpfold {
namespace detail {

enum class float_sum_mode { reproducible, exact };

// Defined in axes_sum_modes.cuh, compiled once per type in src/sum_modes/.
template <typename T>
void float_sum_axes_into(float_sum_mode mode, const T* d_in, const shape& in, const strides* view, const axes& reduce,
                         float_sum_t<T>* d_out, std::int64_t out_capacity, cudaStream_t stream);
template <typename T>
std::vector<float_sum_t<T>> float_sum_axes_to_host(float_sum_mode mode, const T* d_in, const shape& in,
                                                   const strides* view, const axes& reduce, cudaStream_t stream);
template <typename T>
void float_sum_segments_into(float_sum_mode mode, const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end,
                             std::int64_t segments, float_sum_t<T>* d_out, cudaStream_t stream);
template <typename T>
std::vector<float_sum_t<T>> float_sum_segments_to_host(float_sum_mode mode, const T* d_in, const std::int64_t* d_begin,
                                                       const std::int64_t* d_end, std::int64_t segments,
                                                       cudaStream_t stream);

}  // namespace detail

// sum_axes_reproducible, sum_axes_exact, sum_segments_reproducible, sum_segments_exact: the
// forms of sum_axes and reduce_segments (blocking, asynchronous, row-major or strided view).
#define WARPFOLD_DECLARE_SUM_MODE(mode)                                                                                \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                           \
  std::vector<float_sum_t<T>> sum_axes_##mode(const T* d_in, const shape& in, const axes& reduce,                      \
                                              cudaStream_t stream = nullptr) {                                         \
    detail::check_float_sum<T>();                                                                                      \
    return detail::float_sum_axes_to_host<T>(detail::float_sum_mode::mode, d_in, in, nullptr, reduce,                   \
                                             detail::callers_stream<PerThread>(stream));                               \
  }                                                                                                                    \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                           \
  std::vector<float_sum_t<T>> sum_axes_##mode(const T* d_in, const shape& in, const strides& view, const axes& reduce,  \
                                              cudaStream_t stream = nullptr) {                                         \
    detail::check_float_sum<T>();                                                                                      \
    return detail::float_sum_axes_to_host<T>(detail::float_sum_mode::mode, d_in, in, &view, reduce,                     \
                                             detail::callers_stream<PerThread>(stream));                               \
  }                                                                                                                    \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                           \
  void sum_axes_##mode(const T* d_in, const shape& in, const axes& reduce, float_sum_t<T>* d_out,                      \
                       std::int64_t out_capacity, cudaStream_t stream) {                                              \
    detail::check_float_sum<T>();                                                                                      \
    detail::float_sum_axes_into<T>(detail::float_sum_mode::mode, d_in, in, nullptr, reduce, d_out, out_capacity,       \
                                   detail::callers_stream<PerThread>(stream));                                         \
  }                                                                                                                    \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                           \
  void sum_axes_##mode(const T* d_in, const shape& in, const strides& view, const axes& reduce, float_sum_t<T>* d_out,  \
                       std::int64_t out_capacity, cudaStream_t stream) {                                              \
    detail::check_float_sum<T>();                                                                                      \
    detail::float_sum_axes_into<T>(detail::float_sum_mode::mode, d_in, in, &view, reduce, d_out, out_capacity,          \
                                   detail::callers_stream<PerThread>(stream));                                         \
  }                                                                                                                    \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                           \
  std::vector<float_sum_t<T>> sum_segments_##mode(const T* d_in, const std::int64_t* d_begin,                          \
                                                  const std::int64_t* d_end, std::int64_t segments,                    \
                                                  cudaStream_t stream = nullptr) {                                     \
    detail::check_float_sum<T>();                                                                                      \
    return detail::float_sum_segments_to_host<T>(detail::float_sum_mode::mode, d_in, d_begin, d_end, segments,          \
                                                 detail::callers_stream<PerThread>(stream));                           \
  }                                                                                                                    \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                           \
  void sum_segments_##mode(const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end,                      \
                           std::int64_t segments, float_sum_t<T>* d_out, cudaStream_t stream) {                       \
    detail::check_float_sum<T>();                                                                                      \
    detail::float_sum_segments_into<T>(detail::float_sum_mode::mode, d_in, d_begin, d_end, segments, d_out,            \
                                       detail::callers_stream<PerThread>(stream));                                     \
  }
WARPFOLD_DECLARE_SUM_MODE(reproducible)
WARPFOLD_DECLARE_SUM_MODE(exact)
#undef WARPFOLD_DECLARE_SUM_MODE

}  // namespace warpfold
