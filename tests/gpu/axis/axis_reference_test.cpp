// The axis tests' CPU reference checks itself against answers worked out by hand: every GPU
// test trusts it, and it must be able to say "wrong". Runs without a GPU (a CPU binary).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "axis_reference.hpp"

namespace {

using namespace axis_test;
namespace op = warpfold::op;

// The accumulator and result types the API documents (accumulator.hpp, axes.hpp).
static_assert(std::is_same_v<result_t<op::sum, std::int32_t>, std::int64_t>, "int32 sums in int64");
static_assert(std::is_same_v<result_t<op::sum, std::uint8_t>, std::uint64_t>, "uint8 sums in uint64");
static_assert(std::is_same_v<result_t<op::prod, std::int16_t>, std::int64_t>, "int16 products in int64");
static_assert(std::is_same_v<result_t<op::sum, std::int64_t>, std::int64_t>, "int64 stays int64");
static_assert(std::is_same_v<result_t<op::sum, __half>, float>, "half sums in float");
static_assert(std::is_same_v<result_t<op::max, __nv_bfloat16>, float>, "bf16 max in float");
static_assert(std::is_same_v<result_t<op::min, std::int8_t>, std::int8_t>, "integer min in the element type");
static_assert(std::is_same_v<result_t<op::bit_xor, std::uint16_t>, std::uint16_t>, "bitwise in the element type");
static_assert(std::is_same_v<result_t<op::argmin, __half>, warpfold::value_index<float>>, "argmin of half");
static_assert(std::is_same_v<result_t<op::argmax, std::int32_t>, warpfold::value_index<std::int32_t>>, "argmax of int32");

template <typename R>
std::vector<R> got_of(const std::vector<long long>& values) {
  return std::vector<R>(values.begin(), values.end());
}

std::vector<std::int32_t> iota(std::int64_t n) {
  std::vector<std::int32_t> x(static_cast<std::size_t>(n));
  std::iota(x.begin(), x.end(), 0);
  return x;
}

TEST(AxisReferenceLayout, OffsetsAreRowMajor) {
  // (2, 3, 4): strides (12, 4, 1).
  const layout middle = make_layout({2, 3, 4}, {1});
  EXPECT_EQ(middle.output_base, (std::vector<std::int64_t>{0, 1, 2, 3, 12, 13, 14, 15}));
  EXPECT_EQ(middle.reduced_offset, (std::vector<std::int64_t>{0, 4, 8}));
  EXPECT_EQ(middle.output_index_text(5), "(1, 1)");

  const layout outer = make_layout({2, 3, 4}, {0, -1});  // {0, 2}
  EXPECT_EQ(outer.output_base, (std::vector<std::int64_t>{0, 4, 8}));
  EXPECT_EQ(outer.reduced_offset, (std::vector<std::int64_t>{0, 1, 2, 3, 12, 13, 14, 15}));
  EXPECT_EQ(outer.text, "(2, 3, 4) over {0, -1}");

  const layout none = make_layout({2, 3}, {});
  EXPECT_EQ(none.output_base, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(none.reduced_offset, (std::vector<std::int64_t>{0}));

  const layout all = make_layout({2, 3}, {1, 0});
  EXPECT_EQ(all.output_base, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(all.reduced_offset, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));

  const layout scalar = make_layout({}, {});
  EXPECT_EQ(scalar.outputs(), 1);
  EXPECT_EQ(scalar.reduced_count(), 1);
  EXPECT_EQ(scalar.elements, 1);

  EXPECT_EQ(make_layout({0, 5}, {1}).outputs(), 0);
  const layout empty_reduced = make_layout({2, 0, 3}, {1});
  EXPECT_EQ(empty_reduced.outputs(), 6);
  EXPECT_EQ(empty_reduced.reduced_count(), 0);

  EXPECT_THROW(make_layout({2, 3}, {2}), std::logic_error);
  EXPECT_THROW(make_layout({2, 3}, {1, -1}), std::logic_error);
}

TEST(AxisReferenceSum, HandWorkedIntegerSums) {
  // x[i][j][k] = 12i + 4j + k.
  const std::vector<std::int32_t> x = iota(24);
  using E = expectation_t<op::sum, std::int32_t>;

  const layout middle = make_layout({2, 3, 4}, {1});  // 36i + 12 + 3k
  const std::vector<E> m = expected_for<op::sum>(x.data(), middle);
  EXPECT_TRUE(matches_all(m, got_of<std::int64_t>({12, 15, 18, 21, 48, 51, 54, 57}), middle));
  EXPECT_FALSE(matches_all(m, got_of<std::int64_t>({12, 15, 18, 21, 48, 51, 54, 58}), middle));
  EXPECT_FALSE(matches_all(m, got_of<std::int64_t>({12, 15, 18, 21, 48, 51, 54}), middle)) << "one output short";

  const layout outer = make_layout({2, 3, 4}, {0, 2});  // 60 + 32j
  EXPECT_TRUE(matches_all(expected_for<op::sum>(x.data(), outer), got_of<std::int64_t>({60, 92, 124}), outer));

  const layout all = make_layout({2, 3, 4}, {0, 1, 2});
  EXPECT_TRUE(matches_all(expected_for<op::sum>(x.data(), all), got_of<std::int64_t>({276}), all));

  const layout none = make_layout({2, 3, 4}, {});
  std::vector<long long> copy(24);
  std::iota(copy.begin(), copy.end(), 0);
  EXPECT_TRUE(matches_all(expected_for<op::sum>(x.data(), none), got_of<std::int64_t>(copy), none));

  const layout empty = make_layout({2, 0, 3}, {1});  // six identities
  EXPECT_TRUE(matches_all(expected_for<op::sum>(x.data(), empty), got_of<std::int64_t>({0, 0, 0, 0, 0, 0}), empty));
}

TEST(AxisReferenceSum, IntegerAccumulatorsWrap) {
  const std::vector<std::int64_t> big = {std::numeric_limits<std::int64_t>::max(), 2};
  const layout l = make_layout({2}, {0});
  const auto e = expected_for<op::sum>(big.data(), l);
  EXPECT_TRUE(matches_all(e, std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min() + 1}, l));

  const std::vector<std::int8_t> small = {-128, -128, 127};  // sign-extends into int64: no wrap
  const layout s = make_layout({3}, {0});
  EXPECT_TRUE(matches_all(expected_for<op::sum>(small.data(), s), std::vector<std::int64_t>{-129}, s));
}

TEST(AxisReferenceSum, FloatsWithinTheBoundAndNonFinite) {
  const std::vector<float> x = {1.0f, 2.0f, 3.0f, NAN, 1.0f, INFINITY, 1.0f, -INFINITY, INFINITY, 0.5f, 0.25f, 0.125f};
  const layout l = make_layout({4, 3}, {1});
  const auto e = expected_for<op::sum>(x.data(), l);
  EXPECT_TRUE(matches_all(e, std::vector<float>{6.0f, NAN, NAN, 0.875f}, l));
  EXPECT_FALSE(matches_all(e, std::vector<float>{6.0f, INFINITY, NAN, 0.875f}, l)) << "NaN must stay NaN";
  EXPECT_FALSE(matches_all(e, std::vector<float>{6.0f, NAN, NAN, 0.875f + 1e-4f}, l)) << "beyond the tolerance";

  const std::vector<float> inf = {1.0f, INFINITY, -INFINITY, 2.0f};
  const layout li = make_layout({2, 2}, {1});
  EXPECT_TRUE(matches_all(expected_for<op::sum>(inf.data(), li), std::vector<float>{INFINITY, -INFINITY}, li));
  EXPECT_FALSE(matches_all(expected_for<op::sum>(inf.data(), li), std::vector<float>{INFINITY, NAN}, li));

  // Half accumulates in float: 3 x 1.0009765625 (1 + 2^-10) is 3.0029296875 in float.
  const std::vector<__half> h(3, __float2half(1.0009765625f));
  const layout lh = make_layout({3}, {0});
  EXPECT_TRUE(matches_all(expected_for<op::sum>(h.data(), lh), std::vector<float>{3.0029296875f}, lh));
  EXPECT_FALSE(matches_all(expected_for<op::sum>(h.data(), lh), std::vector<float>{3.0f}, lh));
}

TEST(AxisReferenceProduct, WrapsAndBounds) {
  const std::vector<std::uint8_t> u = {255, 255, 255, 255, 255, 255, 255, 255, 255};  // 255^9 mod 2^64
  const layout l = make_layout({9}, {0});
  std::uint64_t p = 1;
  for (int i = 0; i < 9; ++i) p *= 255u;
  EXPECT_TRUE(matches_all(expected_for<op::prod>(u.data(), l), std::vector<std::uint64_t>{p}, l));

  const std::vector<double> d = {1.5, 2.0, 0.5, 4.0};
  const layout ld = make_layout({2, 2}, {0});  // columns: 1.5 * 0.5, 2 * 4
  EXPECT_TRUE(matches_all(expected_for<op::prod>(d.data(), ld), std::vector<double>{0.75, 8.0}, ld));
  EXPECT_FALSE(matches_all(expected_for<op::prod>(d.data(), ld), std::vector<double>{0.75, 8.001}, ld));

  const layout empty = make_layout({0, 2}, {0});
  EXPECT_TRUE(matches_all(expected_for<op::prod>(d.data(), empty), std::vector<double>{1.0, 1.0}, empty));
}

TEST(AxisReferenceExtrema, MinMaxNanAndIdentities) {
  const std::vector<float> x = {3, 1, 2, /**/ NAN, -1, 5, /**/ -0.0f, 0.0f, 0.0f};
  const layout l = make_layout({3, 3}, {1});
  EXPECT_TRUE(matches_all(expected_for<op::min>(x.data(), l), std::vector<float>{1, NAN, 0.0f}, l));
  EXPECT_TRUE(matches_all(expected_for<op::min>(x.data(), l), std::vector<float>{1, NAN, -0.0f}, l))
      << "-0 and +0 are equal";
  EXPECT_FALSE(matches_all(expected_for<op::min>(x.data(), l), std::vector<float>{1, -1, 0.0f}, l))
      << "NaN propagates";
  EXPECT_TRUE(matches_all(expected_for<op::max>(x.data(), l), std::vector<float>{3, NAN, 0.0f}, l));

  const layout empty = make_layout({2, 0}, {1});
  EXPECT_TRUE(matches_all(expected_for<op::min>(x.data(), empty), std::vector<float>{INFINITY, INFINITY}, empty));
  EXPECT_TRUE(matches_all(expected_for<op::max>(x.data(), empty), std::vector<float>{-INFINITY, -INFINITY}, empty));
  const std::vector<std::int16_t> i = {};
  EXPECT_TRUE(matches_all(expected_for<op::min>(i.data(), empty), std::vector<std::int16_t>{32767, 32767}, empty));
  EXPECT_TRUE(matches_all(expected_for<op::max>(i.data(), empty), std::vector<std::int16_t>{-32768, -32768}, empty));

  const std::vector<std::uint64_t> u = {~0ull, ~0ull - 1};  // exact at 64 bits
  const layout lu = make_layout({2}, {0});
  EXPECT_TRUE(matches_all(expected_for<op::min>(u.data(), lu), std::vector<std::uint64_t>{~0ull - 1}, lu));
  EXPECT_FALSE(matches_all(expected_for<op::min>(u.data(), lu), std::vector<std::uint64_t>{~0ull}, lu));
}

TEST(AxisReferenceArg, FirstIndexWithinTheReducedAxesAndNanFirst) {
  using V = warpfold::value_index<float>;
  // Rows over axis 1: ties, then NaN, then NaN after the minimum.
  const std::vector<float> x = {3, 1, 1, 5, /**/ 2, NAN, 0, NAN, /**/ 0, 7, 7, -2};
  const layout l = make_layout({3, 4}, {1});
  EXPECT_TRUE(matches_all(expected_for<op::argmin>(x.data(), l), std::vector<V>{{1, 1}, {NAN, 1}, {-2, 3}}, l));
  EXPECT_FALSE(matches_all(expected_for<op::argmin>(x.data(), l), std::vector<V>{{1, 2}, {NAN, 1}, {-2, 3}}, l))
      << "a tie gives the first index";
  EXPECT_TRUE(matches_all(expected_for<op::argmax>(x.data(), l), std::vector<V>{{5, 3}, {NAN, 1}, {7, 1}}, l));

  // Over axes {0, 2} of (2, 3, 2): the index counts row-major in the reduced (i, k).
  std::vector<std::int32_t> y(12, 0);
  y[1 * 6 + 2 * 2 + 1] = 9;   // (1, 2, 1): output j = 2, reduced index i * 2 + k = 3
  y[0 * 6 + 2 * 2 + 1] = -9;  // (0, 2, 1): reduced index 1
  const layout ly = make_layout({2, 3, 2}, {0, 2});
  using W = warpfold::value_index<std::int32_t>;
  EXPECT_TRUE(matches_all(expected_for<op::argmax>(y.data(), ly), std::vector<W>{{0, 0}, {0, 0}, {9, 3}}, ly));
  EXPECT_TRUE(matches_all(expected_for<op::argmin>(y.data(), ly), std::vector<W>{{0, 0}, {0, 0}, {-9, 1}}, ly));

  const layout empty = make_layout({2, 0}, {1});
  EXPECT_TRUE(matches_all(expected_for<op::argmin>(x.data(), empty), std::vector<V>{{INFINITY, -1}, {INFINITY, -1}}, empty));
  EXPECT_TRUE(matches_all(expected_for<op::argmax>(y.data(), empty),
                          std::vector<W>{{std::numeric_limits<std::int32_t>::lowest(), -1},
                                         {std::numeric_limits<std::int32_t>::lowest(), -1}},
                          empty));
}

TEST(AxisReferenceBits, AndOrXorWithIdentities) {
  const std::vector<std::uint8_t> x = {0xF0, 0x3C, 0x0F, /**/ 0xFF, 0x01, 0x80};
  const layout l = make_layout({2, 3}, {1});
  EXPECT_TRUE(matches_all(expected_for<op::bit_and>(x.data(), l), std::vector<std::uint8_t>{0x00, 0x00}, l));
  EXPECT_TRUE(matches_all(expected_for<op::bit_or>(x.data(), l), std::vector<std::uint8_t>{0xFF, 0xFF}, l));
  EXPECT_TRUE(matches_all(expected_for<op::bit_xor>(x.data(), l), std::vector<std::uint8_t>{0xC3, 0x7E}, l));
  const layout cols = make_layout({2, 3}, {0});
  EXPECT_TRUE(matches_all(expected_for<op::bit_and>(x.data(), cols), std::vector<std::uint8_t>{0xF0, 0x00, 0x00}, cols));
  const layout empty = make_layout({0, 3}, {0});
  EXPECT_TRUE(matches_all(expected_for<op::bit_and>(x.data(), empty), std::vector<std::uint8_t>{0xFF, 0xFF, 0xFF}, empty));
  EXPECT_TRUE(matches_all(expected_for<op::bit_or>(x.data(), empty), std::vector<std::uint8_t>{0, 0, 0}, empty));
}

TEST(AxisReferenceReport, NamesTheOutputAndCountsTheRest) {
  const std::vector<std::int32_t> x = iota(24);
  const layout l = make_layout({2, 3, 4}, {1});
  const ::testing::AssertionResult r =
      matches_all(expected_for<op::sum>(x.data(), l), got_of<std::int64_t>({12, 15, 18, 21, 48, 0, 0, 57}), l);
  ASSERT_FALSE(r);
  const std::string message = r.message();
  EXPECT_NE(message.find("output 5 (1, 1)"), std::string::npos) << message;
  EXPECT_NE(message.find("2 of 8 outputs differ"), std::string::npos) << message;
}

}  // namespace
