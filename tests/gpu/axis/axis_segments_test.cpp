// Segmented reductions. reduce_segments (cub::DeviceSegmentedReduce's contract: offsets in
// device memory, output i reduces d_in[begin[i], end[i]), empty when end <= begin, argmin and
// argmax indices counted from the segment's begin) on edge-case segments (empty, reversed,
// overlapping, nested, duplicated, at the input's end, lengths 1, 31, 32, 33, 1000, 100003,
// at odd starting offsets), on thousands of random ones, on back-to-back segments of every
// length class (alone and mixed in one call), and past the kernel's list of long segments; and
// reduce_fixed_segments (the
// same as a [segments, size] array over axis 1), including 0 segments and segments of size 0.
// Every op, blocking and async, against the independent CPU reference.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

struct segment {
  std::int64_t begin, end;
};

std::string segment_text(const segment& s) {
  return "[" + std::to_string(s.begin) + ", " + std::to_string(s.end) + ")";
}

constexpr std::int64_t segment_input_size = 200003;

std::vector<segment> edge_segments() {
  const std::int64_t n = segment_input_size;
  return {
      {0, 0},       {10, 10},     {50, 40},          {n, n},       {n, 0},           // empty, end <= begin
      {5, 6},       {n - 1, n},   {0, 1},                                           // length 1
      {7, 38},      {1, 33},      {3, 36},           {64, 96},     {96, 129},        // 31, 32, 33, 32 aligned, 33
      {100, 1100},  {17, 17 + 100003},                                              // 1000, 100003
      {0, 1000},    {500, 1500},  {0, 1000},         {200, 300},   {999, 1001},      // overlapping, duplicate, nested
      {n - 33, n},  {0, n},       {1, n},            {3, n - 5},                     // to the end, the whole input
  };
}

// `count` segments from a fixed seed: starts anywhere, lengths log-uniform up to 3000, one in
// eight empty or reversed.
std::vector<segment> random_segments(std::int64_t count, std::uint64_t seed) {
  std::vector<segment> segments;
  const std::vector<std::int64_t> lengths = random_sizes(static_cast<int>(count), 1, 3000, seed);
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint64_t h = splitmix64(seed ^ static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull);
    const std::int64_t begin = static_cast<std::int64_t>(h % static_cast<std::uint64_t>(segment_input_size));
    std::int64_t end = std::min(segment_input_size, begin + lengths[static_cast<std::size_t>(i)]);
    if ((h >> 40) % 8 == 0) end = begin - static_cast<std::int64_t>((h >> 44) % 3);  // empty or reversed
    segments.push_back({begin, end});
  }
  return segments;
}

// Runs op over `segments` of the input, both forms (async on `stream`, into a sentinel buffer
// with slack that must stay untouched), and compares each output with the reference.
template <typename Op, typename T>
bool expect_segments(const device_input<T>& input, const std::vector<segment>& segments, cudaStream_t stream) {
  using R = result_t<Op, T>;
  const std::int64_t count = static_cast<std::int64_t>(segments.size());
  std::vector<std::int64_t> begins, ends;
  for (const segment& s : segments) begins.push_back(s.begin), ends.push_back(s.end);
  const device_array<std::int64_t> d_begin = upload(begins), d_end = upload(ends);

  std::vector<expectation_t<Op, T>> expected;
  for (const segment& s : segments) {
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(std::max<std::int64_t>(s.end - s.begin, 0)));
    std::iota(offsets.begin(), offsets.end(), 0);
    expected.push_back(expected_output<Op, T>(input.host_values(), s.begin, offsets));
  }
  auto compare = [&](const std::vector<R>& got, const char* form) {
    ::testing::AssertionResult r = ::testing::AssertionSuccess();
    if (got.size() != expected.size()) {
      r = ::testing::AssertionFailure() << got.size() << " outputs for " << expected.size() << " segments";
    } else {
      std::int64_t wrong = 0;
      ::testing::AssertionResult failure = ::testing::AssertionFailure();
      for (std::size_t i = 0; i < got.size(); ++i) {
        const ::testing::AssertionResult m = expected[i].matches(got[i]);
        if (m) continue;
        if (wrong++ < 5) failure << "\n  segment " << i << " " << segment_text(segments[i]) << ": " << m.message();
      }
      if (wrong > 0) r = failure << "\n  " << wrong << " of " << got.size() << " segments differ";
    }
    EXPECT_TRUE(r) << op_name<Op>() << "_segments<" << type_name<T>() << ">, " << form;
    return static_cast<bool>(r);
  };

  bool ok = compare(warpfold::reduce_segments<Op>(input.data(), d_begin.data(), d_end.data(), count, stream), "blocking");
  const sentinel_output<R> out(count + output_slack);
  warpfold::reduce_segments<Op>(input.data(), d_begin.data(), d_end.data(), count, out.data(), stream);
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
  ok = compare(out.download(count), "async") && ok;
  const ::testing::AssertionResult tail = out.untouched_from(count);
  EXPECT_TRUE(tail) << op_name<Op>() << "_segments<" << type_name<T>() << ">, async";
  return ok && tail;
}

