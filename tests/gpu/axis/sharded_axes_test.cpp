// warpfold::reduce_axes_sharded (sharded_axes.hpp): a global array split along one axis into
// uneven slabs (some empty), one per rank, reduced over axes that include the sharded one or
// keep it; every rank's output against the CPU reference of the global array (the axis tests'
// independent reference). One rank on one GPU; every GPU as a rank where there are several.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <warpfold/sharded_axes.hpp>

#define WARPFOLD_TEST_NCCL
#include "../scale/scale_test_util.hpp"
#include "axis_reference.hpp"
#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;
using scale_test::communicators;
using scale_test::device_count;
using scale_test::expect_refused;
using scale_test::on_current_device;
using scale_test::on_every_rank;

struct sharded_case {
  std::vector<std::int64_t> extents;  // the global array
  std::vector<int> reduce;
  int axis;  // the sharded one
};

// Uneven extents summing to `total`: rank r's share grows with r, so rank 0's is empty when
// the axis is short.
std::vector<std::int64_t> split(std::int64_t total, int ranks) {
  std::vector<std::int64_t> cuts(ranks + 1, 0);
  for (int r = 1; r < ranks; ++r) cuts[r] = total * r * r / (ranks * ranks);
  cuts[ranks] = total;
  std::vector<std::int64_t> extents;
  for (int r = 0; r < ranks; ++r) extents.push_back(cuts[r + 1] - cuts[r]);
  return extents;
}

// Rank r's slab of the row-major global array, row-major itself.
template <typename T>
std::vector<T> slab_of(const std::vector<T>& global, const std::vector<std::int64_t>& extents, int axis, std::int64_t first,
                       std::int64_t count) {
  std::int64_t outer = 1, inner = 1;
  for (int a = 0; a < axis; ++a) outer *= extents[a];
  for (std::size_t a = axis + 1; a < extents.size(); ++a) inner *= extents[a];
  std::vector<T> slab;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = first; j < first + count; ++j)
      for (std::int64_t i = 0; i < inner; ++i) slab.push_back(global[(o * extents[axis] + j) * inner + i]);
  return slab;
}

template <typename Op, typename T>
void check_case(const communicators& c, const sharded_case& k, int root, std::uint64_t seed) {
  using R = warpfold::axis_result_t<Op, T>;
  const int ranks = static_cast<int>(c.devices.size());
  std::int64_t total = 1;
  for (std::int64_t e : k.extents) total *= e;
  const std::vector<T> global = make_values<T>(total, seed);
  const axis_test::layout l = axis_test::make_layout(k.extents, k.reduce);
  const auto expected = axis_test::expected_for<Op, T>(global.data(), l);
  warpfold::shard_layout layout{k.axis, split(k.extents[k.axis], ranks)};
  std::vector<std::string> problems(ranks);
  on_every_rank(c, [&](int r) {
    std::int64_t first = 0;
    for (int q = 0; q < r; ++q) first += layout.extents[q];
    std::vector<std::int64_t> local_extents = k.extents;
    local_extents[k.axis] = layout.extents[r];
    const std::vector<T> slab = slab_of(global, k.extents, k.axis, first, layout.extents[r]);
    try {
      const warpfold::shape local(local_extents);
      const std::int64_t outputs = warpfold::reduced_shape_sharded(local, warpfold::axes(k.reduce), layout).elements();
      if (outputs != l.outputs()) {
        problems[r] = "reduced_shape_sharded gives " + std::to_string(outputs) + " outputs, expected " + std::to_string(l.outputs());
        return;
      }
      device_array<T> d_slab(std::max<std::size_t>(slab.size(), 1));
      if (!slab.empty()) copy_to_device(d_slab.data(), slab.data(), slab.size());
      device_array<R> d_out(static_cast<std::size_t>(std::max<std::int64_t>(outputs, 1)));
      cudaStream_t stream;
      WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
      warpfold::reduce_axes_sharded<Op, T>(d_slab.data(), local, warpfold::axes(k.reduce), layout, d_out.data(), outputs,
                                           c.comms[r], stream, root);
      WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
      WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
      if (root >= 0 && r != root) return;  // another rank keeps its own part
      const std::vector<R> got = download(d_out.data(), static_cast<std::size_t>(outputs));
      const ::testing::AssertionResult m = axis_test::matches_all(expected, got, l);
      if (!m) problems[r] = m.message();
      // The blocking form, contiguous, and through a view with the row-major strides.
      if (root < 0) {
        const std::vector<R> blocking = warpfold::reduce_axes_sharded<Op, T>(d_slab.data(), local, warpfold::axes(k.reduce),
                                                                             layout, c.comms[r]);
        const ::testing::AssertionResult b = axis_test::matches_all(expected, blocking, l);
        if (!b) problems[r] += std::string("\n  blocking form: ") + b.message();
      }
    } catch (const std::exception& e) {
      problems[r] = std::string("threw: ") + e.what();
    }
  });
  for (int r = 0; r < ranks; ++r)
    EXPECT_EQ(problems[r], "") << "rank " << r << " of " << ranks << ": " << l.text << " sharded along " << k.axis << ", root "
                               << root;
}

