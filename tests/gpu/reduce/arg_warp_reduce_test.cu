// The warp layer's argmin/argmax (blocks/warp_reduce.cuh) agrees on the best value by integer
// keys and redux instructions rather than the op's tree. It must give exactly what the op gives
// folded over the 32 lanes in any order: checked here on lanes built to be hard for keys (NaNs
// of both signs, -0 and +0, infinities, the extreme integers, values that differ only in a
// 64-bit key's low word, equal values whose smaller index sits in a higher lane, indices above
// 2^32, empty lanes), against the op folded on the host.
#include <warpfold/blocks/warp_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;
using warpfold::value_index;

constexpr int lanes = warpfold::blocks::warp_size;

// One warp per case; lane 0 holds the result.
template <typename V, typename Op>
__global__ void reduce_each_warp(const value_index<V>* in, value_index<V>* out) {
  const int at = blockIdx.x * blockDim.x + threadIdx.x;
  out[at] = warpfold::blocks::warp_reduce(in[at], Op{});
}

template <typename V>
bool same_bits(const value_index<V>& a, const value_index<V>& b) {
  return a.index == b.index && std::memcmp(&a.value, &b.value, sizeof(V)) == 0;
}

template <typename V>
std::vector<V> awkward_values() {
  if constexpr (std::is_floating_point_v<V>) {
    const V inf = std::numeric_limits<V>::infinity();
    const V nan = std::numeric_limits<V>::quiet_NaN();
    return {V(0), -V(0), nan, -nan, inf, -inf, V(1), V(-1), std::nextafter(V(1), V(2)), std::numeric_limits<V>::denorm_min(),
            -std::numeric_limits<V>::denorm_min(), std::numeric_limits<V>::max(), std::numeric_limits<V>::lowest()};
  } else {
    std::vector<V> v = {std::numeric_limits<V>::min(), std::numeric_limits<V>::max(), V(0), V(1), V(std::numeric_limits<V>::max() - 1)};
    if constexpr (std::is_signed_v<V>) v.push_back(V(-1));
    if constexpr (sizeof(V) == 8) {  // the same high word, different low words; and the reverse
      v.push_back(static_cast<V>(0x0000000100000000ull));
      v.push_back(static_cast<V>(0x0000000100000001ull));
      v.push_back(static_cast<V>(0x00000000ffffffffull));
    }
    return v;
  }
}

template <typename V, typename Op>
void check_against_the_op(std::uint64_t seed) {
  constexpr int cases = 2048;
  std::mt19937_64 random(seed);
  const std::vector<V> values = awkward_values<V>();
  std::vector<value_index<V>> in(static_cast<std::size_t>(cases) * lanes);
  for (int c = 0; c < cases; ++c) {
    // Few distinct values per case, so that ties are common; lanes empty with a share that
    // varies by case, from none to all.
    const int distinct = 1 + static_cast<int>(random() % 4);
    V pick[4];
    for (V& p : pick) p = values[random() % values.size()];
    const unsigned empty_share = static_cast<unsigned>(c % 9);  // in eighths; 8 and up: all empty
    const std::int64_t base = (c % 3 == 0) ? (std::int64_t{5} << 32) - 16 : 0;  // indices across 2^32
    for (int lane = 0; lane < lanes; ++lane) {
      value_index<V>& e = in[static_cast<std::size_t>(c) * lanes + lane];
      if (random() % 8 < empty_share) {
        e = Op::template identity<value_index<V>>();
        continue;
      }
      e.value = pick[random() % distinct];
      // Unique indices, shuffled over the lanes, so the first index is often in a later lane.
      e.index = base + static_cast<std::int64_t>((lane * 7 + c) % lanes) * 3;
    }
  }
  device_array<value_index<V>> d_in(in.size()), d_out(in.size());
  copy_to_device(d_in.data(), in.data(), in.size());
  reduce_each_warp<V, Op><<<cases / 4, 4 * lanes>>>(d_in.data(), d_out.data());
  WARPFOLD_TEST_CUDA(cudaGetLastError());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<value_index<V>> out(in.size());
  copy_to_host(out.data(), d_out.data(), out.size());
  int failures = 0;
  for (int c = 0; c < cases && failures < 5; ++c) {
    value_index<V> expected = Op::template identity<value_index<V>>();
    for (int lane = 0; lane < lanes; ++lane) expected = Op{}(expected, in[static_cast<std::size_t>(c) * lanes + lane]);
    const value_index<V>& got = out[static_cast<std::size_t>(c) * lanes];
    if (expected.index < 0 ? got.index >= 0 : !same_bits(got, expected)) {
      ADD_FAILURE() << "case " << c << ": index " << got.index << ", expected " << expected.index;
      ++failures;
    }
  }
}

template <typename V>
class ArgWarpReduce : public gpu_test {};
using arg_value_types = ::testing::Types<float, double, std::int8_t, std::uint16_t, std::int32_t, std::uint32_t,
                                         std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(ArgWarpReduce, arg_value_types);

TYPED_TEST(ArgWarpReduce, ArgminMatchesTheOpFoldedOverTheLanes) {
  check_against_the_op<TypeParam, warpfold::op::argmin>(11);
}

TYPED_TEST(ArgWarpReduce, ArgmaxMatchesTheOpFoldedOverTheLanes) {
  check_against_the_op<TypeParam, warpfold::op::argmax>(12);
}

}  // namespace