template <typename T>
class AxisSegments : public gpu_test {};
TYPED_TEST_SUITE(AxisSegments, op_element_types, type_names);

template <typename Op, typename T>
void segments_for_op(cudaStream_t stream) {
  const std::uint64_t seed = seed_for(std::string("segments/") + op_name<Op>() + "/" + type_name<T>(), segment_input_size);
  SCOPED_TRACE(::testing::Message() << op_name<Op>() << " " << type_name<T>() << " seed = " << seed);
  const device_input<T> input(values_for<Op, T>(segment_input_size, seed));
  // 5000 segments come in warp groups of one or two, 40000 in groups of four or eight
  // (axis/launch.cuh sizes the groups from the count).
  if (expect_segments<Op>(input, edge_segments(), stream) && expect_segments<Op>(input, random_segments(5000, seed), stream))
    expect_segments<Op>(input, random_segments(40000, seed + 1), stream);
  EXPECT_TRUE(input.unchanged());
}

TYPED_TEST(AxisSegments, EveryOpOnEdgeCaseAndRandomSegments) {
  using T = TypeParam;
  owned_stream stream;
  segments_for_op<op::sum, T>(stream.get());
  segments_for_op<op::prod, T>(cudaStream_t{});
  segments_for_op<op::min, T>(stream.get());
  segments_for_op<op::max, T>(cudaStream_t{});
  segments_for_op<op::argmin, T>(stream.get());
  segments_for_op<op::argmax, T>(cudaStream_t{});
  if constexpr (is_integer_v<T>) {
    segments_for_op<op::bit_and, T>(stream.get());
    segments_for_op<op::bit_or, T>(cudaStream_t{});
    segments_for_op<op::bit_xor, T>(stream.get());
  }
}

// Back-to-back segments (each begins where the one before ends), as a CSR matrix's rows or a
// batch of variable-length sequences give them, covering `n` elements: lengths drawn in runs
// of `run` segments, each run's mean length picked from `means` (uniform in [0, 2 * mean]).
std::vector<segment> back_to_back_segments(std::int64_t n, const std::vector<std::int64_t>& means, std::int64_t run,
                                           std::uint64_t seed) {
  std::vector<segment> segments;
  std::int64_t at = 0, mean = means[0];
  for (std::uint64_t i = 0; at < n; ++i) {
    const std::uint64_t h = splitmix64(seed + i);
    if (static_cast<std::int64_t>(i) % run == 0) mean = means[(h >> 32) % means.size()];
    const std::int64_t length = std::min(n - at, static_cast<std::int64_t>(h % static_cast<std::uint64_t>(2 * mean + 1)));
    segments.push_back({at, at + length});
    at += length;
  }
  return segments;
}

