// Every op x every element type, blocking and async, at every standard size and at pointer
// offsets of 0-3 elements, against the independent CPU references. Integers compare exactly
// (with the documented accumulator widths and wrap), floats within a bound that grows with n.
#include "reduce_test_util.hpp"

#include <warpfold/device/reduce_policy.hpp>

namespace {

using namespace warpfold_test;
using reduce_test::run_async;
using reduce_test::same_value;

template <typename T>
class ReduceOps : public gpu_test {};
TYPED_TEST_SUITE(ReduceOps, reduce_test::element_types, reduce_test::type_names);

template <typename T>
void check_sum(const device_input<T>& input, cudaStream_t stream) {
  using Acc = warpfold::accumulator_t<warpfold::op::sum, T>;
  const expected_sum<Acc> expected = expect_sum<Acc>(input.host_values(), input.size());
  EXPECT_TRUE(expected.matches(warpfold::sum(input.data(), input.size(), stream))) << "blocking sum";
  const Acc async = run_async<Acc>([&](Acc* out, cudaStream_t s) { warpfold::sum(input.data(), input.size(), out, s); }, stream);
  EXPECT_TRUE(expected.matches(async)) << "async sum";
}

template <typename T>
void check_extrema(const device_input<T>& input, cudaStream_t stream) {
  using V = warpfold::accumulator_t<warpfold::op::min, T>;
  const std::int64_t n = input.size();
  const expected_extrema<T> e = expect_extrema(input.host_values(), n);
  const V lo = warpfold::min(input.data(), n, stream), hi = warpfold::max(input.data(), n, stream);
  const warpfold::value_index<V> arg_lo = warpfold::argmin(input.data(), n, stream);
  const warpfold::value_index<V> arg_hi = run_async<warpfold::value_index<V>>(
      [&](warpfold::value_index<V>* out, cudaStream_t s) { warpfold::argmax(input.data(), n, out, s); }, stream);
  if (n == 0) {  // the identities, and index -1
    EXPECT_TRUE(same_value(lo, warpfold::op::min::identity<V>()));
    EXPECT_TRUE(same_value(hi, warpfold::op::max::identity<V>()));
    EXPECT_EQ(arg_lo.index, -1);
    EXPECT_EQ(arg_hi.index, -1);
    return;
  }
  EXPECT_TRUE(same_value(lo, e.min)) << "min";
  EXPECT_TRUE(same_value(hi, e.max)) << "max";
  EXPECT_EQ(arg_lo.index, e.argmin) << "argmin must give the first index of the minimum";
  EXPECT_TRUE(same_value(arg_lo.value, e.min)) << "argmin value";
  EXPECT_EQ(arg_hi.index, e.argmax) << "argmax must give the first index of the maximum";
  EXPECT_TRUE(same_value(arg_hi.value, e.max)) << "argmax value";
}

template <typename T>
void check_bits(const device_input<T>& input, cudaStream_t stream) {
  const expected_bits<T> e = expect_bits(input.host_values(), input.size());
  EXPECT_EQ(warpfold::bit_and(input.data(), input.size(), stream), e.all_and) << "bit_and";
  EXPECT_EQ(warpfold::bit_or(input.data(), input.size(), stream), e.any_or) << "bit_or";
  const T x = run_async<T>([&](T* out, cudaStream_t s) { warpfold::bit_xor(input.data(), input.size(), out, s); }, stream);
  EXPECT_EQ(x, e.parity_xor) << "bit_xor";
}

template <typename T>
void check_every_op(const std::vector<T>& values, int offset, cudaStream_t stream) {
  // A front guard of `offset` poison elements makes data() misaligned by offset elements.
  const device_input<T> input(values, guard_layout{offset, 0});
  check_sum(input, stream);
  check_extrema(input, stream);
  if constexpr (is_integer_v<T>) check_bits(input, stream);
  EXPECT_TRUE(input.unchanged());
}

TYPED_TEST(ReduceOps, EveryOpMatchesTheCpuReferenceAtEverySizeAndOffset) {
  using T = TypeParam;
  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
  for (std::int64_t n : standard_sizes()) {
    for (int offset = 0; offset <= 3; ++offset) {
      const std::uint64_t seed = seed_for(std::string("ops/") + type_name<T>() + "/" + std::to_string(offset), n);
      SCOPED_TRACE(::testing::Message() << type_name<T>() << " n = " << n << " offset = " << offset << " seed = " << seed);
      // The default stream for aligned inputs, a created one for the offsets: both are covered.
      check_every_op(make_values<T>(n, seed), offset, offset == 0 ? cudaStream_t{} : stream);
      if (this->HasFailure()) break;
    }
    if (this->HasFailure()) break;
  }
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

// Sizes on both sides of each byte count where the dispatcher changes launch shape
// (device/reduce_policy.hpp): one block | one cluster of 3 ... 16 blocks | the mid-size wave.
// 8 blocks is where clusters stop on GPUs that cannot run 16.
template <typename T>
std::vector<std::int64_t> launch_shape_boundaries() {
  using policy = warpfold::device::reduce_policy;
  std::vector<std::int64_t> sizes;
  for (std::int64_t bytes : {policy::single_block_max_bytes, 5 * policy::cluster_block_bytes, 8 * policy::cluster_block_bytes,
                             policy::cluster_max_bytes}) {
    const std::int64_t elements = bytes / std::int64_t(sizeof(T));
    // Quick mode (the sanitizer runs, where every launch is slow) keeps one size per boundary,
    // just past it, and still reaches the widest cluster for 4- and 8-byte types.
    for (std::int64_t step : {-1, 0, 1})
      if (!quick_mode() || step == 1) sizes.push_back(elements + step);
  }
  return quick_mode() ? sizes_up_to(sizes, 140000) : sizes;
}

// check_every_op at each of `sizes`, aligned and three elements off, where wanted(n, offset);
// stops at the first failure.
template <typename T, typename Wanted>
void check_every_op_at(const std::string& tag, const std::vector<std::int64_t>& sizes, Wanted wanted) {
  for (std::int64_t n : sizes) {
    for (int offset : {0, 3}) {
      if (!wanted(n, offset)) continue;
      const std::uint64_t seed = seed_for(tag + "/" + type_name<T>() + "/" + std::to_string(offset), n);
      SCOPED_TRACE(::testing::Message() << type_name<T>() << " n = " << n << " offset = " << offset << " seed = " << seed);
      check_every_op(make_values<T>(n, seed), offset, cudaStream_t{});
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TYPED_TEST(ReduceOps, EveryOpAtEachLaunchShapeBoundary) {
  check_every_op_at<TypeParam>("shapes", launch_shape_boundaries<TypeParam>(),
                               [](std::int64_t, int offset) { return !quick_mode() || offset == 0; });
}

// The large (streaming) shape, from its first size (Policy::large_input_bytes) on, above the
// standard sizes. For 2-byte elements argmin and argmax run one block of 1024 threads per SM
// there (their registers allow no second). Quick mode (the sanitizers) keeps the 2-byte types,
// the last size and offset 3.
TYPED_TEST(ReduceOps, EveryOpAtTheLargeShape) {
  using T = TypeParam;
  if (quick_mode() && sizeof(T) != 2) GTEST_SKIP() << "quick mode: only the 2-byte types";
  const std::int64_t first = warpfold::device::reduce_policy::large_input_bytes / std::int64_t(sizeof(T));
  check_every_op_at<T>("large-shape", {first - 1, first, first + 4099}, [&](std::int64_t n, int offset) {
    return !quick_mode() || (n == first + 4099 && offset == 3);
  });
}

TYPED_TEST(ReduceOps, FullRangeValuesWrapOrStayWithinTheBound) {
  using T = TypeParam;
  for (std::int64_t n : sizes_up_to(standard_sizes(), 1 << 21)) {
    const std::uint64_t seed = seed_for(std::string("full/") + type_name<T>(), n);
    SCOPED_TRACE(::testing::Message() << type_name<T>() << " n = " << n << " seed = " << seed);
    const device_input<T> input(make_values<T>(n, seed, value_mode::full_range));
    check_sum(input, cudaStream_t{});
    check_extrema(input, cudaStream_t{});
    if (this->HasFailure()) break;
  }
}

// Products: odd integers (never 0, so the wrapped product stays informative), and floats
// near 1 (so the product neither overflows nor underflows for a million elements).
template <typename T>
std::vector<T> product_friendly_values(std::int64_t n, std::uint64_t seed) {
  std::vector<T> values(static_cast<std::size_t>(n));
  const std::vector<double> u = make_values<double>(n, seed);  // in [-1, 2)
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (is_integer_v<T>) {
      values[i] = static_cast<T>(static_cast<T>(std::int64_t(u[i] * 1000.0)) | T(1));
    } else {
      values[i] = from_double<T>(1.0 + (u[i] - 0.5) * 0x1p-8);
    }
  }
  return values;
}

TYPED_TEST(ReduceOps, ProductMatchesTheCpuReference) {
  using T = TypeParam;
  using Acc = warpfold::accumulator_t<warpfold::op::prod, T>;
  for (std::int64_t n : sizes_up_to(standard_sizes(), 1 << 21)) {
    const std::uint64_t seed = seed_for(std::string("prod/") + type_name<T>(), n);
    SCOPED_TRACE(::testing::Message() << type_name<T>() << " n = " << n << " seed = " << seed);
    const std::vector<T> values = product_friendly_values<T>(n, seed);
    const device_input<T> input(values);
    const Acc got = warpfold::prod(input.data(), n);
    if constexpr (is_integer_v<Acc>) {
      std::uint64_t wrapped = 1;  // modulo 2^64, then truncated to the accumulator's width
      for (const T& x : values) wrapped *= static_cast<std::uint64_t>(static_cast<Acc>(x));
      EXPECT_EQ(got, static_cast<Acc>(wrapped));
    } else {
      long double exact = 1;
      for (const T& x : values) exact *= to_real(x);
      // Each multiplication adds a relative error of at most eps/2, in whatever order, and
      // relative errors compound: |error| <= (n - 1) * eps/2 * |product| to first order
      // (Higham, ch. 3). Unlike a sum's, a product's errors need not cancel (inputs near 1
      // with few mantissa bits, as bf16 has, round the same way), so this is the proven
      // worst-case bound with a factor 2 of headroom, not the sum's statistical one.
      const long double tol = epsilon<Acc>() * static_cast<long double>(n) * std::fabs(exact);
      EXPECT_NEAR(static_cast<double>(to_real(got)), static_cast<double>(exact), static_cast<double>(tol));
    }
    EXPECT_TRUE(input.unchanged());
    if (this->HasFailure()) break;
  }
}

}  // namespace
