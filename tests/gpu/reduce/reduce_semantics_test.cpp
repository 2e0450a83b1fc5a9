// The documented behaviour beyond plain sums: NaN, infinities and signed zeros, first-index
// ties, the accumulator widths, run-to-run bitwise determinism, streams, and CUDA graphs.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "warpfold_test/graph_nodes.hpp"
#include "reduce_test_util.hpp"

namespace {

using namespace warpfold_test;
using reduce_test::run_async;

class ReduceSemantics : public gpu_test {};

constexpr float inf = std::numeric_limits<float>::infinity();
const float nan = std::numeric_limits<float>::quiet_NaN();

TEST_F(ReduceSemantics, NanPropagatesThroughSumMinAndMax) {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1} << 20}) {
    for (std::int64_t where : {std::int64_t{0}, n / 2, n - 1}) {
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", NaN at " << where);
      std::vector<float> values = make_values<float>(n, seed_for("nan", n));
      values[where] = nan;
      const device_input<float> input(values);
      EXPECT_TRUE(std::isnan(warpfold::sum(input.data(), n)));
      EXPECT_TRUE(std::isnan(warpfold::min(input.data(), n)));
      EXPECT_TRUE(std::isnan(warpfold::max(input.data(), n)));
      // argmin/argmax: NaN counts as the extreme (as in NumPy), so its index comes back.
      EXPECT_EQ(warpfold::argmin(input.data(), n).index, where);
      EXPECT_EQ(warpfold::argmax(input.data(), n).index, where);
    }
  }
}

TEST_F(ReduceSemantics, InfinitiesFollowIeee) {
  std::vector<float> values = make_values<float>(5000, seed_for("inf", 5000));
  values[10] = inf;
  const device_input<float> plus_inf(values);
  EXPECT_EQ(warpfold::sum(plus_inf.data(), 5000), inf);
  EXPECT_EQ(warpfold::max(plus_inf.data(), 5000), inf);
  values[4000] = -inf;
  const device_input<float> both(values);
  EXPECT_TRUE(std::isnan(warpfold::sum(both.data(), 5000))) << "inf + -inf is NaN";
  EXPECT_EQ(warpfold::min(both.data(), 5000), -inf);
  EXPECT_EQ(warpfold::argmax(both.data(), 5000).index, 10);
  EXPECT_EQ(warpfold::argmin(both.data(), 5000).index, 4000);
}

TEST_F(ReduceSemantics, SignedZeros) {
  // The sum starts from +0.0, so a sum of only -0.0 is +0.0 (as in CUB); min and max treat
  // -0.0 and +0.0 as equal and may return either.
  const device_input<float> negative_zeros(std::vector<float>(3000, -0.0f));
  const float s = warpfold::sum(negative_zeros.data(), 3000);
  EXPECT_EQ(s, 0.0f);
  EXPECT_FALSE(std::signbit(s));
  std::vector<float> mixed(3000, 0.0f);
  for (std::size_t i = 0; i < mixed.size(); i += 2) mixed[i] = -0.0f;
  const device_input<float> zeros(mixed);
  EXPECT_EQ(warpfold::min(zeros.data(), 3000), 0.0f);
  EXPECT_EQ(warpfold::max(zeros.data(), 3000), 0.0f);
  EXPECT_EQ(warpfold::argmin(zeros.data(), 3000).index, 0) << "all equal: the first index";
}

