// warpfold::reduce_host (host_arrays.hpp): every op x type against the CPU references, at sizes
// around the chunk size and at every alignment of the host pointer; pinned and pageable input,
// any number of copy threads and GPUs give the same bits; bad input is refused.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <warpfold/host_arrays.hpp>

#include "scale_test_util.hpp"
#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;
using scale_test::expect_refused;

using element_types = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                                       std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float, double>;
struct type_names {
  template <typename T>
  static std::string GetName(int) {
    return type_name<T>();
  }
};

// The smallest chunk: a few hundred kilobytes already cross several chunks and slots.
constexpr std::size_t small_chunk = std::size_t{64} << 10;

template <typename A, typename B>
::testing::AssertionResult same_value(A got, B expected) {
  if (to_real(got) == to_real(expected)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << format_value(got) << ", expected " << format_value(expected);
}

// Sizes around the chunk and around the three-slot ring, plus random ones (fixed seed).
template <typename T>
std::vector<std::int64_t> sizes_around_chunks() {
  const std::int64_t c = static_cast<std::int64_t>(small_chunk / sizeof(T));
  std::vector<std::int64_t> sizes = {0, 1, 2, 31, c - 1, c, c + 1, 2 * c + 1, 3 * c - 1, 3 * c, 4 * c + 17, 7 * c + 3};
  for (std::int64_t n : random_sizes(quick_mode() ? 2 : 6, 1, 9 * c, 20261124)) sizes.push_back(n);
  return sizes;
}

template <typename T>
void check_every_op(const T* host, std::int64_t n, const warpfold::host_options& options) {
  using SumAcc = warpfold::accumulator_t<warpfold::op::sum, T>;
  using V = warpfold::accumulator_t<warpfold::op::min, T>;
  const expected_sum<SumAcc> sum = expect_sum<SumAcc>(host, n);
  EXPECT_TRUE(sum.matches(warpfold::sum_host(host, n, options))) << "sum";
  const V lo = warpfold::min_host(host, n, options), hi = warpfold::max_host(host, n, options);
  const warpfold::value_index<V> arg_lo = warpfold::argmin_host(host, n, options);
  const warpfold::value_index<V> arg_hi = warpfold::argmax_host(host, n, options);
  if (n == 0) {
    EXPECT_TRUE(same_value(lo, warpfold::op::min::identity<V>()));
    EXPECT_TRUE(same_value(hi, warpfold::op::max::identity<V>()));
    EXPECT_EQ(arg_lo.index, -1);
    EXPECT_EQ(arg_hi.index, -1);
  } else {
    const expected_extrema<T> e = expect_extrema(host, n);
    EXPECT_TRUE(same_value(lo, e.min)) << "min";
    EXPECT_TRUE(same_value(hi, e.max)) << "max";
    EXPECT_EQ(arg_lo.index, e.argmin) << "argmin: first index of the minimum, in the whole array";
    EXPECT_TRUE(same_value(arg_lo.value, e.min));
    EXPECT_EQ(arg_hi.index, e.argmax) << "argmax: first index of the maximum, in the whole array";
    EXPECT_TRUE(same_value(arg_hi.value, e.max));
  }
  if constexpr (is_integer_v<T>) {
    const expected_bits<T> b = expect_bits(host, n);
    EXPECT_EQ(warpfold::bit_and_host(host, n, options), b.all_and) << "bit_and";
    EXPECT_EQ(warpfold::bit_or_host(host, n, options), b.any_or) << "bit_or";
    EXPECT_EQ(warpfold::bit_xor_host(host, n, options), b.parity_xor) << "bit_xor";
    using ProdAcc = warpfold::accumulator_t<warpfold::op::prod, T>;
    ProdAcc product = 1;
    for (std::int64_t i = 0; i < n; ++i) product = warpfold::op::prod{}(product, static_cast<ProdAcc>(host[i]));
    EXPECT_EQ(warpfold::prod_host(host, n, options), product) << "prod (wraps modulo 2^64)";
  }
}

template <typename T>
class HostArrays : public gpu_test {};
TYPED_TEST_SUITE(HostArrays, element_types, type_names);

TYPED_TEST(HostArrays, EveryOpMatchesTheCpuReferenceAroundTheChunkSizeAtEveryAlignment) {
  using T = TypeParam;
  warpfold::host_options options;
  options.chunk_bytes = small_chunk;
  for (std::int64_t n : sizes_around_chunks<T>()) {
    for (int offset = 0; offset <= 3; ++offset) {
      options.copy_threads = 1 + offset;  // one to four threads, each size
      const std::uint64_t seed = seed_for(std::string("host/") + type_name<T>() + "/" + std::to_string(offset), n);
      SCOPED_TRACE(::testing::Message() << type_name<T>() << " n = " << n << " offset = " << offset << " seed = " << seed);
      // A pageable array whose first element is `offset` elements past an aligned start.
      std::vector<T> storage(static_cast<std::size_t>(n + offset));
      const std::vector<T> values = make_values<T>(n, seed);
      std::copy(values.begin(), values.end(), storage.begin() + offset);
      const T* host = storage.data() + offset;
      check_every_op(host, n, options);
      EXPECT_EQ(std::memcmp(host, values.data(), values.size() * sizeof(T)), 0) << "the input was modified";
      if (this->HasFailure()) return;
    }
  }
}

// The default chunk (16 MiB) and copy threads: the path users take.
TEST(HostArraysDefaults, FloatSumsOfSeveralDefaultChunks) {
  WARPFOLD_REQUIRE_GPU();
  const std::int64_t n = quick_mode() ? (std::int64_t{9} << 20) + 5 : (std::int64_t{41} << 20) + 3;
  const std::vector<float> values = make_values<float>(n, seed_for("host/defaults", n));
  const expected_sum<float> expected = expect_sum<float>(values);
  EXPECT_TRUE(expected.matches(warpfold::sum_host(values.data(), n)));
  const expected_extrema<float> e = expect_extrema(values.data(), n);
  EXPECT_EQ(warpfold::argmax_host(values.data(), n).index, e.argmax);
}

std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

// The result depends on the values and the chunk size only: pinned input (sent without
// staging) and any number of copy threads give the same bits.
TEST(HostArraysBits, PinnedPageableAndAnyCopyThreadsGiveTheSameBits) {
  WARPFOLD_REQUIRE_GPU();
  const std::int64_t n = 5 * static_cast<std::int64_t>(small_chunk / sizeof(float)) + 1234;
  const std::vector<float> values = make_values<float>(n, seed_for("host/bits", n));
  float* pinned = nullptr;
  WARPFOLD_TEST_CUDA(cudaMallocHost(reinterpret_cast<void**>(&pinned), n * sizeof(float)));
  std::copy(values.begin(), values.end(), pinned);
  warpfold::host_options options;
  options.chunk_bytes = small_chunk;
  const float reference = warpfold::sum_host(values.data(), n, options);
  EXPECT_TRUE(expect_sum<float>(values).matches(reference));
  EXPECT_EQ(bits_of(warpfold::sum_host(pinned, n, options)), bits_of(reference)) << "pinned input";
  for (int threads : {1, 2, 7}) {
    options.copy_threads = threads;
    EXPECT_EQ(bits_of(warpfold::sum_host(values.data(), n, options)), bits_of(reference)) << threads << " copy threads";
  }
  WARPFOLD_TEST_CUDA(cudaFreeHost(pinned));
}

// Split over GPUs, in any order of the list, the chunks combine in the same order.
TEST(HostArraysBits, AnyListOfGpusGivesTheSameBits) {
  WARPFOLD_REQUIRE_GPU();
  int devices = 0;
  WARPFOLD_TEST_CUDA(cudaGetDeviceCount(&devices));
  if (devices < 2) GTEST_SKIP() << "needs 2 or more CUDA devices; this machine has " << devices;
  const std::int64_t n = 11 * static_cast<std::int64_t>(small_chunk / sizeof(float)) + 77;
  const std::vector<float> values = make_values<float>(n, seed_for("host/gpus", n));
  warpfold::host_options options;
  options.chunk_bytes = small_chunk;
  const float reference = warpfold::sum_host(values.data(), n, options);
  const auto argmax = warpfold::argmax_host(values.data(), n, options);
  EXPECT_TRUE(expect_sum<float>(values).matches(reference));
  for (std::vector<int> list : {std::vector<int>{0, 1}, std::vector<int>{1, 0}, std::vector<int>{1}}) {
    options.devices = list;
    EXPECT_EQ(bits_of(warpfold::sum_host(values.data(), n, options)), bits_of(reference)) << list.size() << " devices";
    EXPECT_EQ(warpfold::argmax_host(values.data(), n, options).index, argmax.index);
  }
  int current = -1;
  WARPFOLD_TEST_CUDA(cudaGetDevice(&current));
  EXPECT_EQ(current, 0) << "the call must leave the current device as it found it";
}

// Host threads calling at once get their own staging and their own answers.
TEST(HostArraysConcurrency, ThreadsCallingAtOnce) {
  WARPFOLD_REQUIRE_GPU();
  constexpr int callers = 4;
  std::vector<std::vector<std::int32_t>> inputs;
  std::vector<std::int64_t> expected;
  for (int t = 0; t < callers; ++t) {
    const std::int64_t n = 300001 + 77777 * t;
    inputs.push_back(make_values<std::int32_t>(n, seed_for("host/threads/" + std::to_string(t), n)));
    std::int64_t s = 0;
    for (std::int32_t v : inputs.back()) s += v;
    expected.push_back(s);
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < callers; ++t)
    threads.emplace_back([&, t] {
      warpfold::host_options options;
      options.chunk_bytes = small_chunk;
      options.copy_threads = 2;
      for (int repeat = 0; repeat < 5; ++repeat)
        if (warpfold::sum_host(inputs[t].data(), static_cast<std::int64_t>(inputs[t].size()), options) != expected[t]) ++wrong;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(HostArraysBadInput, IsRefusedWithAClearError) {
  WARPFOLD_REQUIRE_GPU();
  std::vector<float> values(1000, 1.0f);
  expect_refused([&] { warpfold::sum_host(values.data(), -1); }, "negative");
  expect_refused([&] { warpfold::sum_host(static_cast<const float*>(nullptr), 10); }, "null");
  device_array<float> on_device(1000);
  expect_refused([&] { warpfold::sum_host(on_device.data(), 1000); }, "device memory");
  float* managed = nullptr;
  WARPFOLD_TEST_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&managed), 1000 * sizeof(float)));
  expect_refused([&] { warpfold::sum_host(managed, 1000); }, "device memory");
  WARPFOLD_TEST_CUDA(cudaFree(managed));
  warpfold::host_options options;
  options.devices = {999};
  expect_refused([&] { warpfold::sum_host(values.data(), 1000, options); }, "does not exist");
  options.devices = {0, 0};
  expect_refused([&] { warpfold::sum_host(values.data(), 1000, options); }, "twice");
  options.devices = {};
  options.chunk_bytes = 1000;
  expect_refused([&] { warpfold::sum_host(values.data(), 1000, options); }, "chunk_bytes");
  options.chunk_bytes = (std::size_t{1} << 20) + 8;
  expect_refused([&] { warpfold::sum_host(values.data(), 1000, options); }, "multiple of 16");
  options.chunk_bytes = 0;
  options.copy_threads = -2;
  expect_refused([&] { warpfold::sum_host(values.data(), 1000, options); }, "copy_threads");
  // An empty input needs no pointer.
  EXPECT_EQ(warpfold::sum_host(static_cast<const float*>(nullptr), 0), 0.0f);
}

}  // namespace
