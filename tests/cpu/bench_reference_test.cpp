// The host reference and the result check: integers exact with each kind's wrap, floats
// within a tolerance that grows with n but still catches a dropped block.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "bench/reference.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

TEST(HalfDecoding, KnownBitPatterns) {
  EXPECT_EQ(wb::half_bits_to_float(0x3c00), 1.0f);
  EXPECT_EQ(wb::half_bits_to_float(0xc000), -2.0f);
  EXPECT_EQ(wb::half_bits_to_float(0x3800), 0.5f);
  EXPECT_EQ(wb::half_bits_to_float(0x7bff), 65504.0f);            // largest half
  EXPECT_EQ(wb::half_bits_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(wb::half_bits_to_float(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(wb::half_bits_to_float(0x3bff), 1.0f - std::ldexp(1.0f, -11));
  EXPECT_TRUE(std::isinf(wb::half_bits_to_float(0x7c00)));
  EXPECT_TRUE(std::isnan(wb::half_bits_to_float(0x7e00)));
  EXPECT_EQ(wb::half_bits_to_float(0x8000), -0.0f);
}

TEST(Bfloat16Decoding, IsTheTopHalfOfAFloat) {
  EXPECT_EQ(wb::bfloat16_bits_to_float(0x3f80), 1.0f);
  EXPECT_EQ(wb::bfloat16_bits_to_float(0xc040), -3.0f);
  EXPECT_EQ(wb::bfloat16_bits_to_float(0x3f00), 0.5f);
  EXPECT_EQ(wb::bfloat16_bits_to_float(0x3f7f), 1.0f - std::ldexp(1.0f, -8));
}

TEST(Reference, Int32SumIsExactAndEachKindWrapsItsOwnWay) {
  const std::vector<std::int32_t> data = {std::numeric_limits<std::int32_t>::max(), 1, 5, -2};
  const wb::host_reference r = wb::compute_reference(wb::dtype::i32, data.data(), 4);
  const std::int64_t exact = std::int64_t(std::numeric_limits<std::int32_t>::max()) + 4;
  EXPECT_EQ(static_cast<std::int64_t>(r.integer_sum), exact);
  EXPECT_EQ(wb::expected_result(wb::result_kind::int64, r).integer, exact);
  // In int32 the sum wraps past INT_MAX to INT_MIN + 3.
  EXPECT_EQ(wb::expected_result(wb::result_kind::int32_wrapping, r).integer,
            std::int64_t(std::numeric_limits<std::int32_t>::min()) + 3);
}

TEST(Reference, NegativeInt32Sums) {
  const std::vector<std::int32_t> data(1000, -7);
  const wb::host_reference r = wb::compute_reference(wb::dtype::i32, data.data(), 1000);
  EXPECT_EQ(wb::expected_result(wb::result_kind::int64, r).integer, -7000);
  EXPECT_EQ(wb::expected_result(wb::result_kind::int32_wrapping, r).integer, -7000);
}

TEST(Reference, FloatTypes) {
  const std::vector<float> f = {0.5f, 0.25f, 1.0f};
  EXPECT_EQ(wb::compute_reference(wb::dtype::f32, f.data(), 3).sum, 1.75L);
  const std::vector<double> d = {-1.5, 0.25};
  const wb::host_reference rd = wb::compute_reference(wb::dtype::f64, d.data(), 2);
  EXPECT_EQ(rd.sum, -1.25L);
  EXPECT_EQ(rd.abs_sum, 1.75L);
  const std::vector<std::uint16_t> h = {0x3c00, 0x3800, 0xc000};  // 1, 0.5, -2
  EXPECT_EQ(wb::compute_reference(wb::dtype::f16, h.data(), 3).sum, -0.5L);
  const std::vector<std::uint16_t> b = {0x3f80, 0x3f00};  // 1, 0.5
  EXPECT_EQ(wb::compute_reference(wb::dtype::bf16, b.data(), 2).sum, 1.5L);
  EXPECT_EQ(wb::compute_reference(wb::dtype::f32, f.data(), 0).sum, 0.0L);
}

TEST(Check, IntegersMustMatchExactly) {
  const std::vector<std::int32_t> data = {1, 2, 3};
  const wb::host_reference r = wb::compute_reference(wb::dtype::i32, data.data(), 3);
  wb::result_value v;
  v.integer = 6;
  EXPECT_TRUE(wb::check_result(wb::result_kind::int32_wrapping, r, v).ok);
  v.integer = 7;
  const wb::check_outcome wrong = wb::check_result(wb::result_kind::int64, r, v);
  EXPECT_FALSE(wrong.ok);
  EXPECT_NE(wrong.detail.find("expected 6, got 7"), std::string::npos) << wrong.detail;
}

TEST(Check, AWrappedAnswerFailsWhereInt64IsPromised) {
  const std::vector<std::int32_t> data = {std::numeric_limits<std::int32_t>::max(), 1};
  const wb::host_reference r = wb::compute_reference(wb::dtype::i32, data.data(), 2);
  wb::result_value wrapped;
  wrapped.integer = std::numeric_limits<std::int32_t>::min();
  EXPECT_TRUE(wb::check_result(wb::result_kind::int32_wrapping, r, wrapped).ok);
  EXPECT_FALSE(wb::check_result(wb::result_kind::int64, r, wrapped).ok);
}

// n floats in [0, 1) as the bench makes them: multiples of 2^-24.
std::vector<float> varied_floats(std::int64_t n) {
  std::vector<float> v(n);
  std::uint32_t state = 12345;
  for (auto& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) * 0x1p-24f;
  }
  return v;
}

// A float sum in blocks, the way a GPU tree adds: partial sums of `block` elements, added up.
float blocked_sum(const std::vector<float>& data, std::int64_t block) {
  float total = 0;
  for (std::size_t b = 0; b < data.size(); b += block) {
    float s = 0;
    for (std::size_t i = b; i < b + block && i < data.size(); ++i) s += data[i];
    total += s;
  }
  return total;
}

float tail_sum(const std::vector<float>& data, std::int64_t count) {
  float s = 0;
  for (std::size_t i = data.size() - count; i < data.size(); ++i) s += data[i];
  return s;
}

// The tolerance is 2 sqrt(n) eps of the sum: at 2^16 floats that is 0.05% of the sum, less
// than one block of 256 (0.4%); at 2^20 it is 0.02%, less than 4096 elements (0.4%).
TEST(Check, FloatTolerancePassesRealRoundingAndCatchesADroppedBlock) {
  for (const auto& [n, block] : {std::pair<std::int64_t, std::int64_t>{1 << 16, 256}, {1 << 20, 4096}}) {
    const std::vector<float> data = varied_floats(n);
    const wb::host_reference r = wb::compute_reference(wb::dtype::f32, data.data(), n);
    wb::result_value v;
    v.real = blocked_sum(data, 256);
    EXPECT_TRUE(wb::check_result(wb::result_kind::float32, r, v).ok) << wb::check_result(wb::result_kind::float32, r, v).detail;
    v.real = blocked_sum(data, 1);  // fully sequential: the worst order there is, still within
    EXPECT_TRUE(wb::check_result(wb::result_kind::float32, r, v).ok) << wb::check_result(wb::result_kind::float32, r, v).detail;

    const float lost = tail_sum(data, block);
    v.real = blocked_sum(data, 256) - lost;  // the last block dropped
    EXPECT_FALSE(wb::check_result(wb::result_kind::float32, r, v).ok) << "n=" << n;
    v.real = blocked_sum(data, 256) + lost;  // the last block counted twice
    EXPECT_FALSE(wb::check_result(wb::result_kind::float32, r, v).ok) << "n=" << n;
  }
}

TEST(Check, DoublesCatchASingleDroppedElement) {
  const std::int64_t n = 1 << 20;
  std::vector<double> data(n);
  for (std::int64_t i = 0; i < n; ++i) data[i] = static_cast<double>((i * 2654435761u) % 1000003) / 1000003.0;
  const wb::host_reference r = wb::compute_reference(wb::dtype::f64, data.data(), n);
  double sum = 0;
  for (double x : data) sum += x;
  wb::result_value v;
  v.real = sum;
  EXPECT_TRUE(wb::check_result(wb::result_kind::float64, r, v).ok);
  v.real = sum - data[n / 2];
  EXPECT_FALSE(wb::check_result(wb::result_kind::float64, r, v).ok);
}

TEST(Check, NaNAndInfinityAlwaysFail) {
  const std::vector<double> data = {1.0, 2.0};
  const wb::host_reference r = wb::compute_reference(wb::dtype::f64, data.data(), 2);
  wb::result_value v;
  v.real = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(wb::check_result(wb::result_kind::float64, r, v).ok);
  v.real = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(wb::check_result(wb::result_kind::float64, r, v).ok);
  v.real = 3.0;
  EXPECT_TRUE(wb::check_result(wb::result_kind::float64, r, v).ok);
}

TEST(Check, DoubleToleranceIsMuchTighterThanFloats) {
  EXPECT_LT(wb::float_tolerance(wb::result_kind::float64, 1000, 1 << 20),
            1e-8 * wb::float_tolerance(wb::result_kind::float32, 1000, 1 << 20));
  // It grows with n.
  EXPECT_LT(wb::float_tolerance(wb::result_kind::float32, 1000, 1 << 10),
            wb::float_tolerance(wb::result_kind::float32, 1000, 1 << 20));
}

TEST(Check, ResultKindMustFitTheInput) {
  const std::vector<float> data = {1.0f};
  const wb::host_reference r = wb::compute_reference(wb::dtype::f32, data.data(), 1);
  EXPECT_THROW(wb::check_result(wb::result_kind::int64, r, {}), warpfold::invalid_argument);
}

TEST(DtypeNames, ParseAndPrint) {
  EXPECT_EQ(wb::parse_dtype("i32"), wb::dtype::i32);
  EXPECT_EQ(wb::parse_dtype("float"), wb::dtype::f32);
  EXPECT_EQ(wb::parse_dtype("double"), wb::dtype::f64);
  EXPECT_EQ(wb::parse_dtype("half"), wb::dtype::f16);
  EXPECT_EQ(wb::parse_dtype("bfloat16"), wb::dtype::bf16);
  EXPECT_FALSE(wb::parse_dtype("i8"));
  EXPECT_FALSE(wb::parse_dtype("I32"));
  for (const wb::dtype_info& d : wb::dtypes) EXPECT_EQ(wb::parse_dtype(d.name), d.id);
  EXPECT_EQ(wb::element_bytes(wb::dtype::f64), 8);
  EXPECT_EQ(wb::element_bytes(wb::dtype::bf16), 2);
}

TEST(Check, ToleranceFormulaIsPinned) {
  // eps * sum|x| * (2 log2 n + 2 sqrt n) + eps * sum|x| (+ the smallest double)
  EXPECT_NEAR(wb::float_tolerance(wb::result_kind::float32, 1000, 1 << 16), 0x1p-23 * 1000 * (32 + 512 + 1), 1e-12);
  EXPECT_NEAR(wb::float_tolerance(wb::result_kind::float64, 1000, 1 << 16), 0x1p-52 * 1000 * (32 + 512 + 1), 1e-20);
}
