// The reproducible and exact sums (warpfold/sum_modes.hpp) against their CPU references
// (warpfold_test/float_sum_references.hpp): the exact sum must equal MPFR's correctly rounded
// sum, bit for bit, and the reproducible sum the CPU implementation of its documented order,
// bit for bit; both for every size class, data of narrow, wide and full exponent range,
// cancellation, special values, offsets and forced grids.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include <warpfold/reduce.hpp>
#include <warpfold/sum_modes/grid_override.hpp>

#include "reduce_test_util.hpp"
#include "sum_modes_test_data.hpp"
#include "warpfold_test/float_sum_references.hpp"

namespace {

using namespace warpfold_test;
using namespace sum_modes_test;
using sum_modes_test::from_double;  // rounds through float, as the data were made; not warpfold_test's

template <typename T>
class SumModes : public gpu_test {};
using float_types = ::testing::Types<__half, __nv_bfloat16, float, double>;
TYPED_TEST_SUITE(SumModes, float_types, reduce_test::type_names);

TYPED_TEST(SumModes, ExactEqualsTheCorrectlyRoundedSum) {
  using T = TypeParam;
  for (std::int64_t n : standard_sizes())
    for (data_kind kind : all_kinds) {
      const std::vector<T> x = make_data<T>(n, seed_for(std::string("exact-") + kind_name(kind), n), kind);
      const device_input<T> input(x);
      SCOPED_TRACE(size_name(n) + " " + kind_name(kind));
      EXPECT_TRUE(same_bits(warpfold::sum_exact(input.data(), n), exact_sum_reference(x.data(), n)));
      EXPECT_TRUE(input.unchanged());
    }
}

// Every sum above again, negated: half of the sums were negative, now the other half are. The
// rounding works out a negative sum's magnitude apart from a positive one's, and must give
// exactly the negation (an exact zero's sign aside, which the specials test covers).
TYPED_TEST(SumModes, ExactOfTheNegatedElementsIsTheNegatedSum) {
  using T = TypeParam;
  using R = warpfold::float_sum_t<T>;
  for (std::int64_t n : standard_sizes())
    for (data_kind kind : all_kinds) {
      std::vector<T> x = make_data<T>(n, seed_for(std::string("exact-") + kind_name(kind), n), kind);
      const R sum = exact_sum_reference(x.data(), n);
      for (T& v : x) v = from_double<T>(-static_cast<double>(to_real(v)));
      const device_input<T> input(x);
      SCOPED_TRACE(size_name(n) + " " + kind_name(kind));
      EXPECT_TRUE(same_bits(warpfold::sum_exact(input.data(), n), sum == R(0) ? exact_sum_reference(x.data(), n) : -sum));
    }
}

TYPED_TEST(SumModes, ReproducibleFollowsItsDocumentedOrder) {
  using T = TypeParam;
  std::vector<std::int64_t> sizes = standard_sizes();
  if (!quick_mode()) {
    sizes.push_back((std::int64_t{1} << 24) + 12345);  // chunks larger than the smallest
    // The last size that blocks of half a group take, and the first that whole groups do
    // (sum_modes/launch.cuh).
    const std::int64_t half_group_limit = warpfold::sum_modes::reproducible_half_group_max_chunks *
                                          warpfold::sum_modes::reproducible_accumulators *
                                          warpfold::sum_modes::reproducible_row_elements<T>;
    sizes.push_back(half_group_limit);
    sizes.push_back(half_group_limit + 1);
  }
  for (std::int64_t n : sizes)
    for (data_kind kind : all_kinds) {
      const std::vector<T> x = make_data<T>(n, seed_for(std::string("reproducible-") + kind_name(kind), n), kind);
      const device_input<T> input(x);
      SCOPED_TRACE(size_name(n) + " " + kind_name(kind));
      EXPECT_TRUE(same_bits(warpfold::sum_reproducible(input.data(), n), reproducible_sum_reference(x.data(), n)));
      EXPECT_TRUE(input.unchanged());
    }
}

// The same values at every alignment: the bits depend on the values only.
TYPED_TEST(SumModes, BitsDoNotDependOnTheInputsAddress) {
  using T = TypeParam;
  const std::int64_t n = quick_mode() ? 40009 : 1000003;
  const std::vector<T> x = make_data<T>(n, seed_for("offsets", n), data_kind::wide);
  const auto exact = exact_sum_reference(x.data(), n);
  const auto reproducible = reproducible_sum_reference(x.data(), n);
  for (int offset = 1; offset < 8; ++offset) {
    std::vector<T> padded(static_cast<std::size_t>(n + offset), from_double<T>(1e4));
    std::copy(x.begin(), x.end(), padded.begin() + offset);
    const device_array<T> d = upload(padded);
    SCOPED_TRACE("offset " + std::to_string(offset));
    EXPECT_TRUE(same_bits(warpfold::sum_exact(d.data() + offset, n), exact));
    EXPECT_TRUE(same_bits(warpfold::sum_reproducible(d.data() + offset, n), reproducible));
  }
}

// The grid is the one thing that differs between GPUs of different sizes.
TYPED_TEST(SumModes, BitsDoNotDependOnTheGrid) {
  using T = TypeParam;
  // Sizes for every shape of the reproducible launch (sum_modes/launch.cuh): a cluster (70001
  // floats), blocks of half a group (1000003 of every type), and blocks of whole groups
  // (3000017 doubles).
  for (std::int64_t n : {std::int64_t{70001}, std::int64_t{1000003}, quick_mode() ? std::int64_t{300007} : std::int64_t{3000017}}) {
    const std::vector<T> x = make_data<T>(n, seed_for("grids", n), data_kind::wide);
    const device_input<T> input(x);
    const auto exact = warpfold::sum_exact(input.data(), n);
    const auto reproducible = warpfold::sum_reproducible(input.data(), n);
    EXPECT_TRUE(same_bits(exact, exact_sum_reference(x.data(), n)));
    for (int blocks : {1, 2, 3, 7, 64, 131, 1000}) {
      warpfold::testing::scoped_sum_grid forced(blocks);
      SCOPED_TRACE(size_name(n) + ", " + std::to_string(blocks) + " blocks");
      EXPECT_TRUE(same_bits(warpfold::sum_exact(input.data(), n), exact));
      EXPECT_TRUE(same_bits(warpfold::sum_reproducible(input.data(), n), reproducible));
    }
  }
}

template <typename T>
void expect_both_modes(const std::vector<double>& values, double expected, const char* what) {
  std::vector<T> x;
  for (double v : values) x.push_back(from_double<T>(v));
  const device_array<T> d = upload(x);
  using R = warpfold::float_sum_t<T>;
  SCOPED_TRACE(what);
  EXPECT_TRUE(same_bits(warpfold::sum_exact(d.data(), std::int64_t(x.size())), static_cast<R>(expected)));
  EXPECT_TRUE(same_bits(warpfold::sum_exact(d.data(), std::int64_t(x.size())), exact_sum_reference(x.data(), std::int64_t(x.size()))));
  EXPECT_TRUE(same_bits(warpfold::sum_reproducible(d.data(), std::int64_t(x.size())),
                        reproducible_sum_reference(x.data(), std::int64_t(x.size()))));
}

TYPED_TEST(SumModes, SpecialValuesFollowIeee) {
  using T = TypeParam;
  const double inf = INFINITY, nan = NAN;
  expect_both_modes<T>({1, nan, 2}, nan, "NaN");
  expect_both_modes<T>({1, inf, 2}, inf, "+inf");
  expect_both_modes<T>({1, -inf, 2}, -inf, "-inf");
  expect_both_modes<T>({inf, 1, -inf}, nan, "+inf and -inf");
  expect_both_modes<T>({-0.0, -0.0, -0.0}, -0.0, "only -0");
  expect_both_modes<T>({-0.0, 0.0, -0.0}, 0.0, "-0 and +0");
  expect_both_modes<T>({1.5, -1.5}, 0.0, "cancelling to +0");
  // Specials among many elements, in every block.
  std::vector<double> many(100000, 0.25);
  many[77777] = nan;
  expect_both_modes<T>(many, nan, "NaN among many");
  many[77777] = -inf;
  expect_both_modes<T>(many, -inf, "-inf among many");
  std::vector<double> zeros(100003, -0.0);
  expect_both_modes<T>(zeros, -0.0, "many -0");
  zeros[99999] = 0.0;
  expect_both_modes<T>(zeros, 0.0, "many -0 and one +0");
  const device_array<T> none(1);
  EXPECT_TRUE(same_bits(warpfold::sum_exact(none.data(), 0), warpfold::float_sum_t<T>(0)));
  EXPECT_TRUE(same_bits(warpfold::sum_reproducible(none.data(), 0), warpfold::float_sum_t<T>(0)));
}

// Values at the top of the type's range: a warp's window then reaches past float's largest
// exponent, where specials must still take the rare path, and sums overflow. Small arrays (one
// block) and large ones (many blocks), every warp alike.
TYPED_TEST(SumModes, SpecialValuesAndOverflowAtTheTopOfTheRange) {
  using T = TypeParam;
  const double inf = INFINITY, nan = NAN;
  const double biggest = largest_finite<T>();
  const double big = std::ldexp(1.0, highest_exponent<T>() - 2);
  for (std::int64_t n : {std::int64_t{16384}, std::int64_t{100002}}) {
    SCOPED_TRACE(size_name(n));
    std::vector<double> alternating(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) alternating[static_cast<std::size_t>(i)] = i % 2 == 0 ? big : -big;
    expect_both_modes<T>(alternating, 0.0, "large values that cancel");
    std::vector<double> x = alternating;
    x[static_cast<std::size_t>(n * 2 / 3)] = nan;
    expect_both_modes<T>(x, nan, "NaN among large values");
    x = alternating;
    x[static_cast<std::size_t>(n / 3)] = inf;
    expect_both_modes<T>(x, inf, "+inf among large values");
    std::vector<double> top(static_cast<std::size_t>(n), biggest);
    const double sum_of_top = std::is_same_v<T, __half> ? double(n) * biggest : inf;  // half's sum is a finite float
    expect_both_modes<T>(top, sum_of_top, "the largest finite everywhere");
    for (std::int64_t i = n / 2; i < n; ++i) top[static_cast<std::size_t>(i)] = -biggest;
    expect_both_modes<T>(top, 0.0, "the largest finite, then its negation");
  }
}

// Concurrent callers: host threads, each with its own stream and array, sum at the same time,
// over and over; every result must be the reference's bits (no scratch or state is shared
// between the calls in flight).
TYPED_TEST(SumModes, ConcurrentCallersOnTheirOwnStreams) {
  using T = TypeParam;
  using R = warpfold::float_sum_t<T>;
  const std::vector<std::int64_t> sizes = {257, 70001, 1000003, quick_mode() ? std::int64_t{300007} : std::int64_t{3000017}};
  std::vector<std::vector<T>> data;
  std::vector<std::unique_ptr<device_input<T>>> inputs;
  std::vector<R> exact, reproducible;
  for (std::int64_t n : sizes) {
    data.push_back(make_data<T>(n, seed_for("concurrent", n), data_kind::wide));
    inputs.push_back(std::make_unique<device_input<T>>(data.back()));
    exact.push_back(exact_sum_reference(data.back().data(), n));
    reproducible.push_back(reproducible_sum_reference(data.back().data(), n));
  }
  std::vector<int> wrong(sizes.size(), 0);
  std::vector<std::thread> callers;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    callers.emplace_back([&, k] {
      cudaStream_t stream;
      if (cudaStreamCreate(&stream) != cudaSuccess) {
        wrong[k] = -1;
        return;
      }
      for (int round = 0; round < 20; ++round) {
        if (!same_bits(warpfold::sum_exact(inputs[k]->data(), sizes[k], stream), exact[k])) ++wrong[k];
        if (!same_bits(warpfold::sum_reproducible(inputs[k]->data(), sizes[k], stream), reproducible[k])) ++wrong[k];
      }
      cudaStreamDestroy(stream);
    });
  for (std::thread& t : callers) t.join();
  for (std::size_t k = 0; k < sizes.size(); ++k) EXPECT_EQ(wrong[k], 0) << size_name(sizes[k]);
}

template <typename T>
class ExactSumEdges : public gpu_test {};
using wide_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ExactSumEdges, wide_types, reduce_test::type_names);

