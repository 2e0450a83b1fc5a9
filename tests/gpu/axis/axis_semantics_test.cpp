// The documented behaviour of the axis API beyond plain values: negative and unordered axes,
// keep_dims changing only the reported shape, run-to-run bitwise determinism, NaN and
// infinities along an axis, and empty shapes with a null input.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

using extents_list = std::vector<std::vector<std::int64_t>>;

class AxisSemantics : public gpu_test {};

TEST_F(AxisSemantics, NegativeAndUnorderedAxesNameTheSameAxes) {
  for (const std::vector<std::int64_t>& extents : extents_list{{2, 3, 4, 5}, {33, 7, 31}, {1025, 3}}) {
    const int rank = static_cast<int>(extents.size());
    const std::int64_t n = element_count(extents);
    const device_input<std::int32_t> input(make_values<std::int32_t>(n, seed_for("negative", n)));
    for (const std::vector<int>& axes : every_axis_subset(rank)) {
      std::vector<int> negative, mixed;
      for (std::size_t i = 0; i < axes.size(); ++i) {
        negative.push_back(axes[i] - rank);
        mixed.push_back(i % 2 ? axes[i] - rank : axes[i]);
      }
      std::reverse(mixed.begin(), mixed.end());
      expect_axes<op::sum>(input, extents, negative, cudaStream_t{});
      expect_axes<op::argmax>(input, extents, mixed, cudaStream_t{});
      // Bit for bit the outputs of the positive spelling.
      const auto a = warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes));
      const auto b = warpfold::sum_axes(input.data(), to_shape(extents), to_axes(negative));
      EXPECT_EQ(a, b) << describe(extents, negative);
      EXPECT_EQ(warpfold::reduced_shape(to_shape(extents), to_axes(negative)),
                warpfold::reduced_shape(to_shape(extents), to_axes(axes)));
    }
    EXPECT_TRUE(input.unchanged());
  }
}

TEST_F(AxisSemantics, KeepDimsChangesOnlyTheReportedShape) {
  // The output is row-major over the kept axes whether or not the reduced ones are kept as 1:
  // the same values, in the same order, as reducing the array with unit axes where the
  // reduced ones were (what a keepdims caller reshapes to).
  const std::vector<std::int64_t> extents = {6, 35, 4, 9};
  const std::int64_t n = element_count(extents);
  const device_input<std::int32_t> input(make_values<std::int32_t>(n, seed_for("keepdims", n)));
  for (const std::vector<int>& axes : every_axis_subset(4)) {
    SCOPED_TRACE(describe(extents, axes));
    const warpfold::shape plain = warpfold::reduced_shape(to_shape(extents), to_axes(axes));
    const warpfold::shape kept = warpfold::reduced_shape(to_shape(extents), to_axes(axes), true);
    ASSERT_EQ(kept.rank(), 4);
    EXPECT_EQ(kept.elements(), plain.elements());
    std::vector<std::int64_t> non_unit;
    for (int a = 0; a < 4; ++a) {
      const bool reduced = std::find(axes.begin(), axes.end(), a) != axes.end();
      EXPECT_EQ(kept[a], reduced ? 1 : extents[a]);
      if (!reduced) non_unit.push_back(extents[a]);
    }
    EXPECT_EQ(std::vector<std::int64_t>(plain.begin(), plain.end()), non_unit);

    const std::vector<std::int64_t> sums = warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes));
    const auto args = warpfold::argmin_axes(input.data(), to_shape(extents), to_axes(axes));
    EXPECT_EQ(static_cast<std::int64_t>(sums.size()), kept.elements());
    // The same array with a unit axis in front and one at the end, reduced over the same
    // axes (shifted) plus the unit ones: the same memory, value for value.
    std::vector<std::int64_t> padded = {1};
    padded.insert(padded.end(), extents.begin(), extents.end());
    padded.push_back(1);
    std::vector<int> padded_axes = {0, 5};
    for (int a : axes) padded_axes.push_back(a + 1);
    EXPECT_EQ(warpfold::sum_axes(input.data(), to_shape(padded), to_axes(padded_axes)), sums);
    const auto padded_args = warpfold::argmin_axes(input.data(), to_shape(padded), to_axes(padded_axes));
    ASSERT_EQ(padded_args.size(), args.size());
    for (std::size_t o = 0; o < args.size(); ++o) {
      EXPECT_EQ(padded_args[o].index, args[o].index) << "output " << o;
      EXPECT_EQ(padded_args[o].value, args[o].value) << "output " << o;
    }
  }
}
TEST_F(AxisSemantics, FloatResultsAreBitwiseIdenticalRunToRun) {
  const std::int64_t big = quick_mode() ? 65537 : 1000003;
  const extents_list shapes = {{3, big}, {big, 3}, {4097, quick_mode() ? 129 : 4099}, {16, big}, {64, 1023}};
  owned_stream other;
  for (const auto& extents : shapes) {
    const std::int64_t n = element_count(extents);
    const device_input<float> input(make_values<float>(n, seed_for("repeat", n), value_mode::full_range));
    for (const std::vector<int>& axes : every_axis_subset(static_cast<int>(extents.size()))) {
      SCOPED_TRACE(describe(extents, axes));
      const std::vector<float> first = warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes));
      const sentinel_output<float> out(static_cast<std::int64_t>(first.size()));
      for (int run = 0; run < 10; ++run) {
        std::vector<float> again;
        if (run % 3 == 0) {
          again = warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes), other.get());
        } else {
          warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes), out.data(), out.size(),
                             run % 3 == 1 ? other.get() : cudaStream_t{});
          WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
          again = out.download(out.size());
        }
        ASSERT_EQ(again.size(), first.size());
        EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)), 0) << "run " << run;
      }
    }
    EXPECT_TRUE(input.unchanged());
  }
}

