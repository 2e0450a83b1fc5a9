// Norms, dot, mean and variance, counts and non-finite checks (warpfold/statistics.hpp)
// against long double references of the same data: exact where the result is exact (max
// norm, counts, tests), within a bound that grows with n elsewhere. Every size class, both
// value ranges, offsets of 0-3 elements (and x and y misaligned differently), special values,
// the ranges where a naive L2 norm overflows or underflows, and the variance of data whose
// mean dwarfs its spread.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <warpfold/device/reduce_policy.hpp>
#include <warpfold/reduce.hpp>

#include "reduce_test_util.hpp"
#include "statistics_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace statistics_test;

template <typename T>
class Statistics : public gpu_test {};
using float_types = ::testing::Types<__half, __nv_bfloat16, float, double>;
TYPED_TEST_SUITE(Statistics, float_types, reduce_test::type_names);

template <typename T>
using R = warpfold::float_result_t<T>;

TYPED_TEST(Statistics, NormsMatchTheReference) {
  using T = TypeParam;
  for (std::int64_t n : standard_sizes())
    for (value_mode mode : {value_mode::moderate, value_mode::full_range}) {
      const std::vector<T> x = make_values<T>(n, seed_for("norms", n), mode);
      const device_input<T> input(x);
      const reference r = reference_of(x.data(), n);
      SCOPED_TRACE(size_name(n) + " " + mode_name(mode));
      EXPECT_TRUE(near(to_real(warpfold::norm_l1(input.data(), n)), r.l1, l1_bound<R<T>, R<T>>(r), "norm_l1"));
      EXPECT_TRUE(near(to_real(warpfold::norm_l2(input.data(), n)), std::sqrt(r.sum_squares), l2_bound<squares_t<T>, R<T>>(r),
                       "norm_l2"));
      EXPECT_TRUE(reduce_test::same_value(warpfold::norm_linf(input.data(), n), r.linf));
      EXPECT_TRUE(input.unchanged());
    }
}

// BLAS nrm2's promise: no overflow or underflow when the norm itself is representable.
TYPED_TEST(Statistics, L2NormNeitherOverflowsNorUnderflows) {
  using T = TypeParam;
  struct scale_case {
    double unit;
    const char* name;
  };
  std::vector<scale_case> cases;
  if constexpr (std::is_same_v<T, double>) {
    cases = {{1e300, "1e300"}, {1e-300, "1e-300"}, {0x1p-1070, "subnormal"}, {0x1p1000, "2^1000"}};
  } else if constexpr (std::is_same_v<T, float>) {
    cases = {{1e30, "1e30"}, {1e-30, "1e-30"}, {0x1p-146, "subnormal"}, {0x1p100, "2^100"}};
  } else if constexpr (std::is_same_v<T, __half>) {
    cases = {{8192, "8192"}, {0x1p-22, "subnormal"}};
  } else {
    cases = {{1e30, "1e30"}, {1e-30, "1e-30"}, {0x1p-130, "subnormal"}};
  }
  for (const scale_case& c : cases) {
    SCOPED_TRACE(c.name);
    // {3, 4} * unit: 5 * unit.
    const std::vector<T> pair = {from_double<T>(3 * c.unit), from_double<T>(4 * c.unit)};
    const device_input<T> two(pair);
    const long double expected = std::sqrt(to_real(pair[0]) * to_real(pair[0]) + to_real(pair[1]) * to_real(pair[1]));
    // A subnormal result can be no closer than its own spacing.
    const long double spacing = std::numeric_limits<R<T>>::denorm_min();
    ASSERT_LT(expected, std::numeric_limits<R<T>>::max()) << "the case itself must have a representable norm";
    EXPECT_TRUE(near(to_real(warpfold::norm_l2(two.data(), 2)), expected, 4 * epsilon<R<T>>() * expected + spacing, "pair"));
    // Many of them, with a few much smaller ones mixed in: every range contributes.
    for (std::int64_t n : {std::int64_t{1000}, std::int64_t{300001}}) {
      std::vector<T> x(static_cast<std::size_t>(n));
      std::mt19937_64 random(seed_for(std::string("l2-range-") + c.name, n));
      std::uniform_real_distribution<double> mantissa(0.5, 1.0);
      for (auto& v : x) v = from_double<T>(mantissa(random) * c.unit * ((random() & 1) ? 1 : -1));
      for (std::int64_t i = 0; i < n; i += 97) x[static_cast<std::size_t>(i)] = from_double<T>(c.unit * 0x1p-20);
      const device_input<T> input(x);
      const reference r = reference_of(x.data(), n);
      const long double norm = std::sqrt(r.sum_squares);
      ASSERT_TRUE(norm > 0 && norm < std::numeric_limits<R<T>>::max()) << "the case itself must have a representable norm";
      EXPECT_TRUE(near(to_real(warpfold::norm_l2(input.data(), n)), norm,
                       (8 * epsilon<R<T>>() + 4 * tolerance_factor(n) * epsilon<squares_t<T>>()) * norm + spacing, "many"));
    }
  }
}