TYPED_TEST(ExactSumEdges, TiesRoundToEven) {
  using T = TypeParam;
  constexpr int p = std::numeric_limits<T>::digits;
  const double half_ulp_of_one = std::ldexp(1.0, -p);
  const double tiny = std::is_same_v<T, float> ? std::ldexp(1.0, -149) : std::ldexp(1.0, -1074);
  expect_both_modes<T>({1, half_ulp_of_one}, 1.0, "1 + half an ulp: down to even");
  expect_both_modes<T>({1, half_ulp_of_one, tiny}, 1 + 2 * half_ulp_of_one, "just above the tie: up");
  expect_both_modes<T>({1 + 2 * half_ulp_of_one, half_ulp_of_one}, 1 + 4 * half_ulp_of_one, "odd + half an ulp: up to even");
  expect_both_modes<T>({1, half_ulp_of_one / 2, half_ulp_of_one / 2, -tiny}, 1.0, "just below the tie, from three pieces");
}

TYPED_TEST(ExactSumEdges, OverflowAndIntermediateOverflow) {
  using T = TypeParam;
  constexpr int p = std::numeric_limits<T>::digits;
  const double biggest = std::numeric_limits<T>::max();
  const int top = std::numeric_limits<T>::max_exponent - 1;  // biggest's exponent
  const double half_ulp = std::ldexp(1.0, top - p);
  expect_both_modes<T>({biggest, half_ulp}, INFINITY, "a tie at the top rounds to even: infinity");
  expect_both_modes<T>({biggest, half_ulp / 2}, biggest, "below the tie: the largest finite");
  expect_both_modes<T>({-biggest, -half_ulp}, -INFINITY, "the same, negative");
  std::vector<T> x = {T(biggest), T(biggest), T(-biggest)};
  const device_array<T> d = upload(x);
  EXPECT_TRUE(same_bits(warpfold::sum_exact(d.data(), 3), T(biggest))) << "intermediate sums beyond the range do not matter";
}