// Rows (and, transposed, columns) with NaN and infinities at chosen places.
TEST_F(AxisSemantics, NanAndInfinitiesAlongAnAxis) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::int64_t length : {std::int64_t{1000}, quick_mode() ? std::int64_t{70001} : std::int64_t{1000003}}) {
    const std::int64_t rows = 8;
    std::vector<float> x = make_values<float>(rows * length, seed_for("nan-rows", length));
    auto at = [&](std::int64_t r, std::int64_t i) -> float& { return x[static_cast<std::size_t>(r * length + i)]; };
    // row 0: plain values
    at(1, 0) = nan;                                           // NaN first
    at(2, length - 1) = nan;                                  // NaN last
    at(3, length / 3) = inf;                                  // +inf only
    at(4, length / 2) = -inf, at(4, length / 4) = inf;        // both infinities: the sum is NaN
    at(5, length - 7) = nan, at(5, length - 2) = nan;         // two NaNs: argmin/argmax give the first
    at(6, 5) = -inf, at(6, length - 1) = nan;                 // -inf, then NaN: NaN still wins
    for (std::int64_t i = 0; i < length; ++i) at(7, i) = (i % 2) ? 0.0f : -0.0f;  // signed zeros
    std::vector<float> transposed(x.size());
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t i = 0; i < length; ++i) transposed[static_cast<std::size_t>(i * rows + r)] = at(r, i);

    for (const bool columns : {false, true}) {
      const std::vector<std::int64_t> extents = columns ? std::vector<std::int64_t>{length, rows}
                                                        : std::vector<std::int64_t>{rows, length};
      const std::vector<int> axes = {columns ? 0 : 1};
      SCOPED_TRACE(describe(extents, axes));
      const device_input<float> input(columns ? transposed : x);
      expect_axes<op::sum>(input, extents, axes, cudaStream_t{});
      expect_axes<op::min>(input, extents, axes, cudaStream_t{});
      expect_axes<op::max>(input, extents, axes, cudaStream_t{});
      expect_axes<op::argmin>(input, extents, axes, cudaStream_t{});
      expect_axes<op::argmax>(input, extents, axes, cudaStream_t{});
      // The same facts, spelled out without the reference.
      const auto sums = warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes));
      const auto lows = warpfold::min_axes(input.data(), to_shape(extents), to_axes(axes));
      const auto highs = warpfold::max_axes(input.data(), to_shape(extents), to_axes(axes));
      const auto arg_lows = warpfold::argmin_axes(input.data(), to_shape(extents), to_axes(axes));
      const auto arg_highs = warpfold::argmax_axes(input.data(), to_shape(extents), to_axes(axes));
      ASSERT_EQ(sums.size(), 8u);
      EXPECT_TRUE(std::isfinite(sums[0]));
      for (int r : {1, 2, 4, 5, 6}) EXPECT_TRUE(std::isnan(sums[r])) << "row " << r;
      EXPECT_EQ(sums[3], inf);
      EXPECT_TRUE(std::isnan(lows[1]) && std::isnan(highs[2]) && std::isnan(lows[6]));
      EXPECT_EQ(highs[3], inf);
      EXPECT_EQ(lows[4], -inf);
      EXPECT_EQ(arg_lows[1].index, 0);
      EXPECT_EQ(arg_highs[2].index, length - 1);
      EXPECT_EQ(arg_highs[3].index, length / 3);
      EXPECT_EQ(arg_lows[4].index, length / 2);
      EXPECT_EQ(arg_highs[4].index, length / 4);
      EXPECT_EQ(arg_lows[5].index, length - 7);
      EXPECT_EQ(arg_highs[5].index, length - 7);
      EXPECT_EQ(arg_lows[6].index, length - 1) << "a NaN beats -inf";
      EXPECT_EQ(lows[7], 0.0f);
      EXPECT_EQ(highs[7], 0.0f);
      EXPECT_EQ(arg_lows[7].index, 0) << "-0.0 and +0.0 tie: the first index";
      EXPECT_EQ(arg_highs[7].index, 0);
      EXPECT_FALSE(std::signbit(sums[7])) << "a sum starts from +0.0";
      EXPECT_TRUE(input.unchanged());
    }
  }
}

