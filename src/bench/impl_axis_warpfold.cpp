// The axis API (<warpfold/axes.hpp>) as bench implementations, both asynchronous and into a
// device output allocated in prepare():
// - for --axis, warpfold::sum_axes(d_in, shape{rows, cols}, axes{dim}, d_out, outputs, stream);
// - for --segments, warpfold::reduce_segments<op::sum>(d_in, d_begin, d_end, segments, d_out,
//   stream) on the bench's offset arrays;
// - the reproducible and exact forms of both (axes_sum_modes.hpp), as rows
//   warpfold-reproducible and warpfold-exact.
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

enum class sum_kind { fast, reproducible, exact };

template <sum_kind Kind>
class axis_warpfold_impl final : public float_outputs_implementation {
 public:
  explicit axis_warpfold_impl(const axis_case& c)
      : float_outputs_implementation(c.outputs()), shape_{c.shape.rows, c.shape.cols}, axes_{c.dim} {}

  // n is the shape's element count; the shape says everything.
  void enqueue(const void* d_in, std::int64_t, cudaStream_t stream) override {
    const auto* in = static_cast<const float*>(d_in);
    if constexpr (Kind == sum_kind::fast) warpfold::sum_axes(in, shape_, axes_, out(), outputs(), stream);
    else if constexpr (Kind == sum_kind::reproducible) warpfold::sum_axes_reproducible(in, shape_, axes_, out(), outputs(), stream);
    else warpfold::sum_axes_exact(in, shape_, axes_, out(), outputs(), stream);
  }

 private:
  warpfold::shape shape_;
  warpfold::axes axes_;
};

template <sum_kind Kind>
class segments_warpfold_impl final : public float_outputs_implementation {
 public:
  explicit segments_warpfold_impl(const device_segments& s) : float_outputs_implementation(s.count), segments_(s) {}

  // n is what the offsets cover; they say everything.
  void enqueue(const void* d_in, std::int64_t, cudaStream_t stream) override {
    const auto* in = static_cast<const float*>(d_in);
    const device_segments& s = segments_;
    if constexpr (Kind == sum_kind::fast)
      warpfold::reduce_segments<warpfold::op::sum>(in, s.begin, s.end, s.count, out(), stream);
    else if constexpr (Kind == sum_kind::reproducible)
      warpfold::sum_segments_reproducible(in, s.begin, s.end, s.count, out(), stream);
    else
      warpfold::sum_segments_exact(in, s.begin, s.end, s.count, out(), stream);
  }

 private:
  device_segments segments_;
};

}  // namespace

void add_axis_production_entries(std::vector<axis_impl_entry>& entries) {
  entries.push_back({"warpfold", "production",
                     "warpfold::sum_axes(d_in, shape{rows, cols}, axes{dim}, d_out, outputs, stream): the axis API, "
                     "asynchronous, into a device output",
                     false, [](const axis_case& c) { return std::make_unique<axis_warpfold_impl<sum_kind::fast>>(c); }});
  entries.push_back({"warpfold-reproducible", "sum-modes",
                     "warpfold::sum_axes_reproducible: the same bits on every GPU (each output in the documented order)",
                     false, [](const axis_case& c) { return std::make_unique<axis_warpfold_impl<sum_kind::reproducible>>(c); }});
  entries.push_back({"warpfold-exact", "sum-modes", "warpfold::sum_axes_exact: each output the exact sum, rounded once",
                     false, [](const axis_case& c) { return std::make_unique<axis_warpfold_impl<sum_kind::exact>>(c); }});
}

void add_segment_production_entries(std::vector<segment_impl_entry>& entries) {
  entries.push_back({"warpfold", "production",
                     "warpfold::reduce_segments<op::sum>(d_in, d_begin, d_end, segments, d_out, stream): the segmented "
                     "reduce, asynchronous, into a device output",
                     [](const device_segments& s) { return std::make_unique<segments_warpfold_impl<sum_kind::fast>>(s); }});
  entries.push_back({"warpfold-reproducible", "sum-modes",
                     "warpfold::sum_segments_reproducible: the same bits on every GPU (each segment in the documented order)",
                     [](const device_segments& s) { return std::make_unique<segments_warpfold_impl<sum_kind::reproducible>>(s); }});
  entries.push_back({"warpfold-exact", "sum-modes", "warpfold::sum_segments_exact: each segment's exact sum, rounded once",
                     [](const device_segments& s) { return std::make_unique<segments_warpfold_impl<sum_kind::exact>>(s); }});
}

}  // namespace warpfold::bench

#else

namespace warpfold::bench {
void add_axis_production_entries(std::vector<axis_impl_entry>&) {}
void add_segment_production_entries(std::vector<segment_impl_entry>&) {}
}  // namespace warpfold::bench

#endif
