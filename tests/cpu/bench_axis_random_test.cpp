// The random axis cases of `warpfold bench --axis --random`: the same seed gives the same
// cases, every case is a valid view of its parent reduced over a valid axis set, and the
// draws cover what the bench promises (ranks 1 to 6, every dtype, every kind of view, extents
// of 1, odd and prime, sizes around 64 MiB both ways). The host reference is checked against
// sums worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "bench/axis_random.hpp"
#include "bench/view_reference.hpp"

namespace {

using warpfold::bench::dtype;
using warpfold::bench::random_view_cases;
using warpfold::bench::view_case;

TEST(BenchAxisRandom, TheSameSeedGivesTheSameCasesAndAnotherSeedOthers) {
  const std::vector<view_case> a = random_view_cases(50, 7), b = random_view_cases(50, 7), c = random_view_cases(50, 8);
  ASSERT_EQ(a.size(), 50u);
  int differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].extents, b[i].extents);
    EXPECT_EQ(a[i].strides, b[i].strides);
    EXPECT_EQ(a[i].dims, b[i].dims);
    EXPECT_EQ(a[i].offset, b[i].offset);
    EXPECT_EQ(a[i].type, b[i].type);
    EXPECT_EQ(a[i].index, static_cast<int>(i));
    differ += a[i].extents != c[i].extents || a[i].dims != c[i].dims;
  }
  EXPECT_GT(differ, 40);
}

TEST(BenchAxisRandom, EveryCaseIsAValidViewOverAValidAxisSet) {
  for (const view_case& c : random_view_cases(400, 1)) {
    SCOPED_TRACE(describe(c));
    const int rank = static_cast<int>(c.extents.size());
    ASSERT_GE(rank, 1);
    ASSERT_LE(rank, 6);
    ASSERT_EQ(c.strides.size(), c.extents.size());
    ASSERT_FALSE(c.dims.empty());
    EXPECT_TRUE(std::is_sorted(c.dims.begin(), c.dims.end()));
    EXPECT_EQ(std::set<int>(c.dims.begin(), c.dims.end()).size(), c.dims.size());
    if (rank > 1) {
      EXPECT_LT(static_cast<int>(c.dims.size()), rank) << "a proper subset";
    }
    std::int64_t last = c.offset;
    for (int a = 0; a < rank; ++a) {
      EXPECT_GE(c.extents[a], 1);
      EXPECT_GE(c.strides[a], 1);
      last += (c.extents[a] - 1) * c.strides[a];
    }
    EXPECT_LT(last, c.parent) << "the view lies inside its parent";
    EXPECT_LE(c.parent, std::int64_t{1} << 28);
    EXPECT_EQ(c.outputs() * c.reduced(), c.elements());
    if (c.view == "contiguous") {
      EXPECT_EQ(c.elements(), c.parent);
    }
    if (c.view == "sliced") {
      EXPECT_LT(c.elements(), c.parent);
    }
  }
}

TEST(BenchAxisRandom, TheDrawsCoverRanksTypesViewsAndExtents) {
  std::set<int> ranks;
  std::set<dtype> types;
  std::set<std::string> views;
  int ones = 0, odd = 0, large = 0, small = 0, strided = 0;
  const std::vector<view_case> cases = random_view_cases(200, 1);
  for (const view_case& c : cases) {
    ranks.insert(static_cast<int>(c.extents.size()));
    types.insert(c.type);
    views.insert(c.view);
    strided += c.view != "contiguous";
    for (std::int64_t e : c.extents) ones += e == 1, odd += e % 2 == 1 && e > 1;
    (c.bytes_in() >= (std::int64_t{64} << 20) ? large : small)++;
  }
  EXPECT_EQ(ranks, (std::set<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(types.size(), 4u);
  EXPECT_EQ(views, (std::set<std::string>{"contiguous", "transposed", "permuted", "sliced"}));
  EXPECT_GT(strided, 60) << "about half the cases are views";
  EXPECT_LT(strided, 140);
  EXPECT_GT(ones, 10);
  EXPECT_GT(odd, 100);
  EXPECT_GT(large, 20);
  EXPECT_GT(small, 20);
}

TEST(BenchViewReference, SumsAViewByHand) {
  // A 3 x 4 int32 parent 0..11; the view x[:, 1:3].T is 2 x 3 with strides (1, 4) from 1.
  std::vector<std::int32_t> parent(12);
  for (int i = 0; i < 12; ++i) parent[i] = i;
  view_case c;
  c.type = dtype::i32;
  c.extents = {2, 3};
  c.strides = {1, 4};
  c.offset = 1;
  c.parent = 12;
  c.dims = {1};  // sums of x[:, 1] and x[:, 2]: 1 + 5 + 9, 2 + 6 + 10
  const auto r = warpfold::bench::compute_view_reference(c, parent.data());
  EXPECT_EQ(r.exact, (std::vector<std::int64_t>{15, 18}));
  EXPECT_TRUE(warpfold::bench::check_view_outputs(c, r, {15, 18}).ok);
  const auto wrong = warpfold::bench::check_view_outputs(c, r, {15, 19});
  EXPECT_FALSE(wrong.ok);
  EXPECT_NE(wrong.detail.find("output 1"), std::string::npos) << wrong.detail;

  std::vector<float> values = {0.5f, -1.0f, 2.0f, 4.0f};  // a 2 x 2 float matrix, summed over dim 0
  view_case f;
  f.type = dtype::f32;
  f.extents = {2, 2};
  f.strides = {2, 1};
  f.parent = 4;
  f.dims = {0};
  const auto rf = warpfold::bench::compute_view_reference(f, values.data());
  EXPECT_EQ(rf.sum, (std::vector<double>{2.5, 3.0}));
  EXPECT_EQ(rf.abs_sum, (std::vector<double>{2.5, 5.0}));
  EXPECT_FALSE(warpfold::bench::check_view_outputs(f, rf, {2.5, 3.001}).ok);
}

}  // namespace