// Every length class in one call, and each alone: a million tiny segments (warp groups of 32),
// medium ones (teams per segment), long ones (listed, one block each, or cut in chunks over
// many blocks), and a few that hold most of the input.
template <typename Op, typename T>
void length_classes_for_op(cudaStream_t stream) {
  const std::int64_t n = quick_mode() ? 60000 : 1200000;
  const std::uint64_t seed = seed_for(std::string("segment lengths/") + op_name<Op>() + "/" + type_name<T>(), n);
  SCOPED_TRACE(::testing::Message() << op_name<Op>() << " " << type_name<T>() << " seed = " << seed);
  const device_input<T> input(values_for<Op, T>(n, seed));
  const std::vector<std::vector<std::int64_t>> mixes = {
      {1}, {5}, {70}, {1500}, {30000}, {n / 6}, {0, 1, 4, 16, 64, 1024, 30000, n / 6}};
  for (const std::vector<std::int64_t>& means : mixes) {
    SCOPED_TRACE(::testing::Message() << "mean lengths " << means[0] << (means.size() > 1 ? " and others" : ""));
    if (!expect_segments<Op>(input, back_to_back_segments(n, means, 3, seed), stream)) break;
  }
  EXPECT_TRUE(input.unchanged());
}

TYPED_TEST(AxisSegments, BackToBackSegmentsOfEveryLengthClass) {
  using T = TypeParam;
  owned_stream stream;
  length_classes_for_op<op::sum, T>(stream.get());
  length_classes_for_op<op::argmax, T>(cudaStream_t{});
  length_classes_for_op<op::min, T>(stream.get());
}

class AxisSegmentsSemantics : public gpu_test {};

// More long segments than the list holds (8192), and more chunks than it has partials for
// (65536): the warp that finds a segment then reduces it itself, or one block takes it whole.
// Every segment here is the same range, so one reference serves them all.
template <typename T>
void expect_same_segment_everywhere(std::int64_t count, std::int64_t length, std::int64_t shift) {
  const std::int64_t n = length + shift;
  const std::uint64_t seed = seed_for(std::string("list overflow/") + type_name<T>(), count);
  SCOPED_TRACE(::testing::Message() << count << " segments of " << length << " " << type_name<T>() << ", seed = " << seed);
  const device_input<T> input(values_for<op::sum, T>(n, seed));
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(length));
  std::iota(offsets.begin(), offsets.end(), 0);
  const auto expected = expected_output<op::sum, T>(input.host_values(), shift, offsets);
  const device_array<std::int64_t> begins = upload(std::vector<std::int64_t>(static_cast<std::size_t>(count), shift));
  const device_array<std::int64_t> ends = upload(std::vector<std::int64_t>(static_cast<std::size_t>(count), n));
  const auto got = warpfold::reduce_segments<op::sum>(input.data(), begins.data(), ends.data(), count);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(count));
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const ::testing::AssertionResult m = expected.matches(got[i]);
    if (!m && wrong++ < 5) ADD_FAILURE() << "segment " << i << ": " << m.message();
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_TRUE(input.unchanged());
}

TEST_F(AxisSegmentsSemantics, MoreLongSegmentsThanTheListHolds) {
  expect_same_segment_everywhere<float>(9000, 3001, 3);
  if (quick_mode()) GTEST_SKIP() << "the chunk overflow reads 4 GB: not under the sanitizers";
  expect_same_segment_everywhere<double>(1100, 8192 * 64 + 5, 1);
}

// The kernel leaves its list's counters at zero for the next call: the same call again, and
// one of another length class, give the same outputs.
TEST_F(AxisSegmentsSemantics, RepeatedCallsAgree) {
  const std::int64_t n = 400000;
  const device_input<float> input(make_values<float>(n, 11));
  for (const std::vector<std::int64_t>& means : {std::vector<std::int64_t>{n / 3}, {3}, {n / 3, 2, 40000}}) {
    std::vector<std::int64_t> begins, ends;
    for (const segment& s : back_to_back_segments(n, means, 2, 5)) begins.push_back(s.begin), ends.push_back(s.end);
    const device_array<std::int64_t> d_begin = upload(begins), d_end = upload(ends);
    const std::int64_t count = static_cast<std::int64_t>(begins.size());
    const auto first = warpfold::reduce_segments<op::sum>(input.data(), d_begin.data(), d_end.data(), count);
    for (int again = 0; again < 3; ++again)
      EXPECT_EQ(warpfold::reduce_segments<op::sum>(input.data(), d_begin.data(), d_end.data(), count), first)
          << "mean length " << means[0] << ", call " << again + 2;
  }
}


