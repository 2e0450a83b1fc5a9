// CUB baseline: cub::DeviceReduce::Sum, as a careful user calls it. The temporary storage is
// sized and allocated once in prepare(), so a timed call is only CUB's kernels.
// - int32 and float sum in their own type, like the ladder (int32 wraps modulo 2^32).
// - __half and __nv_bfloat16: DeviceReduce::Sum would add in half precision (2^24 values in
//   [0, 1) overflow to inf), so these use DeviceReduce::Reduce with a float output, a float
//   initial value and a float addition, which is what a careful user writes instead.
// - n < 2^31 is passed as int (32-bit offsets, CUB's fast path); larger n as int64.
// This is the only file that instantiates CUB; keep it that way for the build's sake.
#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "bench/dtype_types.hpp"
#include "bench/implementation.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

struct add_as_float {
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
};

template <typename T>
class cub_impl final : public implementation {
 public:
  using result_type = sum_in_type_t<T>;

  result_kind kind() const override { return result_kind_of<result_type>(); }

  void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) override {
    out_.reserve(1);
    std::size_t bytes = 0;
    WARPFOLD_CUDA_CHECK(dispatch(nullptr, bytes, static_cast<const T*>(d_sample), n, stream));
    temp_.reserve(bytes > 0 ? bytes : 1);
    temp_bytes_ = bytes;
    enqueue(d_sample, n, stream);
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const void* d_in, std::int64_t n, cudaStream_t stream) override {
    std::size_t bytes = temp_bytes_;
    WARPFOLD_CUDA_CHECK(dispatch(temp_.get(), bytes, static_cast<const T*>(d_in), n, stream));
  }

  result_value fetch(cudaStream_t stream) override {
    result_type value{};
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&value, out_.get(), sizeof value, cudaMemcpyDeviceToHost, stream));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
    return to_result_value(value);
  }

  bool capturable() const override { return true; }

 private:
  template <typename Size>
  cudaError_t dispatch_sized(void* temp, std::size_t& bytes, const T* in, Size n, cudaStream_t stream) {
    if constexpr (half_like<T>)
      return cub::DeviceReduce::Reduce(temp, bytes, in, out_.get(), n, add_as_float{}, 0.0f, stream);
    else
      return cub::DeviceReduce::Sum(temp, bytes, in, out_.get(), n, stream);
  }

  cudaError_t dispatch(void* temp, std::size_t& bytes, const T* in, std::int64_t n, cudaStream_t stream) {
    if (n <= std::numeric_limits<int>::max()) return dispatch_sized(temp, bytes, in, static_cast<int>(n), stream);
    return dispatch_sized(temp, bytes, in, n, stream);
  }

  warpfold::detail::device_buffer<unsigned char> temp_;
  warpfold::detail::device_buffer<result_type> out_;
  std::size_t temp_bytes_ = 0;
};

}  // namespace

std::unique_ptr<implementation> make_cub(dtype t) {
  return visit_dtype(t, [](auto tag) -> std::unique_ptr<implementation> {
    return std::make_unique<cub_impl<typename decltype(tag)::type>>();
  });
}

}  // namespace warpfold::bench