// norm_linf meets each 16-byte vector's largest magnitude first (blocks/vector_fold.cuh): a
// negative largest value, or a NaN, at every position of a vector and every pointer offset.
TYPED_TEST(Statistics, LargestMagnitudeInsideVectors) {
  using T = TypeParam;
  const std::int64_t n = 40;
  for (int offset = 0; offset < 8; ++offset)
    for (int at = 0; at < 16; ++at) {
      SCOPED_TRACE(::testing::Message() << "offset " << offset << ", largest at " << at);
      std::vector<T> x(static_cast<std::size_t>(n + offset));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = from_double<T>(0.25 * double((i * 7) % 5) - 0.5);
      x[static_cast<std::size_t>(offset + at)] = from_double<T>(-3.0);
      const device_input<T> largest(x);
      EXPECT_EQ(to_real(warpfold::norm_linf(largest.data() + offset, n)), 3.0);
      x[static_cast<std::size_t>(offset + (at + 5) % 16)] = from_double<T>(std::numeric_limits<double>::quiet_NaN());
      const device_input<T> with_nan(x);
      EXPECT_TRUE(std::isnan(to_real(warpfold::norm_linf(with_nan.data() + offset, n))));
    }
}

TYPED_TEST(Statistics, SpecialValues) {
  using T = TypeParam;
  const T inf = from_double<T>(std::numeric_limits<double>::infinity());
  const T nan = from_double<T>(std::numeric_limits<double>::quiet_NaN());
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{70001}}) {
    SCOPED_TRACE(size_name(n));
    std::vector<T> x = make_values<T>(n, seed_for("specials", n), value_mode::moderate);
    {
      x[static_cast<std::size_t>(n / 2)] = inf;
      const device_input<T> input(x);
      EXPECT_TRUE(std::isinf(to_real(warpfold::norm_l1(input.data(), n))));
      EXPECT_TRUE(std::isinf(to_real(warpfold::norm_l2(input.data(), n))));
      EXPECT_TRUE(std::isinf(to_real(warpfold::norm_linf(input.data(), n))));
      EXPECT_TRUE(warpfold::any_nonfinite(input.data(), n));
    }
    {
      x[static_cast<std::size_t>(n - 1)] = nan;
      const device_input<T> input(x);
      EXPECT_TRUE(std::isnan(to_real(warpfold::norm_l1(input.data(), n))));
      EXPECT_TRUE(std::isnan(to_real(warpfold::norm_l2(input.data(), n))));
      EXPECT_TRUE(std::isnan(to_real(warpfold::norm_linf(input.data(), n))));
      EXPECT_TRUE(std::isnan(to_real(warpfold::mean(input.data(), n))));
      EXPECT_TRUE(warpfold::any_nonfinite(input.data(), n));
    }
  }
  // No elements.
  const device_input<T> empty(std::vector<T>{});
  EXPECT_EQ(to_real(warpfold::norm_l1(empty.data(), 0)), 0);
  EXPECT_EQ(to_real(warpfold::norm_l2(empty.data(), 0)), 0);
  EXPECT_EQ(to_real(warpfold::norm_linf(empty.data(), 0)), 0);
  EXPECT_TRUE(std::isnan(to_real(warpfold::mean(empty.data(), 0))));
  EXPECT_FALSE(warpfold::any_nonfinite(empty.data(), 0));
  const auto mv = warpfold::var_mean(empty.data(), 0);
  EXPECT_TRUE(std::isnan(to_real(mv.mean)) && std::isnan(to_real(mv.var)));
}

