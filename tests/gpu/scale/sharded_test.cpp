// warpfold::reduce_sharded (sharded.hpp): one rank on one GPU, and every GPU of the machine as
// ranks (one thread each, uneven and empty shards), against the CPU references of the whole
// array; graph capture; bad input refused. Tests that need two GPUs skip, saying so, on one.
#include <gtest/gtest.h>
#include <nccl.h>

#include <algorithm>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <warpfold/sharded.hpp>

#include "../reduce/sum_modes_test_data.hpp"
#include "warpfold_test/float_sum_references.hpp"

#define WARPFOLD_TEST_NCCL
#include "scale_test_util.hpp"
#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;
using scale_test::expect_refused;
using scale_test::communicators;
using scale_test::device_count;
using scale_test::on_current_device;
using scale_test::on_every_rank;

template <typename A, typename B>
bool same_value(A a, B b) {
  return to_real(a) == to_real(b);
}

// The array split into `ranks` shards of uneven sizes (some empty), each on its rank's device;
// every op on every rank, async and blocking, against the whole array's references.
template <typename T>
void check_sharded(const communicators& c, std::int64_t n, std::uint64_t seed) {
  using SumAcc = warpfold::accumulator_t<warpfold::op::sum, T>;
  using V = warpfold::accumulator_t<warpfold::op::min, T>;
  const int ranks = static_cast<int>(c.devices.size());
  const std::vector<T> values = make_values<T>(n, seed);
  // Uneven cuts: rank r gets a share that grows with r; with 2+ ranks, rank 0's is empty when n is small.
  std::vector<std::int64_t> start(ranks + 1, 0);
  for (int r = 1; r < ranks; ++r) start[r] = n * r * r / (ranks * ranks);
  start[ranks] = n;
  const expected_sum<SumAcc> sum = expect_sum<SumAcc>(values);
  const expected_extrema<T> e = expect_extrema(values.data(), n);
  std::vector<std::string> problems(ranks);
  on_every_rank(c, [&](int r) {
    std::string& problem = problems[r];
    const std::int64_t count = start[r + 1] - start[r];
    T* shard = nullptr;
    SumAcc* d_sum = nullptr;
    warpfold::value_index<V>* d_arg = nullptr;
    cudaStream_t stream;
    if (cudaStreamCreate(&stream) != cudaSuccess || cudaMalloc(&shard, std::max<std::int64_t>(count, 1) * sizeof(T)) != cudaSuccess ||
        cudaMalloc(&d_sum, sizeof(SumAcc)) != cudaSuccess || cudaMalloc(&d_arg, sizeof(*d_arg)) != cudaSuccess) {
      problem = "allocation failed";
      return;
    }
    (void)cudaMemcpy(shard, values.data() + start[r], count * sizeof(T), cudaMemcpyHostToDevice);
    try {
      // Async, into device memory, then the blocking forms.
      warpfold::sum_sharded(shard, count, d_sum, c.comms[r], stream);
      warpfold::argmax_sharded(shard, count, d_arg, c.comms[r], stream);
      SumAcc got_sum;
      warpfold::value_index<V> got_arg;
      (void)cudaMemcpyAsync(&got_sum, d_sum, sizeof(got_sum), cudaMemcpyDeviceToHost, stream);
      (void)cudaMemcpyAsync(&got_arg, d_arg, sizeof(got_arg), cudaMemcpyDeviceToHost, stream);
      if (cudaStreamSynchronize(stream) != cudaSuccess) problem = "stream failed";
      const auto matched = sum.matches(got_sum);
      if (!matched) problem += std::string("async sum: ") + matched.message() + "; ";
      if (got_arg.index != e.argmax || (n > 0 && !same_value(got_arg.value, e.max)))
        problem += "async argmax index " + std::to_string(got_arg.index) + ", expected " + std::to_string(e.argmax) + "; ";
      const auto lo = warpfold::argmin_sharded(shard, count, c.comms[r]);
      if (lo.index != e.argmin) problem += "argmin index " + std::to_string(lo.index) + ", expected " + std::to_string(e.argmin) + "; ";
      const V mn = warpfold::min_sharded(shard, count, c.comms[r]);
      const V mx = warpfold::max_sharded(shard, count, c.comms[r]);
      if (n > 0 && (!same_value(mn, e.min) || !same_value(mx, e.max))) problem += "min/max; ";
      if constexpr (is_integer_v<T>) {
        const expected_bits<T> b = expect_bits(values.data(), n);
        if (warpfold::bit_xor_sharded(shard, count, c.comms[r]) != b.parity_xor) problem += "bit_xor; ";
        if (warpfold::bit_and_sharded(shard, count, c.comms[r]) != b.all_and) problem += "bit_and; ";
      }
      // A root: rank 0 gets the whole sum (an all-reduced op) and the whole argmin (a gathered
      // one); every other rank keeps its own shard's.
      warpfold::shard_options to_root;
      to_root.root = 0;
      (void)cudaMemsetAsync(d_sum, 0x7F, sizeof(SumAcc), stream);
      warpfold::sum_sharded(shard, count, d_sum, c.comms[r], stream, to_root);
      warpfold::argmin_sharded(shard, count, d_arg, c.comms[r], stream, to_root);
      (void)cudaMemcpyAsync(&got_sum, d_sum, sizeof(got_sum), cudaMemcpyDeviceToHost, stream);
      (void)cudaMemcpyAsync(&got_arg, d_arg, sizeof(got_arg), cudaMemcpyDeviceToHost, stream);
      (void)cudaStreamSynchronize(stream);
      const expected_sum<SumAcc> own = expect_sum<SumAcc>(values.data() + start[r], count);
      const expected_extrema<T> own_e = expect_extrema(values.data() + start[r], count);
      if (!(r == 0 ? sum : own).matches(got_sum)) problem += "root sum: rank " + std::to_string(r) + "; ";
      if (got_arg.index != (r == 0 ? e.argmin : own_e.argmin))
        problem += "root argmin: rank " + std::to_string(r) + " got " + std::to_string(got_arg.index) + "; ";
    } catch (const std::exception& ex) {
      problem += std::string("threw: ") + ex.what();
    }
    (void)cudaFree(shard);
    (void)cudaFree(d_sum);
    (void)cudaFree(d_arg);
    (void)cudaStreamDestroy(stream);
  });
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(problems[r], "") << "rank " << r << " of " << ranks << ", n = " << n;
}

