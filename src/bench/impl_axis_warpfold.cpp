// The axis API (<warpfold/axes.hpp>) as bench implementations, both asynchronous and into a
// device output allocated in prepare():
// - for --axis, warpfold::sum_axes(d_in, shape{rows, cols}, axes{dim}, d_out, outputs, stream);
// - for --segments, warpfold::reduce_segments<op::sum>(d_in, d_begin, d_end, segments, d_out,
//   stream) on the bench's offset arrays.
// The first call on a stream binds a block of the library's scratch to it; prepare() makes
// that call, so the timed calls only enqueue.
//
// Built with WARPFOLD_BENCH_PRODUCTION, like impl_warpfold.cpp (the definitions are linked in
// from src/axis); without it this file registers nothing.
#include "bench/axis_implementation.hpp"
#include "bench/segment_implementation.hpp"

#if WARPFOLD_BENCH_PRODUCTION

#include <cstdint>

#include "warpfold/axes.hpp"

namespace warpfold::bench {
namespace {

class axis_warpfold_impl final : public float_outputs_implementation {
 public:
  explicit axis_warpfold_impl(const axis_case& c)
      : float_outputs_implementation(c.outputs()), shape_{c.shape.rows, c.shape.cols}, axes_{c.dim} {}

  // n is the shape's element count; the shape says everything.
  void enqueue(const void* d_in, std::int64_t, cudaStream_t stream) override {
    warpfold::sum_axes(static_cast<const float*>(d_in), shape_, axes_, out(), outputs(), stream);
  }

 private:
  warpfold::shape shape_;
  warpfold::axes axes_;
};

class segments_warpfold_impl final : public float_outputs_implementation {
 public:
  explicit segments_warpfold_impl(const device_segments& s) : float_outputs_implementation(s.count), segments_(s) {}

  // n is what the offsets cover; they say everything.
  void enqueue(const void* d_in, std::int64_t, cudaStream_t stream) override {
    warpfold::reduce_segments<warpfold::op::sum>(static_cast<const float*>(d_in), segments_.begin, segments_.end,
                                                 segments_.count, out(), stream);
  }

 private:
  device_segments segments_;
};

}  // namespace

void add_axis_production_entries(std::vector<axis_impl_entry>& entries) {
  entries.push_back({"warpfold", "production",
                     "warpfold::sum_axes(d_in, shape{rows, cols}, axes{dim}, d_out, outputs, stream): the axis API, "
                     "asynchronous, into a device output",
                     false, [](const axis_case& c) { return std::make_unique<axis_warpfold_impl>(c); }});
}

void add_segment_production_entries(std::vector<segment_impl_entry>& entries) {
  entries.push_back({"warpfold", "production",
                     "warpfold::reduce_segments<op::sum>(d_in, d_begin, d_end, segments, d_out, stream): the segmented "
                     "reduce, asynchronous, into a device output",
                     [](const device_segments& s) { return std::make_unique<segments_warpfold_impl>(s); }});
}

}  // namespace warpfold::bench

#else

namespace warpfold::bench {
void add_axis_production_entries(std::vector<axis_impl_entry>&) {}
void add_segment_production_entries(std::vector<segment_impl_entry>&) {}
}  // namespace warpfold::bench

#endif