TYPED_TEST(ExactSumEdges, SubnormalsAddExactly) {
  using T = TypeParam;
  const double tiny = std::is_same_v<T, float> ? std::ldexp(1.0, -149) : std::ldexp(1.0, -1074);
  std::vector<double> v(4099, tiny);
  v.push_back(-3 * tiny);
  expect_both_modes<T>(v, 4096 * tiny, "4099 - 3 smallest subnormals");
}

// A warp's folds hold 120 (float) or 160 (double) bits below its largest element; a lane
// whose elements all lie in them skips the check for bits below the lowest fold, and a warp
// whose elements all lie in the first one or two folds uses only those. Around each of those
// boundaries: 2^40 and -2^40 in other lanes set the window, and a small element with its
// lowest bit set, at every exponent from the bottom of the range to just under 2^40, must come
// back whole.
TYPED_TEST(ExactSumEdges, BitsBelowTheFoldsInUseAreKept) {
  using T = TypeParam;
  constexpr int p = std::numeric_limits<T>::digits;
  const std::int64_t n = 4096;  // the body of vectors that the folds read, not single elements
  for (int e = std::numeric_limits<T>::min_exponent; e <= 38; ++e) {  // small / 2 stays normal
    const double small = std::ldexp(1.0 + std::ldexp(1.0, 1 - p), e);
    std::vector<T> x(static_cast<std::size_t>(n), T(0));
    x[0] = T(std::ldexp(1.0, 40));
    x[5] = T(small);
    x[9] = T(-std::ldexp(1.0, 40));
    x[13] = T(-small / 2);  // and one below it, in another lane of the same warp
    const device_array<T> d = upload(x);
    EXPECT_TRUE(same_bits(warpfold::sum_exact(d.data(), n), T(small / 2))) << "exponent " << e;
  }
}