TEST_F(ReduceSemantics, EmptyInputGivesTheIdentityEvenWithANullPointer) {
  const float* none = nullptr;
  EXPECT_EQ(warpfold::sum(none, 0), 0.0f);
  EXPECT_EQ(warpfold::prod(none, 0), 1.0f);
  EXPECT_EQ(warpfold::min(none, 0), inf);
  EXPECT_EQ(warpfold::max(none, 0), -inf);
  EXPECT_EQ(warpfold::argmin(none, 0).index, -1);
  const std::int32_t* no_ints = nullptr;
  EXPECT_EQ(warpfold::min(no_ints, 0), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(warpfold::bit_and(no_ints, 0), -1);
}

TEST_F(ReduceSemantics, TiesGiveTheFirstIndexAcrossBlocks) {
  const std::int64_t n = (std::int64_t{1} << 22) + 3;  // many blocks: ties meet in the last block
  std::vector<std::int32_t> values = make_values<std::int32_t>(n, seed_for("ties", n));  // in [-1000, 1000]
  for (std::int64_t i : {n - 1, std::int64_t{777777}, std::int64_t{3000001}, std::int64_t{123456}}) values[i] = -5000;
  for (std::int64_t i : {std::int64_t{4000000}, std::int64_t{2222222}, std::int64_t{999}}) values[i] = 5000;
  const device_input<std::int32_t> input(values);
  EXPECT_EQ(warpfold::argmin(input.data(), n).index, 123456);
  EXPECT_EQ(warpfold::argmax(input.data(), n).index, 999);
}

// A thread finds the best item of each 16-byte vector before it meets the op
// (blocks/vector_fold.cuh): ties and NaNs inside one vector, at every position and every
// alignment of the pointer, must still give the first index, and min and max the extreme
// value, or NaN. Few distinct values make ties everywhere; NaNs are sprinkled in for float
// types.
template <typename T>
void check_extrema_with_ties(const char* type) {
  SCOPED_TRACE(type);
  std::mt19937_64 random(seed_for("vector ties", sizeof(T)));
  const bool floats = !std::is_integral_v<T>;
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{17}, std::int64_t{255}, std::int64_t{4099},
                         std::int64_t{300007}}) {
    for (int nan_rate : {0, 1}) {
      if (nan_rate && !floats) continue;
      for (std::int64_t offset = 0; offset < 8; ++offset) {
        SCOPED_TRACE(::testing::Message() << "n = " << n << ", offset " << offset << ", NaNs " << nan_rate);
        std::vector<T> values(static_cast<std::size_t>(n + offset));
        for (T& v : values) {
          const int r = static_cast<int>(random() % 1000);
          v = warpfold_test::from_double<T>(nan_rate && r < 2 ? std::numeric_limits<double>::quiet_NaN()
                                                             : double(r % 3));
        }
        // The reference: the first NaN if any, else the first smallest (largest).
        std::int64_t lo = -1, hi = -1, first_nan = -1;
        for (std::int64_t i = 0; i < n; ++i) {
          const long double x = warpfold_test::to_real(values[offset + i]);
          if (x != x) {
            if (first_nan < 0) first_nan = i;
            continue;
          }
          if (lo < 0 || x < warpfold_test::to_real(values[offset + lo])) lo = i;
          if (hi < 0 || x > warpfold_test::to_real(values[offset + hi])) hi = i;
        }
        // (Every element may be NaN: then there is no smallest, and none is needed.)
        const long double smallest = lo >= 0 ? warpfold_test::to_real(values[offset + lo]) : 0;
        const long double largest = hi >= 0 ? warpfold_test::to_real(values[offset + hi]) : 0;
        if (first_nan >= 0) lo = hi = first_nan;
        const device_input<T> input(values);
        EXPECT_EQ(warpfold::argmin(input.data() + offset, n).index, lo);
        EXPECT_EQ(warpfold::argmax(input.data() + offset, n).index, hi);
        const long double min = warpfold::min(input.data() + offset, n);
        const long double max = warpfold::max(input.data() + offset, n);
        if (first_nan >= 0) {
          EXPECT_TRUE(std::isnan(min) && std::isnan(max)) << "min " << min << ", max " << max;
        } else {
          EXPECT_EQ(min, smallest);
          EXPECT_EQ(max, largest);
        }
      }
    }
  }
}

