// Bad input to the axis API gets a warpfold::invalid_argument that says what is wrong, and
// nothing is written or launched: the async output keeps its sentinel bytes and the input is
// unchanged. Both forms, several ops, and the segmented entry points.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

class AxisBadInput : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped()) return;
    input_.emplace(make_values<float>(4096, seed_for("bad-input", 4096)));
    stream_.emplace();
  }
  void TearDown() override {
    if (input_) {
      EXPECT_TRUE(input_->unchanged()) << "a rejected call wrote its input";
    }
  }

  const float* d_in() const { return input_->data(); }
  cudaStream_t stream() const { return stream_->get(); }

  // Expects `call(d_out)` to throw invalid_argument whose message contains every one of
  // `words`, and the 64 sentinel output elements at d_out to be untouched afterwards.
  template <typename R, typename Call>
  void expect_rejected(Call call, const std::vector<std::string>& words) {
    const sentinel_output<R> out(64);
    try {
      call(out.data());
      ADD_FAILURE() << "expected warpfold::invalid_argument mentioning '" << words.front() << "'";
    } catch (const warpfold::invalid_argument& e) {
      const std::string message = e.what();
      for (const std::string& w : words)
        EXPECT_NE(message.find(w), std::string::npos) << "the message should contain '" << w << "': " << message;
    }
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
    EXPECT_TRUE(out.untouched_from(0)) << "a rejected call wrote its output";
  }

  // The same bad (shape, axes) through the blocking and async forms of sum, argmax and
  // bit_xor (on int32: the input's bytes reinterpreted; nothing may read them anyway), and
  // through reduced_shape.
  void expect_shape_rejected(const warpfold::shape& in, const warpfold::axes& reduce,
                             const std::vector<std::string>& words) {
    using V = warpfold::value_index<float>;
    const auto* ints = reinterpret_cast<const std::int32_t*>(d_in());
    expect_rejected<float>([&](float*) { (void)warpfold::sum_axes(d_in(), in, reduce); }, words);
    expect_rejected<float>([&](float* out) { warpfold::sum_axes(d_in(), in, reduce, out, 64, stream()); }, words);
    expect_rejected<V>([&](V*) { (void)warpfold::argmax_axes(d_in(), in, reduce, stream()); }, words);
    expect_rejected<V>([&](V* out) { warpfold::argmax_axes(d_in(), in, reduce, out, 64, nullptr); }, words);
    expect_rejected<std::int32_t>([&](std::int32_t* out) { warpfold::bit_xor_axes(ints, in, reduce, out, 64, stream()); },
                                  words);
    EXPECT_THROW((void)warpfold::reduced_shape(in, reduce), warpfold::invalid_argument);
  }

 private:
  std::optional<device_input<float>> input_;
  std::optional<owned_stream> stream_;
};

TEST_F(AxisBadInput, AxisOutOfRange) {
  expect_shape_rejected({4, 8}, {2}, {"axis 2", "out of range", "rank 2"});
  expect_shape_rejected({4, 8}, {-3}, {"axis -3", "out of range"});
  expect_shape_rejected({2, 4, 8}, {0, 5}, {"axis 5", "out of range", "rank 3"});
  expect_shape_rejected({16}, {1}, {"axis 1", "out of range"});
}

TEST_F(AxisBadInput, DuplicateAxis) {
  expect_shape_rejected({4, 8}, {1, 1}, {"axis 1", "twice"});
  expect_shape_rejected({4, 8}, {-1, 1}, {"axis 1", "twice"});  // -1 is rank - 1
  expect_shape_rejected({2, 4, 8}, {0, 2, -3}, {"axis 0", "twice"});
}

TEST_F(AxisBadInput, NegativeExtent) {
  expect_shape_rejected({4, -8}, {1}, {"extent -8", "negative"});
  expect_shape_rejected({-1}, {}, {"extent -1", "negative"});
  expect_shape_rejected({0, -3}, {0}, {"negative"});  // even with no elements
}

TEST_F(AxisBadInput, ElementCountOverflow) {
  const std::int64_t big = std::int64_t{1} << 32;
  expect_shape_rejected({big, big}, {1}, {"2^63 - 1"});
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  expect_shape_rejected({2, max / 2 + 1}, {0}, {"2^63 - 1"});
  expect_shape_rejected({0, big, big}, {0}, {"2^63 - 1"});
}

TEST_F(AxisBadInput, RankAboveEight) {
  EXPECT_THROW(warpfold::shape(std::vector<std::int64_t>(9, 1)), warpfold::invalid_argument);
}

TEST_F(AxisBadInput, OutputCapacityTooSmall) {
  // (37, 64) over {1} writes 37 values.
  const warpfold::shape in{37, 64};
  for (std::int64_t capacity : {std::int64_t{36}, std::int64_t{1}, std::int64_t{0}, std::int64_t{-5}}) {
    SCOPED_TRACE(::testing::Message() << "capacity " << capacity);
    expect_rejected<float>([&](float* out) { warpfold::sum_axes(d_in(), in, {1}, out, capacity, stream()); },
                           {std::to_string(capacity), "37"});
    using V = warpfold::value_index<float>;
    expect_rejected<V>([&](V* out) { warpfold::argmin_axes(d_in(), in, {-1}, out, capacity, stream()); },
                       {std::to_string(capacity), "37"});
  }
  // Over {} the output is the whole input: 37 * 64 = 2368 values.
  expect_rejected<float>([&](float* out) { warpfold::max_axes(d_in(), in, {}, out, 64, nullptr); }, {"2368"});
}

