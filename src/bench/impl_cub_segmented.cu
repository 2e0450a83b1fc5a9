// CUB baseline for the axis bench's row cases: cub::DeviceSegmentedReduce::Sum, segment r =
// row r, as a careful user calls it.
// - The offsets come from counting iterators (begin r*cols, end (r+1)*cols), not from arrays
//   in device memory: with arrays CUB would read 16 bytes of offsets per row besides the
//   data, a third more traffic at 4 columns. Temp storage is sized and allocated once in
//   prepare(), so a timed call is only CUB's kernel.
// - Offsets are int below 2^31 elements (32-bit offsets, as impl_cub.cu passes n), else int64.
// - Dim 0 is no segmented reduce (a column is not a contiguous run), so this is rows only.
// This is the only file that instantiates DeviceSegmentedReduce; keep it that way for the
// build's sake.
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <limits>

#include "bench/axis_check.hpp"
#include "bench/axis_implementation.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

template <typename Offset>
struct row_start {
  Offset cols;
  __host__ __device__ Offset operator()(Offset row) const { return row * cols; }
};

template <typename Offset>
class cub_segmented_impl final : public axis_implementation {
 public:
  explicit cub_segmented_impl(const axis_case& c) : rows_(c.shape.rows), cols_(static_cast<Offset>(c.shape.cols)) {}

  void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) override {
    out_.reserve(static_cast<std::size_t>(rows_ > 0 ? rows_ : 1));
    std::size_t bytes = 0;
    WARPFOLD_CUDA_CHECK(dispatch(nullptr, bytes, static_cast<const float*>(d_sample), stream));
    temp_.reserve(bytes > 0 ? bytes : 1);
    temp_bytes_ = bytes;
    enqueue(d_sample, n, stream);
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const void* d_in, std::int64_t, cudaStream_t stream) override {
    std::size_t bytes = temp_bytes_;
    WARPFOLD_CUDA_CHECK(dispatch(temp_.get(), bytes, static_cast<const float*>(d_in), stream));
  }

  std::vector<double> fetch_outputs(cudaStream_t stream) override { return fetch_float_outputs(out_.get(), rows_, stream); }

  bool capturable() const override { return true; }

 private:
  cudaError_t dispatch(void* temp, std::size_t& bytes, const float* in, cudaStream_t stream) {
    const auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<Offset>(0), row_start<Offset>{cols_});
    const auto end = thrust::make_transform_iterator(thrust::make_counting_iterator<Offset>(1), row_start<Offset>{cols_});
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out_.get(), rows_, begin, end, stream);
  }

  std::int64_t rows_;
  Offset cols_;
  warpfold::detail::device_buffer<unsigned char> temp_;
  warpfold::detail::device_buffer<float> out_;
  std::size_t temp_bytes_ = 0;
};

}  // namespace

std::unique_ptr<axis_implementation> make_axis_cub(const axis_case& c) {
  if (c.dim != 1) throw invalid_argument("cub::DeviceSegmentedReduce sums contiguous rows: dim 1 only");
  if (c.shape.elements() <= std::numeric_limits<int>::max()) return std::make_unique<cub_segmented_impl<int>>(c);
  return std::make_unique<cub_segmented_impl<std::int64_t>>(c);
}

}  // namespace warpfold::bench