TEST_F(ReduceSemantics, ExtremaTiesAndNansInsideVectors) {
  check_extrema_with_ties<__half>("half");
  check_extrema_with_ties<__nv_bfloat16>("bfloat16");
  check_extrema_with_ties<float>("float");
  check_extrema_with_ties<double>("double");
  check_extrema_with_ties<std::int8_t>("int8");
  check_extrema_with_ties<std::uint16_t>("uint16");
}

TEST_F(ReduceSemantics, HalfSumsAccumulateInFloat) {
  // 2^24 values in [0, 1): a half accumulator would overflow to inf (65504 is half's max).
  const std::int64_t n = std::int64_t{1} << 24;
  std::vector<__half> values(n);
  const std::vector<double> u = make_values<double>(n, seed_for("half", n));
  for (std::int64_t i = 0; i < n; ++i) values[i] = __double2half((u[i] + 1.0) / 3.0);  // [0, 1)
  const device_input<__half> input(values);
  const float got = warpfold::sum(input.data(), n);
  const expected_sum<float> expected = expect_sum<float>(values.data(), n);
  EXPECT_TRUE(std::isfinite(got));
  EXPECT_TRUE(expected.matches(got));
}

TEST_F(ReduceSemantics, Int32SumsAccumulateInInt64) {
  // 2^20 values of 2^30: the int32 sum would wrap; the int64 accumulator holds 2^50.
  const std::int64_t n = std::int64_t{1} << 20;
  const device_input<std::int32_t> input(std::vector<std::int32_t>(n, 1 << 30));
  const std::int64_t got = warpfold::sum(input.data(), n);
  EXPECT_EQ(got, std::int64_t{1} << 50);
}

TEST_F(ReduceSemantics, FloatResultsAreBitwiseIdenticalRunToRun) {
  for (std::int64_t n : {std::int64_t{100003}, (std::int64_t{1} << 24) + 5}) {
    const device_input<float> input(make_values<float>(n, seed_for("repeat", n), value_mode::full_range));
    cudaStream_t other;
    WARPFOLD_TEST_CUDA(cudaStreamCreate(&other));
    const float first = warpfold::sum(input.data(), n);
    for (int run = 0; run < 10; ++run) {
      const float again = run % 2 ? warpfold::sum(input.data(), n) : warpfold::sum(input.data(), n, other);
      EXPECT_EQ(std::memcmp(&first, &again, sizeof(float)), 0) << "run " << run << ": " << again << " vs " << first;
    }
    WARPFOLD_TEST_CUDA(cudaStreamDestroy(other));
  }
}

TEST_F(ReduceSemantics, OneLaunchCapturedInACudaGraphReplaysCorrectly) {
  const std::int64_t n = (std::int64_t{1} << 22) + 11;  // many blocks: the last-block path
  std::vector<std::int32_t> values = make_values<std::int32_t>(n, seed_for("graph", n));
  const device_input<std::int32_t> input(values);
  device_array<std::int64_t> out(1);
  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
  warpfold::sum(input.data(), n, out.data(), stream);  // a direct call first, then a capture
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  warpfold::sum(input.data(), n, out.data(), stream);
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  EXPECT_EQ(warpfold_test::kernel_nodes(graph).size(), 1u) << "the whole reduction is a single kernel node";
  EXPECT_EQ(warpfold_test::graph_nodes_of_type(graph, cudaGraphNodeTypeMemAlloc).size(), 1u)
      << "a many-block launch in a capture gets its scratch from the graph";

  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const expected_sum<std::int64_t> expected = expect_sum<std::int64_t>(values);
  for (int replay = 0; replay < 3; ++replay) {
    WARPFOLD_TEST_CUDA(cudaMemsetAsync(out.data(), 0xA5, sizeof(std::int64_t), stream));
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    std::int64_t got;
    copy_to_host(&got, out.data(), 1);
    EXPECT_TRUE(expected.matches(got)) << "replay " << replay;
  }
  EXPECT_TRUE(input.unchanged());
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
