// The fold of a 16-byte vector's items (blocks/vector_fold.cuh) widens halves and bfloat16s two
// at a time from the 32-bit words that hold them (widen_pair), instead of one item at a time.
// Checked here: every one of the 65536 bit patterns of each type, in both halves of a word,
// against CUDA's own host conversion (__half2float, __bfloat162float); and the masked fold of
// items [lo, hi) (fold_vector_range, used where a vector straddles a row's ends) against the
// items added one at a time on the host in the same order, for every lo <= hi, bit for bit.
#include <warpfold/blocks/thread_reduce.cuh>
#include <warpfold/blocks/vector_fold.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;
namespace blocks = warpfold::blocks;

// Pattern p in the low half of word p, pattern p ^ 0x5a5a in its high half.
template <typename T>
__global__ void widen_every_pattern(float2* out) {
  const unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= 65536u) return;
  out[p] = blocks::widen_pair<T>(p | ((p ^ 0x5a5au) << 16));
}

template <typename T>
float host_widen(std::uint16_t bits) {
  T x;
  std::memcpy(&x, &bits, sizeof(x));
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else {
    return __bfloat162float(x);
  }
}

bool same_float(float got, float expected) {
  if (std::isnan(expected)) return std::isnan(got);
  return std::memcmp(&got, &expected, sizeof(float)) == 0;
}

template <typename T>
void check_every_pattern() {
  device_array<float2> d_out(65536);
  widen_every_pattern<T><<<256, 256>>>(d_out.data());
  WARPFOLD_TEST_CUDA(cudaGetLastError());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<float2> out(65536);
  copy_to_host(out.data(), d_out.data(), out.size());
  int failures = 0;
  for (unsigned p = 0; p < 65536u && failures < 5; ++p) {
    const float low = host_widen<T>(static_cast<std::uint16_t>(p));
    const float high = host_widen<T>(static_cast<std::uint16_t>(p ^ 0x5a5au));
    if (!same_float(out[p].x, low) || !same_float(out[p].y, high)) {
      ADD_FAILURE() << "pattern " << p << ": " << out[p].x << ", " << out[p].y << " against " << low << ", " << high;
      ++failures;
    }
  }
}

constexpr int V = blocks::vector16<__half>::size;  // 8 items, bfloat16 too

// Vector v, items [lo, hi) with lo = r / 9 and hi = r % 9 for r = 0 .. 80 (hi < lo: empty),
// folded into a start value of 0.5.
template <typename T>
__global__ void fold_every_range(const blocks::vector16<T>* in, float* out) {
  const int v = blockIdx.x;
  const int r = threadIdx.x;
  if (r >= 81) return;
  out[v * 81 + r] = blocks::fold_vector_range(warpfold::op::sum{}, 0.5f, in[v].items, 0, r / 9, r % 9,
                                              blocks::convert_to<float>{});
}

template <typename T>
void check_every_range(std::uint64_t seed) {
  constexpr int vectors = 64;
  std::mt19937_64 random(seed);
  std::vector<blocks::vector16<T>> in(vectors);
  for (auto& v : in)
    for (T& x : v.items) {
      // Values of many magnitudes, so that the order of the adds shows in the bits.
      const float value = std::ldexp(static_cast<float>(static_cast<int>(random() % 2001) - 1000), -static_cast<int>(random() % 24));
      x = T(value);
    }
  device_array<blocks::vector16<T>> d_in(in.size());
  device_array<float> d_out(in.size() * 81);
  copy_to_device(d_in.data(), in.data(), in.size());
  fold_every_range<T><<<vectors, 96>>>(d_in.data(), d_out.data());
  WARPFOLD_TEST_CUDA(cudaGetLastError());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(in.size() * 81);
  copy_to_host(out.data(), d_out.data(), out.size());
  int failures = 0;
  for (int v = 0; v < vectors && failures < 5; ++v)
    for (int r = 0; r < 81 && failures < 5; ++r) {
      float expected = 0.5f;
      for (int k = r / 9; k < r % 9 && k < V; ++k) expected += static_cast<float>(in[v].items[k]);
      if (!same_float(out[v * 81 + r], expected)) {
        ADD_FAILURE() << "vector " << v << ", items [" << r / 9 << ", " << r % 9 << "): " << out[v * 81 + r]
                      << " against " << expected;
        ++failures;
      }
    }
}

template <typename T>
class VectorRangeFold : public gpu_test {};
using two_byte_floats = ::testing::Types<__half, __nv_bfloat16>;
TYPED_TEST_SUITE(VectorRangeFold, two_byte_floats);

TYPED_TEST(VectorRangeFold, WidensEveryBitPatternAsCudaDoes) { check_every_pattern<TypeParam>(); }

TYPED_TEST(VectorRangeFold, FoldsEveryRangeOfItemsInOrder) { check_every_range<TypeParam>(21); }

}  // namespace