TEST_F(AxisSemantics, EmptyShapesAcceptANullInput) {
  const float* none = nullptr;
  // No outputs: an empty vector, and the async form writes nothing.
  for (const auto& [extents, axes] : std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>>{
           {{0, 5}, {1}}, {{0}, {}}, {{3, 0, 2}, {0, 2}}}) {
    SCOPED_TRACE(describe(extents, axes));
    EXPECT_TRUE(warpfold::sum_axes(none, to_shape(extents), to_axes(axes)).empty());
    const sentinel_output<float> out(0);
    warpfold::sum_axes(none, to_shape(extents), to_axes(axes), out.data(), 0, cudaStream_t{});
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
    EXPECT_TRUE(out.untouched_from(0));
  }
  // Outputs over empty reduced axes: each is the identity (index -1 for argmin/argmax).
  const warpfold::shape in{5, 0};
  EXPECT_EQ(warpfold::sum_axes(none, in, {1}), std::vector<float>(5, 0.0f));
  EXPECT_EQ(warpfold::prod_axes(none, in, {1}), std::vector<float>(5, 1.0f));
  EXPECT_EQ(warpfold::min_axes(none, in, {1}), std::vector<float>(5, std::numeric_limits<float>::infinity()));
  EXPECT_EQ(warpfold::max_axes(none, in, {1}), std::vector<float>(5, -std::numeric_limits<float>::infinity()));
  for (const auto& r : warpfold::argmin_axes(none, in, {1})) EXPECT_EQ(r.index, -1);
  for (const auto& r : warpfold::argmax_axes(none, in, {-1})) EXPECT_EQ(r.index, -1);
  const std::int32_t* no_ints = nullptr;
  EXPECT_EQ(warpfold::bit_and_axes(no_ints, {0, 3}, {0}), std::vector<std::int32_t>(3, -1));
  EXPECT_EQ(warpfold::max_axes(no_ints, {0, 3}, {0}), std::vector<std::int32_t>(3, std::numeric_limits<std::int32_t>::lowest()));
  EXPECT_EQ(warpfold::sum_axes(no_ints, {2, 0, 3}, {0, 1}), std::vector<std::int64_t>(3, 0));
  const sentinel_output<std::int64_t> out(4);
  warpfold::sum_axes(no_ints, {4, 0}, {1}, out.data(), 4, cudaStream_t{});
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(out.download(4), std::vector<std::int64_t>(4, 0));
}

}  // namespace