TEST_F(AxisBadInput, NullInputWithElements) {
  const float* none = nullptr;
  expect_rejected<float>([&](float*) { (void)warpfold::sum_axes(none, {3, 4}, {1}); }, {"null"});
  expect_rejected<float>([&](float* out) { warpfold::min_axes(none, {3, 4}, {}, out, 64, stream()); }, {"null"});
  expect_rejected<float>([&](float* out) { warpfold::prod_axes(none, {3, 4}, {0, 1}, out, 64, stream()); }, {"null"});
}

TEST_F(AxisBadInput, HostInputPointers) {
  std::vector<float> pageable(4096, 1.0f);
  expect_rejected<float>([&](float*) { (void)warpfold::sum_axes(pageable.data(), {64, 64}, {0}); },
                         {"not device memory"});
  pinned_array<float> pinned(4096);
  expect_rejected<float>([&](float* out) { warpfold::max_axes(pinned.data(), {64, 64}, {1}, out, 64, stream()); },
                         {"not device memory"});
}

TEST_F(AxisBadInput, NullOrHostOutputOfTheAsyncForm) {
  float* null_out = nullptr;
  EXPECT_THROW(warpfold::sum_axes(d_in(), {64, 64}, {1}, null_out, 64, stream()), warpfold::invalid_argument);
  std::vector<float> pageable(64);
  EXPECT_THROW(warpfold::sum_axes(d_in(), {64, 64}, {0}, pageable.data(), 64, stream()), warpfold::invalid_argument);
  EXPECT_EQ(pageable, std::vector<float>(64, 0.0f));
  pinned_array<float> pinned(64);
  for (std::size_t i = 0; i < 64; ++i) pinned.data()[i] = -1.0f;
  EXPECT_THROW(warpfold::max_axes(d_in(), {64, 64}, {0}, pinned.data(), 64, stream()), warpfold::invalid_argument);
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(pinned.data()[i], -1.0f) << "pinned output written at " << i;
  try {
    warpfold::sum_axes(d_in(), {64, 64}, {1}, null_out, 64, stream());
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("null"), std::string::npos) << e.what();
  }
}

// ---- segmented entry points ----

TEST_F(AxisBadInput, FixedSegmentsWithNegativeCounts) {
  expect_rejected<float>([&](float* out) { warpfold::reduce_fixed_segments<op::sum>(d_in(), -1, 4, out, stream()); },
                         {"negative"});
  expect_rejected<float>([&](float* out) { warpfold::reduce_fixed_segments<op::sum>(d_in(), 4, -1, out, stream()); },
                         {"negative"});
  expect_rejected<float>([&](float*) { (void)warpfold::reduce_fixed_segments<op::max>(d_in(), -3, 0); }, {"negative"});
  const float* none = nullptr;
  expect_rejected<float>([&](float*) { (void)warpfold::reduce_fixed_segments<op::sum>(none, 2, 3); }, {"null"});
}

TEST_F(AxisBadInput, SegmentsWithBadCountsOrPointers) {
  const std::vector<std::int64_t> begins = {0, 10}, ends = {10, 20};
  const device_array<std::int64_t> d_begin = upload(begins), d_end = upload(ends);
  const std::int64_t* null_offsets = nullptr;
  const float* none = nullptr;
  const cudaStream_t s = stream();
  auto segments_into = [s](const float* in, const std::int64_t* b, const std::int64_t* e, std::int64_t count) {
    return [=](float* out) { warpfold::reduce_segments<op::sum>(in, b, e, count, out, s); };
  };
  expect_rejected<float>(segments_into(d_in(), d_begin.data(), d_end.data(), -1), {"negative"});
  expect_rejected<float>(segments_into(d_in(), null_offsets, d_end.data(), 2), {"null"});
  expect_rejected<float>(segments_into(d_in(), d_begin.data(), null_offsets, 2), {"null"});
  expect_rejected<float>(segments_into(none, d_begin.data(), d_end.data(), 2), {"null"});
  expect_rejected<float>(segments_into(d_in(), begins.data(), d_end.data(), 2), {"not device memory"});
  expect_rejected<float>(segments_into(d_in(), d_begin.data(), ends.data(), 2), {"not device memory"});
  std::vector<float> host(4096);
  expect_rejected<float>(segments_into(host.data(), d_begin.data(), d_end.data(), 2), {"not device memory"});
  expect_rejected<float>(
      [&](float*) { (void)warpfold::reduce_segments<op::argmin>(d_in(), null_offsets, d_end.data(), 2); }, {"null"});
  float* null_out = nullptr;
  EXPECT_THROW(warpfold::reduce_segments<op::sum>(d_in(), d_begin.data(), d_end.data(), 2, null_out, stream()),
               warpfold::invalid_argument);
  std::vector<float> host_out(2, -1.0f);
  EXPECT_THROW(warpfold::reduce_segments<op::sum>(d_in(), d_begin.data(), d_end.data(), 2, host_out.data(), stream()),
               warpfold::invalid_argument);
  EXPECT_EQ(host_out, std::vector<float>(2, -1.0f));
}

}  // namespace
