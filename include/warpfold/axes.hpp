// Axis reductions of N-D arrays, host side: declarations only, so that plain C++ can call
// them. The definitions are in <warpfold/axes.cuh>; the project compiles every op x type
// of the production reduce once, in src/axis/.
//
// The input is an array of rank 0 to 8: row-major (C-contiguous), or any strided view given
// by its element strides (transposed, permuted, sliced, stepped, broadcast), read in place.
// Any set of its axes is reduced, like torch.sum(x, dim) or numpy.sum(x, axis):
//
//   // x is 4096 x 16 floats on the device
//   std::vector<float> rows = warpfold::sum_axes(d_x, {4096, 16}, {1});   // 4096 row sums
//   warpfold::max_axes(d_x, {4096, 16}, {0}, d_out, 16, stream);          // 16 column maxima, async
//   // x.T, a 16 x 4096 view, summed along its dim 1 (the same 16 column sums)
//   std::vector<float> t = warpfold::sum_axes(d_x, {16, 4096}, warpfold::strides{1, 16}, {1});
//
// The plan comes from where the axes lie in memory, not from their order in the shape
// (axis/plan.hpp), so a transposed or permuted view runs as fast as the contiguous array
// it is a view of.
// - The output is row-major over the kept axes, in their order. Keeping the reduced axes
//   as size 1 (keepdims) changes only the reported shape, not the memory: see
//   reduced_shape().
// - Negative axes count from the end (-1 is the last). An empty axis set reduces nothing
//   (each output is its one input, converted to the accumulator type); every axis reduces
//   everything, as warpfold::sum does.
// - Output and accumulator types follow the production reduce (accumulator.hpp): sums of
//   int32 are int64, of half are float; argmin/argmax give value_index, whose index counts
//   in the reduced axes only, row-major (torch.argmax(x, dim) for one axis).
// - An output whose reduced axes are empty holds the op's identity (index -1 for argmin and
//   argmax), as warpfold::sum of n = 0 does.
// - Every call is one kernel launch. Float results are bitwise identical run to run.
// - The asynchronous forms only enqueue, so they can be captured in a CUDA graph, and they
//   are safe from any number of threads, streams and graphs, as the production reduce is
//   (reduce.hpp). The blocking forms return a std::vector on the host.
//
// Errors (warpfold::invalid_argument; nothing is launched or written): a rank above 8, a
// negative extent, an axis out of range, a duplicate axis, a shape whose element count
// overflows int64, strides of another rank than the shape, a negative stride, a null or host
// pointer (for a view: anywhere in the memory it spans), and an output capacity smaller than
// the output.
// (d_out may be null when the output has no elements.)
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "warpfold/accumulator.hpp"
#include "warpfold/error.hpp"
#include "warpfold/ops.hpp"
#include "warpfold/reduce.hpp"
#include "warpfold/stream.hpp"

namespace warpfold {

inline constexpr int max_rank = 8;

// A row-major array's extents: shape{} is a scalar, shape{4096, 16} a 4096 x 16 matrix.
class shape {
 public:
  shape() = default;
  shape(std::initializer_list<std::int64_t> extents) { assign(extents.begin(), extents.end()); }
  explicit shape(const std::vector<std::int64_t>& extents) { assign(extents.begin(), extents.end()); }

  int rank() const { return rank_; }
  std::int64_t operator[](int axis) const { return extents_[axis]; }
  const std::int64_t* begin() const { return extents_.data(); }
  const std::int64_t* end() const { return extents_.data() + rank_; }
  // The product of the extents (1 for a scalar); throws invalid_argument if it overflows.
  std::int64_t elements() const {
    std::int64_t n = 1;
    for (int a = 0; a < rank_; ++a)
      if (__builtin_mul_overflow(n, extents_[a], &n))
        throw invalid_argument("warpfold::shape: " + to_string() + " has more than 2^63 - 1 elements");
    return n;
  }
  std::string to_string() const {
    std::string text = "(";
    for (int a = 0; a < rank_; ++a) text += (a ? ", " : "") + std::to_string(extents_[a]);
    return text + (rank_ == 1 ? ",)" : ")");
  }
  friend bool operator==(const shape& a, const shape& b) {
    return a.rank_ == b.rank_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const shape& a, const shape& b) { return !(a == b); }