template <typename T>
class Sharded : public gpu_test {};
using sharded_types = ::testing::Types<std::int32_t, std::uint8_t, std::int16_t, __half, __nv_bfloat16, float, double>;
struct type_names {
  template <typename T>
  static std::string GetName(int) {
    return type_name<T>();
  }
};
TYPED_TEST_SUITE(Sharded, sharded_types, type_names);

TYPED_TEST(Sharded, OneRankMatchesTheCpuReference) {
  const communicators c = on_current_device();
  ASSERT_TRUE(c.ok()) << "ncclCommInitAll failed";
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1023}, std::int64_t{1025}, std::int64_t{1000003}}) {
    check_sharded<TypeParam>(c, n, seed_for(std::string("sharded/1/") + type_name<TypeParam>(), n));
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(Sharded, EveryGpuAsARankWithUnevenAndEmptyShards) {
  const int gpus = device_count();
  if (gpus < 2) GTEST_SKIP() << "needs 2 or more CUDA devices; this machine has " << gpus;
  const communicators c = scale_test::on_every_gpu();
  ASSERT_TRUE(c.ok()) << "ncclCommInitAll failed";
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, std::int64_t{4099}, std::int64_t{3000017}}) {
    check_sharded<TypeParam>(c, n, seed_for(std::string("sharded/n/") + type_name<TypeParam>(), n));
    if (this->HasFailure()) return;
  }
}

