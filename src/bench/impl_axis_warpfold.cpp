// The axis API as a bench implementation: warpfold::sum_axes(d_in, shape{rows, cols},
// axes{dim}, d_out, outputs, stream) from <warpfold/axes.hpp>, the asynchronous form, into a
// device output allocated in prepare(). The first call on a stream binds a block of the
// library's scratch to it; prepare() makes that call, so the timed calls only enqueue.
//
// Built with WARPFOLD_BENCH_PRODUCTION, like impl_warpfold.cpp (the definitions are linked in
// from src/axis); without it this file registers nothing.
#include "bench/axis_implementation.hpp"

#if WARPFOLD_BENCH_PRODUCTION

#include <cstdint>

#include "bench/axis_check.hpp"
#include "warpfold/axes.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

class axis_warpfold_impl final : public axis_implementation {
 public:
  explicit axis_warpfold_impl(const axis_case& c)
      : shape_{c.shape.rows, c.shape.cols}, axes_{c.dim}, outputs_(c.outputs()) {}

  void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) override {
    out_.reserve(static_cast<std::size_t>(outputs_ > 0 ? outputs_ : 1));
    enqueue(d_sample, n, stream);
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // n is the shape's element count; the shape says everything.
  void enqueue(const void* d_in, std::int64_t, cudaStream_t stream) override {
    warpfold::sum_axes(static_cast<const float*>(d_in), shape_, axes_, out_.get(), outputs_, stream);
  }

  std::vector<double> fetch_outputs(cudaStream_t stream) override {
    return fetch_float_outputs(out_.get(), outputs_, stream);
  }

  bool capturable() const override { return true; }

 private:
  warpfold::shape shape_;
  warpfold::axes axes_;
  std::int64_t outputs_;
  warpfold::detail::device_buffer<float> out_;
};

}  // namespace

void add_axis_production_entries(std::vector<axis_impl_entry>& entries) {
  entries.push_back({"warpfold", "production",
                     "warpfold::sum_axes(d_in, shape{rows, cols}, axes{dim}, d_out, outputs, stream): the axis API, "
                     "asynchronous, into a device output",
                     false, [](const axis_case& c) { return std::make_unique<axis_warpfold_impl>(c); }});
}

}  // namespace warpfold::bench

#else

namespace warpfold::bench {
void add_axis_production_entries(std::vector<axis_impl_entry>&) {}
}  // namespace warpfold::bench

#endif