TEST(ExactSumOfOnes, TheTieAbove2To24RoundsToEven) {
  if (!gpu_available()) GTEST_SKIP() << gpu_unavailable_reason();
  const std::int64_t n = (std::int64_t{1} << 24) + 1;  // 16777217: halfway between two floats
  const std::vector<float> ones(static_cast<std::size_t>(n), 1.0f);
  const device_array<float> d = upload(ones);
  EXPECT_TRUE(same_bits(warpfold::sum_exact(d.data(), n), 16777216.0f));
  std::vector<float> more = ones;
  more.push_back(1.0f);
  more.push_back(1.0f);  // 16777219: halfway, rounds up to 16777220
  const device_array<float> e = upload(more);
  EXPECT_TRUE(same_bits(warpfold::sum_exact(e.data(), n + 2), 16777220.0f));
}

// Every finite half, subnormals and both zeros included, must come back at its value (the
// exact sum of halves adds them in a double a batch at a time, and tests each batch through its
// sum, not each element). All of them at once in a shuffled order (so they meet in both
// 16-bit lanes of a word and in every batch position), the positive ones alone, and the
// negative ones with one positive subnormal. Then an infinity or NaN at each position of the
// first 64 elements (both lanes of every word that a lane adds), among finite values, for each
// of the four kinds.
TEST(ExactSumOfHalves, EveryFiniteHalfAndEverySpecialPosition) {
  if (!gpu_available()) GTEST_SKIP() << gpu_unavailable_reason();
  std::vector<__half> all, positive, negative;
  for (unsigned bits = 0; bits < 0x10000u; ++bits) {
    if ((bits & 0x7fffu) >= 0x7c00u) continue;
    const __half h = __ushort_as_half(static_cast<unsigned short>(bits));
    all.push_back(h);
    (bits < 0x8000u ? positive : negative).push_back(h);
  }
  negative.push_back(__ushort_as_half(0x0001u));
  std::mt19937_64 shuffle(3707);
  std::shuffle(all.begin(), all.end(), shuffle);
  for (const std::vector<__half>* x : {&all, &positive, &negative}) {
    const device_array<__half> d = upload(*x);
    const std::int64_t n = static_cast<std::int64_t>(x->size());
    EXPECT_TRUE(same_bits(warpfold::sum_exact(d.data(), n), exact_sum_reference(x->data(), n))) << n << " elements";
  }
  const unsigned short specials[] = {0x7c00u, 0xfc00u, 0x7e00u, 0xfc01u};  // +inf, -inf, NaN, -NaN
  std::vector<__half> x(positive.begin(), positive.begin() + 4099);
  device_array<__half> d(x.size());
  for (unsigned short special : specials)
    for (std::size_t position = 0; position < 64; ++position) {
      std::vector<__half> y = x;
      y[position] = __ushort_as_half(special);
      WARPFOLD_TEST_CUDA(cudaMemcpy(d.data(), y.data(), y.size() * sizeof(__half), cudaMemcpyHostToDevice));
      const std::int64_t n = static_cast<std::int64_t>(y.size());
      EXPECT_TRUE(same_bits(warpfold::sum_exact(d.data(), n), exact_sum_reference(y.data(), n)))
          << "special " << std::hex << special << std::dec << " at " << position;
    }
}