TYPED_TEST(Statistics, NonfiniteCheckFindsEveryPosition) {
  using T = TypeParam;
  const std::int64_t n = quick_mode() ? 5003 : 1000003;
  std::vector<T> x = make_values<T>(n, seed_for("nonfinite", n), value_mode::full_range);
  {
    const device_input<T> input(x);
    EXPECT_FALSE(warpfold::any_nonfinite(input.data(), n));
  }
  std::mt19937_64 random(seed_for("nonfinite-positions", n));
  for (int k = 0; k < 6; ++k) {
    const std::int64_t at = k == 0 ? 0 : k == 1 ? n - 1 : static_cast<std::int64_t>(random() % n);
    std::vector<T> y = x;
    y[static_cast<std::size_t>(at)] = from_double<T>(k % 2 ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity());
    const device_input<T> input(y);
    EXPECT_TRUE(warpfold::any_nonfinite(input.data(), n)) << "at " << at;
  }
}

TYPED_TEST(Statistics, DotMatchesTheReferenceAtEveryAlignment) {
  using T = TypeParam;
  std::vector<std::int64_t> sizes = standard_sizes();
  for (std::int64_t n : sizes)
    for (int x_offset : {0, 1, 3})
      for (int y_offset : {0, 1, 2}) {
        if (n > 100000 && x_offset + y_offset > 1 && x_offset != 3) continue;  // keep the run short
        const std::vector<T> x = make_values<T>(n + x_offset, seed_for("dot-x", n), value_mode::moderate);
        const std::vector<T> y = make_values<T>(n + y_offset, seed_for("dot-y", n), value_mode::full_range);
        const device_input<T> dx(x), dy(y);
        long double expected = 0, magnitude = 0;
        for (std::int64_t i = 0; i < n; ++i) {
          const long double p = to_real(x[static_cast<std::size_t>(i + x_offset)]) * to_real(y[static_cast<std::size_t>(i + y_offset)]);
          expected += p;
          magnitude += std::fabs(p);
        }
        SCOPED_TRACE(size_name(n) + " offsets " + std::to_string(x_offset) + "," + std::to_string(y_offset));
        const long double bound = sum_tolerance<R<T>>(n, magnitude) + epsilon<R<T>>() * std::fabs(expected);
        EXPECT_TRUE(near(to_real(warpfold::dot(dx.data() + x_offset, dy.data() + y_offset, n)), expected, bound, "dot"));
        const R<T> async = reduce_test::run_async<R<T>>(
            [&](R<T>* out, cudaStream_t s) { warpfold::dot(dx.data() + x_offset, dy.data() + y_offset, n, out, s); }, nullptr);
        EXPECT_TRUE(near(to_real(async), expected, bound, "dot async"));
        EXPECT_TRUE(dx.unchanged());
        EXPECT_TRUE(dy.unchanged());
      }
}

TYPED_TEST(Statistics, MeanAndVarianceMatchTheReference) {
  using T = TypeParam;
  for (std::int64_t n : standard_sizes())
    for (value_mode mode : {value_mode::moderate, value_mode::full_range}) {
      const std::vector<T> x = make_values<T>(n, seed_for("moments", n), mode);
      const device_input<T> input(x);
      const reference r = reference_of(x.data(), n);
      SCOPED_TRACE(size_name(n) + " " + mode_name(mode));
      EXPECT_TRUE(near(to_real(warpfold::mean(input.data(), n)), n > 0 ? r.mean : NAN, mean_bound<R<T>>(r), "mean"));
      for (double correction : {1.0, 0.0, 2.0}) {
        const long double var = var_of(r, correction);
        const auto vm = warpfold::var_mean(input.data(), n, correction);
        EXPECT_TRUE(near(to_real(vm.mean), n > 0 ? r.mean : NAN, mean_bound<R<T>>(r), "var_mean's mean"));
        EXPECT_TRUE(near(to_real(vm.var), var, var_bound<R<T>>(r, var), "var"));
        const auto sm = warpfold::std_mean(input.data(), n, correction);
        const long double sd = std::sqrt(var);
        EXPECT_TRUE(near(to_real(sm.var), sd, var_bound<R<T>>(r, var) / (sd > 0 ? 2 * sd : 1) + epsilon<R<T>>() * sd, "std"));
      }
      EXPECT_TRUE(input.unchanged());
    }
}

