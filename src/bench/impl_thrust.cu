// Thrust baseline: thrust::reduce with a thrust::cuda::par.on(stream) policy, exactly as users
// call it. Two things about that call are part of what is measured, on purpose:
// - thrust::reduce returns the sum by value, so every call copies the result to the host and
//   waits for the stream;
// - it allocates (and frees) its temporary storage inside every call, through the default
//   allocator (cudaMalloc/cudaFree). There is no way to pass it storage from outside without a
//   custom allocator, which is not how it is usually called.
// int32 and float sum in their own type (int32 wraps modulo 2^32); __half and __nv_bfloat16
// add with a float initial value and plus<float>, so they accumulate in float.
// This is the only file that instantiates Thrust.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <thrust/execution_policy.h>
#include <cuda/std/functional>
#include <thrust/reduce.h>

#include <cstdint>
#include <type_traits>

#include "bench/dtype_types.hpp"
#include "bench/implementation.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

template <typename T>
class thrust_impl final : public implementation {
 public:
  using result_type = sum_in_type_t<T>;

  result_kind kind() const override { return result_kind_of<result_type>(); }

  // Nothing to allocate: Thrust allocates inside each call. One call warms up its kernels.
  void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) override { enqueue(d_sample, n, stream); }

  // Blocks until the sum is on the host (thrust::reduce returns it by value). Thrust reports
  // CUDA failures as thrust::system_error; they become warpfold::cuda_error here.
  void enqueue(const void* d_in, std::int64_t n, cudaStream_t stream) override {
    const T* first = static_cast<const T*>(d_in);
    try {
      if constexpr (half_like<T>)
        last_ = thrust::reduce(thrust::cuda::par.on(stream), first, first + n, 0.0f, cuda::std::plus<float>());
      else
        last_ = thrust::reduce(thrust::cuda::par.on(stream), first, first + n);
    } catch (const std::exception& e) {
      throw cuda_error(cudaErrorUnknown, std::string("thrust::reduce: ") + e.what());
    }
  }

  result_value fetch(cudaStream_t) override {
    return to_result_value(last_);
  }

 private:
  result_type last_{};
};

}  // namespace

std::unique_ptr<implementation> make_thrust(dtype t) {
  return visit_dtype(t, [](auto tag) -> std::unique_ptr<implementation> {
    return std::make_unique<thrust_impl<typename decltype(tag)::type>>();
  });
}

}  // namespace warpfold::bench