TEST_F(AxisSegmentsSemantics, ArgIndicesCountFromTheSegmentsBegin) {
  std::vector<float> x(5000, 1.0f);
  x[1500] = -3.0f;  // in [1000, 2000) at index 500, in [1400, 4000) at 100
  x[3000] = 7.0f;   // in [1400, 4000) at 1600
  const device_input<float> input(x);
  const device_array<std::int64_t> begins = upload(std::vector<std::int64_t>{1000, 1400, 0, 1501});
  const device_array<std::int64_t> ends = upload(std::vector<std::int64_t>{2000, 4000, 1000, 1502});
  const auto lows = warpfold::reduce_segments<op::argmin>(input.data(), begins.data(), ends.data(), 4);
  const auto highs = warpfold::reduce_segments<op::argmax>(input.data(), begins.data(), ends.data(), 4);
  ASSERT_EQ(lows.size(), 4u);
  EXPECT_EQ(lows[0].index, 500);
  EXPECT_EQ(lows[0].value, -3.0f);
  EXPECT_EQ(lows[1].index, 100);
  EXPECT_EQ(highs[1].index, 1600);
  EXPECT_EQ(highs[1].value, 7.0f);
  EXPECT_EQ(lows[2].index, 0) << "all equal: the first element of the segment";
  EXPECT_EQ(lows[3].index, 0) << "a segment of one";
}

TEST_F(AxisSegmentsSemantics, NoSegmentsWritesNothing) {
  const device_input<float> input(make_values<float>(100, 5));
  const device_array<std::int64_t> offsets = upload(std::vector<std::int64_t>{0});
  EXPECT_TRUE(warpfold::reduce_segments<op::sum>(input.data(), offsets.data(), offsets.data(), 0).empty());
  const sentinel_output<float> out(4);
  warpfold::reduce_segments<op::sum>(input.data(), offsets.data(), offsets.data(), 0, out.data(), cudaStream_t{});
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(out.untouched_from(0));
}

// ---- fixed-size segments ----

template <typename T>
class AxisFixedSegments : public gpu_test {};
TYPED_TEST_SUITE(AxisFixedSegments, op_element_types, type_names);

template <typename Op, typename T>
bool expect_fixed_segments(std::int64_t segments, std::int64_t size, cudaStream_t stream) {
  using R = result_t<Op, T>;
  const std::int64_t n = segments * size;
  const std::uint64_t seed = seed_for(std::string("fixed/") + op_name<Op>() + type_name<T>() + std::to_string(size), segments);
  SCOPED_TRACE(::testing::Message() << op_name<Op>() << " " << type_name<T>() << " " << segments << " segments of "
                                    << size << ", seed = " << seed);
  const device_input<T> input(values_for<Op, T>(n, seed));
  const layout l = make_layout({segments, size}, {1});
  const auto expected = expected_for<Op>(input.host_values(), l);
  const ::testing::AssertionResult blocking =
      matches_all(expected, warpfold::reduce_fixed_segments<Op>(input.data(), segments, size, stream), l);
  EXPECT_TRUE(blocking) << "blocking";
  const sentinel_output<R> out(segments + output_slack);
  warpfold::reduce_fixed_segments<Op>(input.data(), segments, size, out.data(), stream);
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
  const ::testing::AssertionResult async = matches_all(expected, out.download(segments), l);
  EXPECT_TRUE(async) << "async";
  const ::testing::AssertionResult tail = out.untouched_from(segments);
  EXPECT_TRUE(tail) << "async";
  EXPECT_TRUE(input.unchanged());
  return blocking && async && tail;
}

TYPED_TEST(AxisFixedSegments, EveryOpAtEdgeCaseSizes) {
  using T = TypeParam;
  owned_stream stream;
  const std::vector<std::pair<std::int64_t, std::int64_t>> cases = {
      {0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 1000}, {3, 31}, {4, 32}, {5, 33}, {7, 1000}, {1000, 7}, {2, 100003},
      {100003, 2}, {33, 1025}, {quick_mode() ? 1000 : 100000, 3}};
  for (const auto& [segments, size] : cases) {
    bool ok = expect_fixed_segments<op::sum, T>(segments, size, stream.get());
    ok = expect_fixed_segments<op::argmin, T>(segments, size, cudaStream_t{}) && ok;
    ok = expect_fixed_segments<op::max, T>(segments, size, stream.get()) && ok;
    if (!ok) break;
  }
}

}  // namespace