// The large (streaming) shape (Policy::large_input_bytes on), where var_mean of 2-byte
// elements runs one block of 1024 threads per SM (its registers allow no second). Quick mode
// (the sanitizers) keeps the 2-byte types and one misaligned size.
TYPED_TEST(Statistics, MeanAndVarianceAtTheLargeShape) {
  using T = TypeParam;
  if (quick_mode() && sizeof(T) != 2) GTEST_SKIP() << "quick mode: only the 2-byte types";
  const std::int64_t first = warpfold::device::reduce_policy::large_input_bytes / std::int64_t(sizeof(T));
  for (std::int64_t n : {first, first + 4099})
    for (int offset : {0, 3}) {
      if (quick_mode() && (n == first || offset == 0)) continue;
      const std::vector<T> x = make_values<T>(n, seed_for("large-moments", n + offset), value_mode::moderate);
      const device_input<T> input(x, guard_layout{offset, 0});
      const reference r = reference_of(x.data(), n);
      SCOPED_TRACE(size_name(n) + " offset " + std::to_string(offset));
      const long double var = var_of(r, 1);
      const auto vm = warpfold::var_mean(input.data(), n);
      EXPECT_TRUE(near(to_real(vm.mean), r.mean, mean_bound<R<T>>(r), "var_mean's mean"));
      EXPECT_TRUE(near(to_real(vm.var), var, var_bound<R<T>>(r, var), "var"));
      EXPECT_TRUE(input.unchanged());
    }
}

// The case that E[x^2] - E[x]^2 gets wrong: a large mean, a small spread. In float that formula
// loses every digit of this variance; Welford and Chan keep most of them.
TYPED_TEST(Statistics, VarianceOfDataFarFromZero) {
  using T = TypeParam;
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    GTEST_SKIP() << "half types cannot hold a small spread around a large mean";
  } else {
    for (std::int64_t n : {std::int64_t{1000}, std::int64_t{1000003}, quick_mode() ? std::int64_t{3001} : std::int64_t{16777259}}) {
      std::vector<T> x(static_cast<std::size_t>(n));
      std::mt19937_64 random(seed_for("far-from-zero", n));
      std::uniform_real_distribution<double> noise(-1, 1);
      for (auto& v : x) v = static_cast<T>(10000.0 + noise(random));
      const device_input<T> input(x);
      const reference r = reference_of(x.data(), n);
      const long double var = var_of(r, 1);
      const auto vm = warpfold::var_mean(input.data(), n);
      SCOPED_TRACE(size_name(n));
      EXPECT_TRUE(near(to_real(vm.var), var, 1e-3L * var, "var"));
      EXPECT_TRUE(near(to_real(vm.mean), r.mean, 1e-6L * r.mean, "mean"));
    }
  }
}

TYPED_TEST(Statistics, AsyncFormsWriteTheSameBits) {
  using T = TypeParam;
  const std::int64_t n = 300007;
  const std::vector<T> x = make_values<T>(n, seed_for("async", n), value_mode::full_range);
  const device_input<T> input(x);
  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
  auto same = [](auto a, auto b) { return std::memcmp(&a, &b, sizeof(a)) == 0; };
  EXPECT_TRUE(same(warpfold::norm_l2(input.data(), n),
                   reduce_test::run_async<R<T>>([&](R<T>* o, cudaStream_t s) { warpfold::norm_l2(input.data(), n, o, s); }, stream)));
  EXPECT_TRUE(same(warpfold::norm_l1(input.data(), n),
                   reduce_test::run_async<R<T>>([&](R<T>* o, cudaStream_t s) { warpfold::norm_l1(input.data(), n, o, s); }, stream)));
  EXPECT_TRUE(same(warpfold::mean(input.data(), n),
                   reduce_test::run_async<R<T>>([&](R<T>* o, cudaStream_t s) { warpfold::mean(input.data(), n, o, s); }, stream)));
  using MV = warpfold::mean_var<R<T>>;
  EXPECT_TRUE(same(warpfold::var_mean(input.data(), n, 1.0),
                   reduce_test::run_async<MV>([&](MV* o, cudaStream_t s) { warpfold::var_mean(input.data(), n, 1.0, o, s); }, stream)));
  // Captured in a graph and replayed.
  warpfold_test::device_array<R<T>> out(1);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  warpfold::norm_l2(input.data(), n, out.data(), stream);
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    warpfold_test::fill_device_bytes(out.data(), 0xA5, sizeof(R<T>));
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    R<T> got;
    copy_to_host(&got, out.data(), 1);
    EXPECT_TRUE(same(got, warpfold::norm_l2(input.data(), n)));
  }
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