TYPED_TEST(SumModes, AsyncFormsWriteDeviceMemoryAndReplayInGraphs) {
  using T = TypeParam;
  using R = warpfold::float_sum_t<T>;
  const std::int64_t n = 1000003;
  const std::vector<T> x = make_data<T>(n, seed_for("async", n), data_kind::wide);
  const device_input<T> input(x);
  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
  const R exact = reduce_test::run_async<R>([&](R* out, cudaStream_t s) { warpfold::sum_exact(input.data(), n, out, s); }, stream);
  EXPECT_TRUE(same_bits(exact, exact_sum_reference(x.data(), n)));
  const R reproducible =
      reduce_test::run_async<R>([&](R* out, cudaStream_t s) { warpfold::sum_reproducible(input.data(), n, out, s); }, stream);
  EXPECT_TRUE(same_bits(reproducible, reproducible_sum_reference(x.data(), n)));

  device_array<R> out(2);
  cudaGraph_t graph;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  warpfold::sum_exact(input.data(), n, out.data(), stream);
  warpfold::sum_reproducible(input.data(), n, out.data() + 1, stream);
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    WARPFOLD_TEST_CUDA(cudaMemsetAsync(out.data(), 0xA5, 2 * sizeof(R), stream));
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    const std::vector<R> got = download(out.data(), 2);
    EXPECT_TRUE(same_bits(got[0], exact));
    EXPECT_TRUE(same_bits(got[1], reproducible));
  }
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));

  // With the caller's scratch, sized by the *_scratch_bytes functions.
  device_array<unsigned char> scratch(std::max(warpfold::sum_exact_scratch_bytes<T>(n), warpfold::sum_reproducible_scratch_bytes<T>(n)));
  const warpfold::scratch_space space{scratch.data(), scratch.size()};
  EXPECT_TRUE(same_bits(
      reduce_test::run_async<R>([&](R* o, cudaStream_t s) { warpfold::sum_exact(input.data(), n, o, s, space); }, stream), exact));
  EXPECT_TRUE(same_bits(
      reduce_test::run_async<R>([&](R* o, cudaStream_t s) { warpfold::sum_reproducible(input.data(), n, o, s, space); }, stream),
      reproducible));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

