// The test support checks itself: every GPU test trusts these references, generators and
// size lists, so each is held against answers worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;

TEST(Reference, IntegerSumsWrapInTheAccumulatorWidth) {
  const std::int32_t i32[] = {std::numeric_limits<std::int32_t>::max(), 1};
  EXPECT_EQ(wrapped_sum<std::int32_t>(i32, 2), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(wrapped_sum<std::int64_t>(i32, 2), std::int64_t{1} << 31);

  const std::int32_t minus[] = {std::numeric_limits<std::int32_t>::min(), -1};
  EXPECT_EQ(wrapped_sum<std::int32_t>(minus, 2), std::numeric_limits<std::int32_t>::max());

  const std::int8_t i8[] = {-128, -128, 127};
  EXPECT_EQ(wrapped_sum<std::int64_t>(i8, 3), -129) << "int8 sign-extends into int64";
  EXPECT_EQ(wrapped_sum<std::int8_t>(i8, 3), 127) << "-129 modulo 2^8";

  const std::uint8_t u8[] = {255, 1, 2};
  EXPECT_EQ(wrapped_sum<std::uint8_t>(u8, 3), 2);
  EXPECT_EQ(wrapped_sum<std::uint64_t>(u8, 3), 258u);

  const std::int64_t i64[] = {std::numeric_limits<std::int64_t>::max(), 2};
  EXPECT_EQ(wrapped_sum<std::int64_t>(i64, 2), std::numeric_limits<std::int64_t>::min() + 1);

  const std::uint64_t u64[] = {~0ull, ~0ull};
  EXPECT_EQ(wrapped_sum<std::uint64_t>(u64, 2), ~0ull - 1);
}

TEST(Reference, ExpectSumMatchesTheDefinitionOnLargeInputs) {
  // Over several reference chunks, so the parallel path and its merge order are exercised.
  const std::int64_t n = (std::int64_t{3} << 20) + 12345;
  const auto values = make_values<std::int32_t>(n, 7, value_mode::full_range);
  const expected_sum<std::int32_t> e = expect_sum<std::int32_t>(values);
  EXPECT_EQ(e.n, n);
  EXPECT_EQ(e.exact, wrapped_sum<std::int32_t>(values.data(), n));
  long double unwrapped = 0;
  for (std::int32_t v : values) unwrapped += v;
  EXPECT_EQ(e.real, unwrapped) << "integer sums of this size are exact in long double";
  const expected_sum<std::int64_t> wide = expect_sum<std::int64_t>(values);
  EXPECT_EQ(static_cast<long double>(wide.exact), unwrapped);
}

TEST(Reference, CompensatedSumKeepsWhatCancellationLoses) {
  const double x[] = {1e20, 1.0, -1e20, 3.0};
  const real_sum s = real_sum_of(x, 4);
  EXPECT_EQ(s.value(), 4.0L);
  EXPECT_EQ(s.sum_abs, 2e20L + 4.0L);
  const expected_sum<double> e = expect_sum<double>(x, 4);
  EXPECT_EQ(e.real, 4.0L);
}

TEST(Reference, FloatMatchUsesTheTolerance) {
  const auto values = make_values<float>(1000, 3, value_mode::moderate);
  const expected_sum<float> e = expect_sum<float>(values);
  const long double tol = e.tolerance();
  ASSERT_GT(tol, 0.0L);
  EXPECT_TRUE(e.matches(static_cast<float>(e.real)));
  EXPECT_FALSE(e.matches(static_cast<float>(e.real + 2 * tol)));
  EXPECT_FALSE(e.matches(static_cast<float>(e.real - 2 * tol)));
  EXPECT_FALSE(e.matches(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_FALSE(e.matches(std::numeric_limits<float>::infinity()));
  // One element more or less is far outside the tolerance at this size.
  EXPECT_FALSE(e.matches(static_cast<float>(e.real + values[17])));
}

TEST(Reference, EmptySumMustBeExactlyZero) {
  const expected_sum<double> e = expect_sum<double>(static_cast<const double*>(nullptr), 0);
  EXPECT_EQ(e.tolerance(), 0.0L);
  EXPECT_TRUE(e.matches(0.0));
  EXPECT_TRUE(e.matches(-0.0));
  EXPECT_FALSE(e.matches(1e-300));
  const expected_sum<std::int32_t> i = expect_sum<std::int32_t>(static_cast<const std::int32_t*>(nullptr), 0);
  EXPECT_TRUE(i.matches(0));
  EXPECT_FALSE(i.matches(1));
}

TEST(Reference, IntegerMatchIsExact) {
  const std::int32_t x[] = {5, -7, 11};
  const expected_sum<std::int32_t> e = expect_sum<std::int32_t>(x, 3);
  EXPECT_TRUE(e.matches(9));
  EXPECT_FALSE(e.matches(10));
  EXPECT_FALSE(e.matches(8));
}

TEST(Reference, HalfTypesSumInFloat) {
  const auto values = make_values<__half>(5000, 11, value_mode::moderate);
  const expected_sum<float> e = expect_sum<float>(values);
  long double direct = 0;
  for (__half h : values) direct += static_cast<long double>(__half2float(h));
  EXPECT_NEAR(static_cast<double>(e.real), static_cast<double>(direct), 1e-9);
  EXPECT_EQ(e.tolerance(), sum_tolerance<float>(5000, e.sum_abs));
}

TEST(Reference, ExtremaReportTheFirstIndex) {
  const std::int32_t x[] = {3, -2, 7, -2, 7, 0};
  const expected_extrema<std::int32_t> e = expect_extrema(x, 6);
  EXPECT_EQ(e.min, -2);
  EXPECT_EQ(e.argmin, 1);
  EXPECT_EQ(e.max, 7);
  EXPECT_EQ(e.argmax, 2);
  const expected_extrema<std::int32_t> none = expect_extrema(x, 0);
  EXPECT_EQ(none.argmin, -1);
  EXPECT_EQ(none.argmax, -1);
}

TEST(Reference, BitwiseFolds) {
  const std::uint8_t x[] = {0b1100, 0b1010, 0b1110};
  const expected_bits<std::uint8_t> e = expect_bits(x, 3);
  EXPECT_EQ(e.all_and, 0b1000);
  EXPECT_EQ(e.any_or, 0b1110);
  EXPECT_EQ(e.parity_xor, 0b1000);
  const expected_bits<std::uint8_t> none = expect_bits(x, 0);
  EXPECT_EQ(none.all_and, 0xFF);
}

TEST(Tolerance, GrowsWithNAndIsZeroForEmpty) {
  EXPECT_EQ(tolerance_factor(0), 0.0L);
  EXPECT_EQ(tolerance_factor(1), 2.0L * 1 + 2.0L * 1);
  long double previous = 0;
  for (std::int64_t n : {1, 2, 3, 31, 1000, 1000000, 100000007}) {
    EXPECT_GT(tolerance_factor(n), previous) << n;
    previous = tolerance_factor(n);
  }
  // The documented magnitudes (tolerance.hpp): ~4e-4 for double and ~2e5 for float at 10^8,
  // with sum|x| = 5/6 * n for values uniform in [-1, 2).
  const long double sum_abs = 100000007.0L * 5 / 6;
  EXPECT_NEAR(static_cast<double>(sum_tolerance<double>(100000007, sum_abs)), 3.7e-4, 0.2e-4);
  EXPECT_NEAR(static_cast<double>(sum_tolerance<float>(100000007, sum_abs)), 2.0e5, 0.1e5);
}

TEST(Generate, SameSeedSameValuesAndSlicesAgree) {
  const auto a = make_values<double>(5000, 42, value_mode::moderate);
  const auto b = make_values<double>(5000, 42, value_mode::moderate);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0);
  const auto c = make_values<double>(5000, 43, value_mode::moderate);
  EXPECT_NE(a, c);
  std::vector<double> slice(100);
  fill_values(slice.data(), 100, 42, 1234, value_mode::moderate);
  EXPECT_TRUE(std::equal(slice.begin(), slice.end(), a.begin() + 1234));
}

TEST(Generate, ParallelGenerationEqualsSequential) {
  const std::int64_t n = (std::int64_t{5} << 20) + 3;  // several threads' pieces
  const auto parallel = make_values<std::int32_t>(n, 99, value_mode::full_range);
  std::vector<std::int32_t> sequential(static_cast<std::size_t>(n));
  fill_values(sequential.data(), n, 99, 0, value_mode::full_range);
  EXPECT_EQ(parallel, sequential);
}

template <typename T>
void check_moderate(double low, double high) {
  const auto v = make_values<T>(100000, 5, value_mode::moderate);
  long double lo = to_real(v[0]), hi = lo;
  std::set<long double> distinct;
  for (T x : v) {
    lo = std::min(lo, to_real(x));
    hi = std::max(hi, to_real(x));
    distinct.insert(to_real(x));
  }
  EXPECT_GE(lo, low) << type_name<T>();
  EXPECT_LE(hi, high) << type_name<T>();
  EXPECT_GT(distinct.size(), 100u) << type_name<T>() << ": values must vary";
  if (low < 0) {
    EXPECT_LT(lo, 0.0L) << type_name<T>() << ": negative values present";
  }
  EXPECT_GT(hi, 0.0L) << type_name<T>() << ": positive values present";
}

TEST(Generate, ModerateRanges) {
  check_moderate<std::int8_t>(-100, 100);
  check_moderate<std::int16_t>(-1000, 1000);
  check_moderate<std::int32_t>(-1000, 1000);
  check_moderate<std::int64_t>(-1000, 1000);
  check_moderate<std::uint8_t>(0, 200);
  check_moderate<std::uint16_t>(0, 2000);
  check_moderate<std::uint32_t>(0, 2000);
  check_moderate<std::uint64_t>(0, 2000);
  check_moderate<float>(-1.0, std::nextafter(2.0, 0.0));
  check_moderate<double>(-1.0, std::nextafter(2.0, 0.0));
  check_moderate<__half>(-1.0, 1.99999);
  check_moderate<__nv_bfloat16>(-1.0, 1.99999);
}

TEST(Generate, FullRangeInt32WrapsQuickly) {
  const auto v = make_values<std::int32_t>(1000, 8, value_mode::full_range);
  int big = 0;
  for (std::int32_t x : v) big += std::abs(static_cast<long long>(x)) > (1ll << 30);
  EXPECT_GT(big, 300) << "about half of the values should exceed 2^30 in magnitude";
  long double unwrapped = 0;
  for (std::int32_t x : v) unwrapped += x;
  const expected_sum<std::int32_t> e = expect_sum<std::int32_t>(v);
  EXPECT_NE(static_cast<long double>(e.exact), unwrapped) << "the int32 sum should have wrapped";
}

TEST(Generate, FullRangeFloatsSpanDecadesWithBothSigns) {
  const auto v = make_values<float>(10000, 9, value_mode::full_range);
  float smallest = 1e30f, largest = 0;
  int negative = 0;
  for (float x : v) {
    smallest = std::min(smallest, std::fabs(x));
    largest = std::max(largest, std::fabs(x));
    negative += x < 0;
  }
  EXPECT_LT(smallest, 1e-4f);
  EXPECT_GT(largest, 1e4f);
  EXPECT_GT(negative, 4000);
  EXPECT_LT(negative, 6000);
}

TEST(Generate, PoisonIsNanForFloatsAndOddForIntegers) {
  EXPECT_TRUE(std::isnan(default_poison<float>()));
  EXPECT_TRUE(std::isnan(default_poison<double>()));
  EXPECT_TRUE(std::isnan(to_real(default_poison<__half>())));
  EXPECT_TRUE(std::isnan(to_real(default_poison<__nv_bfloat16>())));
  EXPECT_EQ(default_poison<std::int8_t>() & 1, 1);
  EXPECT_EQ(default_poison<std::int32_t>() & 1, 1);
  EXPECT_EQ(default_poison<std::uint64_t>() & 1u, 1u);
}

TEST(Generate, ParallelForCoversEveryIndexOnce) {
  const std::int64_t count = 1000003;
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
  parallel_for_chunks(count, 4096, [&](std::int64_t index, std::int64_t begin, std::int64_t end) {
    EXPECT_EQ(begin, index * 4096);
    for (std::int64_t i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)]++;
  });
  for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << i;
}

TEST(Sizes, StandardListHasTheEdgesSortedAndUnique) {
  const auto sizes = standard_sizes();
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(std::adjacent_find(sizes.begin(), sizes.end()), sizes.end());
  std::vector<std::int64_t> required = {0, 1, 2, 31, 32, 33, 255, 256, 257, 511, 512, 513, 1009, 65521};
  if (!quick_mode()) {
    for (std::int64_t n : {std::int64_t{1000003}, (std::int64_t{1} << 20) - 1, (std::int64_t{1} << 20) + 1})
      required.push_back(n);
  }
  for (std::int64_t n : required)
    EXPECT_TRUE(std::binary_search(sizes.begin(), sizes.end(), n)) << n << " missing";
  EXPECT_GT(sizes.size(), required.size()) << "random sizes missing";
  EXPECT_EQ(large_sizes(), std::vector<std::int64_t>{100000007});
  EXPECT_GT(beyond_int32_size, std::int64_t{1} << 31);
}

TEST(Sizes, RandomSizesAreReproducibleAndInRange) {
  const auto a = random_sizes(20, 3, 70000, 1), b = random_sizes(20, 3, 70000, 1);
  EXPECT_EQ(a, b);
  for (std::int64_t n : a) {
    EXPECT_GE(n, 3);
    EXPECT_LE(n, 70000);
  }
  EXPECT_NE(a, random_sizes(20, 3, 70000, 2));
}

}  // namespace