 private:
  template <typename It>
  void assign(It first, It last) {
    for (; first != last; ++first) {
      if (rank_ == max_rank)
        throw invalid_argument("warpfold::shape: rank above " + std::to_string(max_rank) + " is not supported");
      extents_[rank_++] = *first;
    }
  }
  std::array<std::int64_t, max_rank> extents_{};
  int rank_ = 0;
};

// The axes to reduce, in any order; negative ones count from the end.
class axes {
 public:
  axes() = default;
  axes(std::initializer_list<int> list) : list_(list) {}
  explicit axes(std::vector<int> list) : list_(std::move(list)) {}
  const std::vector<int>& list() const { return list_; }

 private:
  std::vector<int> list_;
};

// Element strides of a strided view, one per axis of its shape (not bytes: torch's
// x.stride(), or NumPy's x.strides divided by the item size). With shape{16, 4096},
// strides{1, 16} is the transpose of a 4096 x 16 row-major matrix; a slice x[:, 1:-1] of a
// 4096 x 16 matrix is shape{4096, 14}, strides{16, 1}, starting at d_x + 1. Any stride >= 0
// is accepted: 0 is a broadcast axis, and views whose elements overlap are read as they are.
// Negative strides are refused. The reductions read the view in place, never a copy.
class strides {
 public:
  strides() = default;
  strides(std::initializer_list<std::int64_t> list) { assign(list.begin(), list.end()); }
  explicit strides(const std::vector<std::int64_t>& list) { assign(list.begin(), list.end()); }
  // The row-major strides of `in` (the last axis 1).
  static strides row_major(const shape& in) {
    strides s;
    s.rank_ = in.rank();
    std::int64_t step = 1;
    for (int a = in.rank() - 1; a >= 0; --a) {
      s.values_[a] = step;
      step *= in[a] > 0 ? in[a] : 1;
    }
    return s;
  }
  int rank() const { return rank_; }
  std::int64_t operator[](int axis) const { return values_[axis]; }
  const std::int64_t* data() const { return values_.data(); }

