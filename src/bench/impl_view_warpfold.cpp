// warpfold::sum_axes over a strided view, for `warpfold bench --axis --random`: the
// asynchronous form, into a device output allocated in prepare(), over whatever dtype the case
// draws (f32, f16 and bf16 sum into float, i32 into int64). The pool's buffer is the view's
// parent; the view starts c.offset elements into it.
//
// Built with WARPFOLD_BENCH_PRODUCTION, like impl_axis_warpfold.cpp.
#include "bench/view_implementation.hpp"

#if WARPFOLD_BENCH_PRODUCTION

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "warpfold/axes.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

template <typename T>
class view_warpfold_impl final : public view_implementation {
 public:
  using result = axis_result_t<op::sum, T>;

  explicit view_warpfold_impl(const view_case& c)
      : shape_(c.extents), strides_(c.strides), axes_(c.dims), offset_(c.offset), outputs_(c.outputs()) {}

  void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) override {
    out_.reserve(static_cast<std::size_t>(outputs_ > 0 ? outputs_ : 1));
    enqueue(d_sample, n, stream);
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // d_in is the parent; the case says where the view is in it.
  void enqueue(const void* d_in, std::int64_t, cudaStream_t stream) override {
    warpfold::sum_axes(static_cast<const T*>(d_in) + offset_, shape_, strides_, axes_, out_.get(), outputs_, stream);
  }

  std::vector<double> fetch_outputs(cudaStream_t stream) override {
    std::vector<result> host(static_cast<std::size_t>(outputs_));
    WARPFOLD_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), out_.get(), host.size() * sizeof(result), cudaMemcpyDeviceToHost, stream));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
    return std::vector<double>(host.begin(), host.end());
  }

  int output_bytes() const override { return sizeof(result); }
  bool capturable() const override { return true; }

 private:
  warpfold::shape shape_;
  warpfold::strides strides_;
  warpfold::axes axes_;
  std::int64_t offset_;
  std::int64_t outputs_;
  warpfold::detail::device_buffer<result> out_;
};

}  // namespace

std::unique_ptr<view_implementation> make_view_warpfold(const view_case& c) {
  switch (c.type) {
    case dtype::f32: return std::make_unique<view_warpfold_impl<float>>(c);
    case dtype::f16: return std::make_unique<view_warpfold_impl<__half>>(c);
    case dtype::bf16: return std::make_unique<view_warpfold_impl<__nv_bfloat16>>(c);
    case dtype::i32: return std::make_unique<view_warpfold_impl<std::int32_t>>(c);
    case dtype::f64: return std::make_unique<view_warpfold_impl<double>>(c);
  }
  throw invalid_argument("make_view_warpfold: unknown dtype");
}

}  // namespace warpfold::bench

#else

#include "warpfold/error.hpp"

namespace warpfold::bench {
std::unique_ptr<view_implementation> make_view_warpfold(const view_case&) {
  throw invalid_argument("warpfold bench --axis --random needs the production API (built with WARPFOLD_BENCH_PRODUCTION)");
}
}  // namespace warpfold::bench

#endif
