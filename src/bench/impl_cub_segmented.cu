// CUB baselines built on cub::DeviceSegmentedReduce::Sum, as a careful user calls it: temp
// storage is sized and allocated once in prepare(), so a timed call is only CUB's kernel.
// - The axis bench's row cases (--axis, dim 1): segment r = row r. The offsets come from
//   counting iterators (begin r*cols, end (r+1)*cols), not from arrays in device memory: with
//   arrays CUB would read 16 bytes of offsets per row besides the data, a third more traffic
//   at 4 columns. Offsets are int below 2^31 elements (32-bit offsets, as impl_cub.cu passes
//   n), else int64. Dim 0 is no segmented reduce (a column is not a contiguous run), so this
//   is rows only.
// - The segment bench (--segments): the very int64 begin and end arrays in device memory that
//   warpfold::reduce_segments reads.
// This is the only file that instantiates DeviceSegmentedReduce; keep it that way for the
// build's sake.
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <limits>

#include "bench/axis_implementation.hpp"
#include "bench/segment_implementation.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

template <typename Offset>
struct row_start {
  Offset cols;
  __host__ __device__ Offset operator()(Offset row) const { return row * cols; }
};

// One DeviceSegmentedReduce::Sum over `begin` and `end` (iterators or device arrays) into
// out(), its temp storage allocated once, in prepare().
template <typename BeginOffsets, typename EndOffsets>
class cub_segmented_impl final : public float_outputs_implementation {
 public:
  cub_segmented_impl(std::int64_t segments, BeginOffsets begin, EndOffsets end)
      : float_outputs_implementation(segments), begin_(begin), end_(end) {}

  void enqueue(const void* d_in, std::int64_t, cudaStream_t stream) override {
    std::size_t bytes = temp_bytes_;
    WARPFOLD_CUDA_CHECK(dispatch(temp_.get(), bytes, static_cast<const float*>(d_in), stream));
  }

 private:
  void allocate_scratch(const float* d_sample, cudaStream_t stream) override {
    std::size_t bytes = 0;
    WARPFOLD_CUDA_CHECK(dispatch(nullptr, bytes, d_sample, stream));
    temp_.reserve(bytes > 0 ? bytes : 1);
    temp_bytes_ = bytes;
  }

  cudaError_t dispatch(void* temp, std::size_t& bytes, const float* in, cudaStream_t stream) {
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out(), outputs(), begin_, end_, stream);
  }

  BeginOffsets begin_;
  EndOffsets end_;
  warpfold::detail::device_buffer<unsigned char> temp_;
  std::size_t temp_bytes_ = 0;
};

template <typename Offset>
std::unique_ptr<axis_implementation> make_rows_cub(const axis_case& c) {
  const auto cols = static_cast<Offset>(c.shape.cols);
  const auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<Offset>(0), row_start<Offset>{cols});
  const auto end = thrust::make_transform_iterator(thrust::make_counting_iterator<Offset>(1), row_start<Offset>{cols});
  return std::make_unique<cub_segmented_impl<decltype(begin), decltype(end)>>(c.shape.rows, begin, end);
}

}  // namespace

std::unique_ptr<axis_implementation> make_axis_cub(const axis_case& c) {
  if (c.dim != 1) throw invalid_argument("cub::DeviceSegmentedReduce sums contiguous rows: dim 1 only");
  if (c.shape.elements() <= std::numeric_limits<int>::max()) return make_rows_cub<int>(c);
  return make_rows_cub<std::int64_t>(c);
}

std::unique_ptr<axis_implementation> make_segments_cub(const device_segments& s) {
  return std::make_unique<cub_segmented_impl<const std::int64_t*, const std::int64_t*>>(s.count, s.begin, s.end);
}

}  // namespace warpfold::bench