// count_nonzero, any and all, for every element type: exact.
template <typename T>
class Counts : public gpu_test {};
TYPED_TEST_SUITE(Counts, reduce_test::element_types, reduce_test::type_names);

TYPED_TEST(Counts, MatchTheReference) {
  using T = TypeParam;
  for (std::int64_t n : standard_sizes())
    for (int zero_percent : {0, 50, 100}) {
      std::vector<T> x = make_values<T>(n, seed_for("counts", n), value_mode::moderate);
      std::mt19937_64 random(seed_for("zeros", n) + zero_percent);
      for (auto& v : x)
        if (int(random() % 100) < zero_percent) v = from_double<T>(0.0);
      // Zeros that the generator makes itself count too.
      std::int64_t nonzero = 0;
      for (const T& v : x) nonzero += to_real(v) != 0;
      const device_input<T> input(x);
      SCOPED_TRACE(size_name(n) + " " + std::to_string(zero_percent) + "% zeros");
      EXPECT_EQ(warpfold::count_nonzero(input.data(), n), nonzero);
      EXPECT_EQ(warpfold::any(input.data(), n), nonzero > 0);
      EXPECT_EQ(warpfold::all(input.data(), n), nonzero == n);
      EXPECT_TRUE(input.unchanged());
    }
}

TEST(CountsOfFloats, NanCountsAndNegativeZeroDoesNot) {
  if (!gpu_available()) GTEST_SKIP() << gpu_unavailable_reason();
  const std::vector<float> x = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f, 1e-45f};
  const device_input<float> input(x);
  EXPECT_EQ(warpfold::count_nonzero(input.data(), 5), 2);
  EXPECT_FALSE(warpfold::all(input.data(), 5));
  EXPECT_TRUE(warpfold::any(input.data(), 2) == false);
}

TEST(CountsOfBools, ReadAsBytes) {
  if (!gpu_available()) GTEST_SKIP() << gpu_unavailable_reason();
  for (std::int64_t n : standard_sizes()) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
    std::mt19937_64 random(seed_for("bools", n));
    std::int64_t set = 0;
    for (auto& b : bytes) set += (b = random() % 3 == 0);
    const device_input<std::uint8_t> input(bytes);
    const bool* flags = reinterpret_cast<const bool*>(input.data());
    EXPECT_EQ(warpfold::count_nonzero(flags, n), set);
    EXPECT_EQ(warpfold::any(flags, n), set > 0);
    EXPECT_EQ(warpfold::all(flags, n), set == n);
  }
}

TEST(StatisticsBadInput, ClearErrorsAndNothingWritten) {
  if (!gpu_available()) GTEST_SKIP() << gpu_unavailable_reason();
  const device_input<float> input(std::vector<float>(100, 1.0f));
  warpfold_test::device_array<float> out(1);
  warpfold_test::fill_device_bytes(out.data(), 0x5A, sizeof(float));
  std::vector<float> host(100, 1.0f);
  const auto expect_error = [](auto call, const char* words) { expect_invalid_argument(call, words); };
  expect_error([&] { warpfold::norm_l2(input.data(), -1, out.data(), nullptr); }, "negative");
  expect_error([&] { warpfold::norm_l2(static_cast<const float*>(nullptr), 10, out.data(), nullptr); }, "null");
  expect_error([&] { warpfold::norm_l2(host.data(), 100, out.data(), nullptr); }, "not device memory");
  expect_error([&] { warpfold::dot(input.data(), static_cast<const float*>(nullptr), 10, out.data(), nullptr); }, "y is null");
  expect_error([&] { warpfold::dot(input.data(), host.data(), 100, out.data(), nullptr); }, "not device memory");
  expect_error([&] { warpfold::var_mean(input.data(), 100, 1.0, static_cast<warpfold::mean_var<float>*>(nullptr), nullptr); },
               "output pointer is null");
  expect_error([&] { (void)warpfold::count_nonzero(host.data(), 100); }, "not device memory");
  float after;
  copy_to_host(&after, out.data(), 1);
  std::uint32_t bits;
  std::memcpy(&bits, &after, 4);
  EXPECT_EQ(bits, 0x5A5A5A5Au) << "a rejected call wrote its output";
}

}  // namespace