// Cases where the sharded axis is reduced, and where it is kept: as the first kept axis (the
// slabs are whole runs of the output) and after another kept one (they interleave).
std::vector<sharded_case> cases() {
  return {
      {{37, 1000}, {1}, 1},          // row sums of a matrix split by columns: reduced
      {{37, 1000}, {0}, 1},          // column sums of the same: kept, first kept axis
      {{6, 50, 9}, {0, 2}, 1},       // kept, first kept axis
      {{6, 50, 9}, {2}, 1},          // kept after axis 0: interleaved slabs
      {{6, 50, 9}, {1}, 1},          // reduced, outputs on both sides
      {{4, 7, 5, 33}, {0, 3}, 3},    // reduced, argmin/argmax indices shift by the slab's start
      {{40, 3, 5, 2}, {0, 2}, 0},    // reduced, the sharded axis first among the reduced ones
      {{1000003}, {0}, 0},           // a vector: the full reduction by another road
  };
}

template <typename T>
void check_every_case(const communicators& c, int root) {
  for (const sharded_case& k : cases()) {
    const std::uint64_t seed = seed_for(std::string("sharded-axes/") + type_name<T>(), k.extents.back() * 31 + k.axis);
    check_case<warpfold::op::sum, T>(c, k, root, seed);
    check_case<warpfold::op::argmax, T>(c, k, root, seed);
    check_case<warpfold::op::min, T>(c, k, root, seed);
    if constexpr (is_integer_v<T>) check_case<warpfold::op::bit_or, T>(c, k, root, seed);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ShardedAxes, OneRankMatchesTheGlobalReference) {
  WARPFOLD_REQUIRE_GPU();
  const communicators c = on_current_device();
  ASSERT_TRUE(c.ok());
  check_every_case<float>(c, -1);
  check_every_case<std::int32_t>(c, -1);
  check_every_case<__half>(c, 0);
}

TEST(ShardedAxes, EveryGpuAsARankWithUnevenAndEmptySlabs) {
  WARPFOLD_REQUIRE_GPU();
  const int gpus = device_count();
  if (gpus < 2) GTEST_SKIP() << "needs 2 or more CUDA devices; this machine has " << gpus;
  const communicators c = scale_test::on_every_gpu();
  ASSERT_TRUE(c.ok());
  for (int root : {-1, 0, gpus - 1}) {
    check_every_case<float>(c, root);
    check_every_case<std::int32_t>(c, root);
    check_every_case<std::uint8_t>(c, root);
    check_every_case<__nv_bfloat16>(c, root);
  }
}

TEST(ShardedAxes, BadLayoutsAreRefused) {
  WARPFOLD_REQUIRE_GPU();
  const communicators c = on_current_device();
  ASSERT_TRUE(c.ok());
  const device_array<float> slab(100);
  device_array<float> out(100);
  const warpfold::shape local{10, 10};
  auto call = [&](const warpfold::shard_layout& layout, warpfold::axes reduce, std::int64_t capacity) {
    warpfold::sum_axes_sharded(slab.data(), local, reduce, layout, out.data(), capacity, c.comms[0], cudaStream_t{});
  };
  expect_refused([&] { call({2, {10}}, {0}, 10); }, "out of range");
  expect_refused([&] { call({1, {10, 10}}, {0}, 10); }, "2 extents for 1 ranks");
  expect_refused([&] { call({1, {-10}}, {0}, 10); }, "negative extent");
  expect_refused([&] { call({1, {12}}, {0}, 12); }, "has extent 10 along axis 1");
  expect_refused([&] { call({1, {10}}, {0}, 9); }, "the output holds 9 values");
  expect_refused([&] { call({1, {10}}, {1}, 9); }, "the output holds 9 values");
  expect_refused([&] { call({1, {10}}, {5}, 10); }, "axis");
  EXPECT_NO_THROW(call({-1, {10}}, {0}, 10)) << "a negative layout axis counts from the end";
  EXPECT_NO_THROW(call({0, {10}}, {0}, 10));
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
}

}  // namespace