// The exact sum over shards: the same bits as the exact sum of the whole array (the CPU's
// exact reference and the one-GPU sum_exact) for every kind of data, whatever the number of
// ranks and the split, on every rank; with a root, on the root.
template <typename T>
void check_exact_sharded(const communicators& c, int root) {
  using R = warpfold::float_sum_t<T>;
  const int ranks = static_cast<int>(c.devices.size());
  for (sum_modes_test::data_kind kind : sum_modes_test::all_kinds)
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{4097}, std::int64_t{3000017}}) {
      const std::vector<T> values = sum_modes_test::make_data<T>(n, seed_for(std::string("sharded/exact/") + type_name<T>(), n), kind);
      const R expected = exact_sum_reference(values.data(), n);
      std::vector<std::int64_t> start(ranks + 1, 0);
      for (int r = 1; r < ranks; ++r) start[r] = n * r / (ranks + 1);  // uneven: the last rank takes the most
      start[ranks] = n;
      std::vector<std::string> problems(ranks);
      on_every_rank(c, [&](int r) {
        const std::int64_t count = start[r + 1] - start[r];
        try {
          device_array<T> shard(static_cast<std::size_t>(std::max<std::int64_t>(count, 1)));
          if (count > 0) copy_to_device(shard.data(), values.data() + start[r], static_cast<std::size_t>(count));
          warpfold::shard_options options;
          options.root = root;
          const R got = warpfold::sum_exact_sharded(shard.data(), count, c.comms[r], options);
          if ((root < 0 || r == root) && !sum_modes_test::same_bits(got, expected))
            problems[r] = "got " + format_value(got) + ", expected " + format_value(expected);
          if (ranks == 1 && !sum_modes_test::same_bits(got, warpfold::sum_exact(shard.data(), count)))
            problems[r] += "; differs from warpfold::sum_exact";
        } catch (const std::exception& e) {
          problems[r] = std::string("threw: ") + e.what();
        }
      });
      for (int r = 0; r < ranks; ++r)
        EXPECT_EQ(problems[r], "") << type_name<T>() << " " << sum_modes_test::kind_name(kind) << " n = " << n << ", rank " << r
                                   << " of " << ranks;
    }
}

TEST(ShardedExact, OneRankIsTheExactSum) {
  WARPFOLD_REQUIRE_GPU();
  const communicators c = on_current_device();
  ASSERT_TRUE(c.ok());
  check_exact_sharded<float>(c, -1);
  check_exact_sharded<double>(c, -1);
  check_exact_sharded<__half>(c, 0);
  check_exact_sharded<__nv_bfloat16>(c, -1);
}

TEST(ShardedExact, EveryGpuAsARankGivesTheSameBits) {
  WARPFOLD_REQUIRE_GPU();
  const int gpus = device_count();
  if (gpus < 2) GTEST_SKIP() << "needs 2 or more CUDA devices; this machine has " << gpus;
  const communicators c = scale_test::on_every_gpu();
  ASSERT_TRUE(c.ok());
  for (int root : {-1, gpus - 1}) {
    check_exact_sharded<float>(c, root);
    check_exact_sharded<double>(c, root);
    check_exact_sharded<__half>(c, root);
    check_exact_sharded<__nv_bfloat16>(c, root);
  }
}

// argmin/argmax indices count from shard_options::first_index when it is given.
TEST(ShardedIndices, FirstIndexPlacesTheShard) {
  WARPFOLD_REQUIRE_GPU();
  const communicators c = on_current_device();
  ASSERT_TRUE(c.ok());
  const std::vector<float> values = {3.0f, -2.0f, 7.0f, -2.0f};
  const device_array<float> shard = upload(values);
  warpfold::shard_options at;
  at.first_index = std::int64_t{5} << 32;
  const auto lo = warpfold::argmin_sharded(shard.data(), 4, c.comms[0], at);
  EXPECT_EQ(lo.index, (std::int64_t{5} << 32) + 1);
  EXPECT_EQ(lo.value, -2.0f);
  const auto empty = warpfold::argmax_sharded(shard.data(), 0, c.comms[0], at);
  EXPECT_EQ(empty.index, -1) << "an empty array has no index, wherever it starts";
}