TYPED_TEST(SumModes, BadInputIsRejectedAndNothingIsWritten) {
  using T = TypeParam;
  using R = warpfold::float_sum_t<T>;
  const device_array<T> d(16);
  device_array<R> out(1);
  warpfold_test::fill_device_bytes(out.data(), 0xA5, sizeof(R));
  std::vector<T> host(16);
  EXPECT_THROW(warpfold::sum_exact(d.data(), -1), warpfold::invalid_argument);
  EXPECT_THROW(warpfold::sum_reproducible(d.data(), -1), warpfold::invalid_argument);
  EXPECT_THROW(warpfold::sum_exact(static_cast<const T*>(nullptr), 5), warpfold::invalid_argument);
  EXPECT_THROW(warpfold::sum_reproducible(host.data(), 16), warpfold::invalid_argument);
  EXPECT_THROW(warpfold::sum_exact(host.data(), 16, out.data(), nullptr), warpfold::invalid_argument);
  EXPECT_THROW(warpfold::sum_reproducible(d.data(), 16, static_cast<R*>(nullptr), nullptr), warpfold::invalid_argument);
  const std::int64_t big = 1 << 22;
  const device_array<T> large(big);
  const warpfold::scratch_space too_small{out.data(), 4};
  EXPECT_THROW(warpfold::sum_exact(large.data(), big, out.data(), nullptr, too_small), warpfold::invalid_argument);
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  R after;
  copy_to_host(&after, out.data(), 1);
  unsigned char expected[sizeof(R)];
  std::memset(expected, 0xA5, sizeof(R));
  EXPECT_EQ(std::memcmp(&after, expected, sizeof(R)), 0) << "a rejected call wrote its output";
}

}  // namespace