 private:
  template <typename It>
  void assign(It first, It last) {
    for (; first != last; ++first) {
      if (rank_ == max_rank)
        throw invalid_argument("warpfold::strides: rank above " + std::to_string(max_rank) + " is not supported");
      values_[rank_++] = *first;
    }
  }
  std::array<std::int64_t, max_rank> values_{};
  int rank_ = 0;
};

// The output's shape: the kept axes in order, or with the reduced ones as 1 (keep_dims).
// Throws invalid_argument for the same bad axes as the reductions do.
inline shape reduced_shape(const shape& in, const axes& reduce, bool keep_dims = false);

// argmin/argmax accumulate (value, index); every other op its accumulator type.
template <typename Op, typename T>
using axis_result_t = reduce_result_t<Op, T>;

namespace detail {

// Defined in axes.cuh and compiled for every op x type in src/axis/. `stream` is already
// resolved (stream.hpp); a null `scratch` means the library's pool; a null `view` means
// row-major, else it holds one stride per axis.
template <typename Op, typename T>
void reduce_axes_into(const T* d_in, const shape& in, const strides* view, const axes& reduce,
                      axis_result_t<Op, T>* d_out, std::int64_t out_capacity, cudaStream_t stream,
                      const scratch_space* scratch);
template <typename Op, typename T>
std::vector<axis_result_t<Op, T>> reduce_axes_to_host(const T* d_in, const shape& in, const strides* view,
                                                      const axes& reduce, cudaStream_t stream);
template <typename Op, typename T>
std::size_t reduce_axes_scratch_bytes(const T* d_in, const shape& in, const strides* view, const axes& reduce);
template <typename Op, typename T>
void reduce_segments_into(const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end, std::int64_t segments,
                          axis_result_t<Op, T>* d_out, cudaStream_t stream);
template <typename Op, typename T>
std::vector<axis_result_t<Op, T>> reduce_segments_to_host(const T* d_in, const std::int64_t* d_begin,
                                                          const std::int64_t* d_end, std::int64_t segments,
                                                          cudaStream_t stream);

}  // namespace detail

// Asynchronous: writes reduced_shape(in, reduce).elements() values to d_out, which holds
// out_capacity of them. `scratch`: the caller's scratch memory (reduce_axes_scratch_bytes
// says how much), or none for the library's pool.
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce_axes(const T* d_in, const shape& in, const axes& reduce, axis_result_t<Op, T>* d_out, std::int64_t out_capacity,
                 cudaStream_t stream, const scratch_space& scratch = {}) {
  check_op_fits<Op, T>();
  detail::reduce_axes_into<Op, T>(d_in, in, nullptr, reduce, d_out, out_capacity,
                                  detail::callers_stream<PerThread>(stream), detail::callers_scratch(scratch));
}
// Blocking: returns the output on the host.
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
std::vector<axis_result_t<Op, T>> reduce_axes(const T* d_in, const shape& in, const axes& reduce,
                                              cudaStream_t stream = nullptr) {
  check_op_fits<Op, T>();
  return detail::reduce_axes_to_host<Op, T>(d_in, in, nullptr, reduce, detail::callers_stream<PerThread>(stream));
}
// The same over a strided view: d_in is the view's first element, and element (i0, i1, ...)
// is d_in[i0 * view[0] + i1 * view[1] + ...]. The output is row-major over the kept axes,
// as for a contiguous array; argmin/argmax indices count in the view's reduced axes.
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce_axes(const T* d_in, const shape& in, const strides& view, const axes& reduce, axis_result_t<Op, T>* d_out,
                 std::int64_t out_capacity, cudaStream_t stream, const scratch_space& scratch = {}) {
  check_op_fits<Op, T>();
  detail::reduce_axes_into<Op, T>(d_in, in, &view, reduce, d_out, out_capacity, detail::callers_stream<PerThread>(stream),
                                  detail::callers_scratch(scratch));
}
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
std::vector<axis_result_t<Op, T>> reduce_axes(const T* d_in, const shape& in, const strides& view, const axes& reduce,
                                              cudaStream_t stream = nullptr) {
  check_op_fits<Op, T>();
  return detail::reduce_axes_to_host<Op, T>(d_in, in, &view, reduce, detail::callers_stream<PerThread>(stream));
}
// The bytes of caller scratch that reduce_axes of this input needs on the current device
// (0: none). It depends on the input's alignment and the device, not on its values.
template <typename Op, typename T>
std::size_t reduce_axes_scratch_bytes(const T* d_in, const shape& in, const axes& reduce) {
  check_op_fits<Op, T>();
  return detail::reduce_axes_scratch_bytes<Op, T>(d_in, in, nullptr, reduce);
}
template <typename Op, typename T>
std::size_t reduce_axes_scratch_bytes(const T* d_in, const shape& in, const strides& view, const axes& reduce) {
  check_op_fits<Op, T>();
  return detail::reduce_axes_scratch_bytes<Op, T>(d_in, in, &view, reduce);
}

// Segmented reduce, as cub::DeviceSegmentedReduce: output i reduces d_in[d_begin[i] ..
// d_end[i]) (an empty segment when end <= begin). The offset arrays live in device memory;
// argmin/argmax indices count from the segment's begin. The offsets cannot be checked on the
// host: they must lie inside the input. d_in must be device memory whenever segments > 0.
// Segmented reductions need no scratch memory.
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce_segments(const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end, std::int64_t segments,
                     axis_result_t<Op, T>* d_out, cudaStream_t stream) {
  check_op_fits<Op, T>();
  detail::reduce_segments_into<Op, T>(d_in, d_begin, d_end, segments, d_out, detail::callers_stream<PerThread>(stream));
}
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
std::vector<axis_result_t<Op, T>> reduce_segments(const T* d_in, const std::int64_t* d_begin, const std::int64_t* d_end,
                                                  std::int64_t segments, cudaStream_t stream = nullptr) {
  check_op_fits<Op, T>();
  return detail::reduce_segments_to_host<Op, T>(d_in, d_begin, d_end, segments, detail::callers_stream<PerThread>(stream));
}

// Fixed-size segments: output i reduces d_in[i * segment_size .. (i + 1) * segment_size).
// The same as reduce_axes over shape{segments, segment_size}, axes{1}.
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce_fixed_segments(const T* d_in, std::int64_t segments, std::int64_t segment_size, axis_result_t<Op, T>* d_out,
                           cudaStream_t stream, const scratch_space& scratch = {}) {
  reduce_axes<Op, T, PerThread>(d_in, shape{segments, segment_size}, axes{1}, d_out, segments < 0 ? 0 : segments, stream,
                                scratch);
}
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
std::vector<axis_result_t<Op, T>> reduce_fixed_segments(const T* d_in, std::int64_t segments, std::int64_t segment_size,
                                                        cudaStream_t stream = nullptr) {
  return reduce_axes<Op, T, PerThread>(d_in, shape{segments, segment_size}, axes{1}, stream);
}

// One name per op: sum_axes, prod_axes, min_axes, max_axes, bit_and_axes, bit_or_axes,
// bit_xor_axes, argmin_axes, argmax_axes.
#define WARPFOLD_DECLARE_AXES_OP(name)                                                                            \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                     \
  std::vector<axis_result_t<op::name, T>> name##_axes(const T* d_in, const shape& in, const axes& reduce,         \
                                                      cudaStream_t stream = nullptr) {                           \
    return reduce_axes<op::name, T, PerThread>(d_in, in, reduce, stream);                                        \
  }                                                                                                              \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                     \
  void name##_axes(const T* d_in, const shape& in, const axes& reduce, axis_result_t<op::name, T>* d_out,         \
                   std::int64_t out_capacity, cudaStream_t stream, const scratch_space& scratch = {}) {          \
    reduce_axes<op::name, T, PerThread>(d_in, in, reduce, d_out, out_capacity, stream, scratch);                 \
  }                                                                                                              \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                     \
  std::vector<axis_result_t<op::name, T>> name##_axes(const T* d_in, const shape& in, const strides& view,        \
                                                      const axes& reduce, cudaStream_t stream = nullptr) {       \
    return reduce_axes<op::name, T, PerThread>(d_in, in, view, reduce, stream);                                  \
  }                                                                                                              \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                     \
  void name##_axes(const T* d_in, const shape& in, const strides& view, const axes& reduce,                      \
                   axis_result_t<op::name, T>* d_out, std::int64_t out_capacity, cudaStream_t stream,            \
                   const scratch_space& scratch = {}) {                                                          \
    reduce_axes<op::name, T, PerThread>(d_in, in, view, reduce, d_out, out_capacity, stream, scratch);           \
  }
WARPFOLD_DECLARE_AXES_OP(sum)
WARPFOLD_DECLARE_AXES_OP(prod)
WARPFOLD_DECLARE_AXES_OP(min)
WARPFOLD_DECLARE_AXES_OP(max)
WARPFOLD_DECLARE_AXES_OP(bit_and)
WARPFOLD_DECLARE_AXES_OP(bit_or)
WARPFOLD_DECLARE_AXES_OP(bit_xor)
WARPFOLD_DECLARE_AXES_OP(argmin)
WARPFOLD_DECLARE_AXES_OP(argmax)
#undef WARPFOLD_DECLARE_AXES_OP

}  // namespace warpfold

#include "warpfold/axis/plan.hpp"  // reduced_shape's definition (host code only)
#include "warpfold/axes_sum_modes.hpp"  // the reproducible and exact forms of sum_axes and the segments