// The async form is one stretch of stream work: it can be captured and replayed.
TEST(ShardedGraphs, CapturedCallReplays) {
  WARPFOLD_REQUIRE_GPU();
  const communicators c = on_current_device();
  ASSERT_TRUE(c.ok());
  const std::int64_t n = 1 << 20;
  const std::vector<std::int32_t> values = make_values<std::int32_t>(n, seed_for("sharded/graph", n));
  std::int64_t expected = 0;
  for (std::int32_t v : values) expected += v;
  const device_array<std::int32_t> shard = upload(values);
  device_array<std::int64_t> out(1);
  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  warpfold::sum_sharded(shard.data(), n, out.data(), c.comms[0], stream);
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    WARPFOLD_TEST_CUDA(cudaMemsetAsync(out.data(), 0, sizeof(std::int64_t), stream));
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    std::int64_t got = 0;
    copy_to_host(&got, out.data(), 1);
    EXPECT_EQ(got, expected) << "replay " << replay;
  }
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST(ShardedBadInput, IsRefusedWithAClearError) {
  WARPFOLD_REQUIRE_GPU();
  const communicators c = on_current_device();
  ASSERT_TRUE(c.ok());
  std::vector<float> host(100, 1.0f);
  const device_array<float> shard = upload(host);
  expect_refused([&] { warpfold::sum_sharded(shard.data(), -1, c.comms[0]); }, "negative");
  expect_refused([&] { warpfold::sum_sharded(static_cast<const float*>(nullptr), 10, c.comms[0]); }, "null");
  expect_refused([&] { warpfold::sum_sharded(host.data(), 100, c.comms[0]); }, "not device memory");
  expect_refused([&] { warpfold::sum_sharded(shard.data(), 100, ncclComm_t{}); }, "communicator is null");
  warpfold::shard_options bad_root;
  bad_root.root = 1;
  expect_refused([&] { warpfold::sum_sharded(shard.data(), 100, c.comms[0], bad_root); }, "not a rank");
  expect_refused([&] { warpfold::sum_sharded(shard.data(), 100, static_cast<float*>(nullptr), c.comms[0], cudaStream_t{}); },
                 "output pointer is null");
}

TEST(ShardedBadInput, ACommunicatorOfAnotherDeviceIsRefused) {
  WARPFOLD_REQUIRE_GPU();
  if (device_count() < 2) GTEST_SKIP() << "needs 2 or more CUDA devices; this machine has " << device_count();
  int device = 0;
  WARPFOLD_TEST_CUDA(cudaGetDevice(&device));
  const device_array<float> shard = upload(std::vector<float>(100, 1.0f));
  const int other = device == 0 ? 1 : 0;
  const communicators elsewhere({other});
  ASSERT_TRUE(elsewhere.ok());
  expect_refused([&] { warpfold::sum_sharded(shard.data(), 100, elsewhere.comms[0]); }, "belongs to device");
}

// Ranks that call different gathered ops (argmin and argmax) exchange records of the same
// size, see the difference, and the blocking form says so on every rank.
TEST(ShardedBadInput, RanksThatDisagreeAreToldSo) {
  WARPFOLD_REQUIRE_GPU();
  const int gpus = device_count();
  if (gpus < 2) GTEST_SKIP() << "needs 2 or more CUDA devices; this machine has " << gpus;
  const communicators c({0, 1});
  ASSERT_TRUE(c.ok());
  std::vector<std::string> said(2);
  on_every_rank(c, [&](int r) {
    float* shard = nullptr;
    (void)cudaMalloc(&shard, 64 * sizeof(float));
    (void)cudaMemset(shard, 0, 64 * sizeof(float));
    try {
      if (r == 0) (void)warpfold::argmin_sharded(shard, 64, c.comms[r]);
      else (void)warpfold::argmax_sharded(shard, 64, c.comms[r]);
    } catch (const warpfold::invalid_argument& e) {
      said[r] = e.what();
    }
    (void)cudaFree(shard);
  });
  for (int r = 0; r < 2; ++r) EXPECT_NE(said[r].find("different ops"), std::string::npos) << "rank " << r << ": '" << said[r] << "'";
}

}  // namespace
