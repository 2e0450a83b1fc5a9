// Varied input values from a hash of the index: see gpu.hpp for the ranges. The host
// reference never uses this formula; it sums a copy of the filled buffer.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bench/dtype_types.hpp"
#include "bench/gpu.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

// splitmix64's finalizer: every input bit affects every output bit.
__device__ __forceinline__ std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

template <typename T>
__device__ __forceinline__ T value_from_hash(std::uint64_t h);

template <>
__device__ __forceinline__ std::int32_t value_from_hash<std::int32_t>(std::uint64_t h) {
  return static_cast<std::int32_t>(h >> 39) - (1 << 24);  // 25 bits, centred on 0
}
template <>
__device__ __forceinline__ float value_from_hash<float>(std::uint64_t h) {
  return static_cast<float>(h >> 40) * 0x1p-24f;
}
template <>
__device__ __forceinline__ double value_from_hash<double>(std::uint64_t h) {
  return static_cast<double>(h >> 11) * 0x1p-53;
}
template <>
__device__ __forceinline__ __half value_from_hash<__half>(std::uint64_t h) {
  return __float2half_rn(static_cast<float>(h >> 53) * 0x1p-11f);
}
template <>
__device__ __forceinline__ __nv_bfloat16 value_from_hash<__nv_bfloat16>(std::uint64_t h) {
  return __float2bfloat16_rn(static_cast<float>(h >> 56) * 0x1p-8f);
}

// The other spreads (dtype.hpp: value_spread), computed in double and rounded to T.
template <typename T>
struct exponent_range;  // of normal values: [min, max]
template <> struct exponent_range<float> { static constexpr int min = -126, max = 127, subnormal_bits = 23; };
template <> struct exponent_range<double> { static constexpr int min = -1022, max = 1023, subnormal_bits = 52; };
template <> struct exponent_range<__half> { static constexpr int min = -14, max = 15, subnormal_bits = 10; };
template <> struct exponent_range<__nv_bfloat16> { static constexpr int min = -126, max = 127, subnormal_bits = 7; };

template <typename T>
__device__ __forceinline__ T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(static_cast<float>(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(static_cast<float>(x));
  else return static_cast<T>(x);
}

template <typename T>
__device__ __forceinline__ T spread_value(std::uint64_t h, value_spread spread) {
  const double unit = static_cast<double>(h >> 11) * 0x1p-53;  // [0, 1)
  const double sign = (h & 1) != 0 ? -1.0 : 1.0;
  if (spread == value_spread::normal) {  // Box-Muller, from two halves of a second hash
    const std::uint64_t g = mix64(h);
    const double u1 = (static_cast<double>(g >> 40) + 1.0) * 0x1p-24, u2 = static_cast<double>(g & 0xffffff) * 0x1p-24;
    return from_double<T>(sqrt(-2.0 * log(u1)) * cospi(2.0 * u2));
  }
  using range = exponent_range<T>;
  int low, high;
  // (1 + unit) * 2^high must round below the largest finite value; half sums accumulate in
  // float, so half may go up to its top binade.
  if (spread == value_spread::wide) {
    low = max(-40, range::min);
    high = min(40, range::max - 1);
  } else {  // full: subnormals too, up to 2^32 below the largest
    low = range::min - range::subnormal_bits;
    high = range::max - 32 > range::min ? range::max - 32 : range::max - 1;
  }
  const int e = low + static_cast<int>((h >> 1) % static_cast<std::uint64_t>(high - low + 1));
  return from_double<T>(sign * scalbn(1.0 + unit, e));
}

template <typename T>
__global__ void fill_kernel(T* data, std::int64_t count, std::uint64_t seed, value_spread spread) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::uint64_t key = mix64(seed + 0x9e3779b97f4a7c15ull);
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::uint64_t h = mix64(key ^ static_cast<std::uint64_t>(i));
    if constexpr (std::is_integral_v<T>) {
      data[i] = value_from_hash<T>(h);
    } else {
      data[i] = spread == value_spread::uniform ? value_from_hash<T>(h) : spread_value<T>(h, spread);
    }
  }
}

template <typename T>
__global__ void fill_near_one_kernel(T* data, std::int64_t count, std::uint64_t seed, std::uint64_t moved_below) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::uint64_t key = mix64(seed + 0x9e3779b97f4a7c15ull);
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::uint64_t h = mix64(key ^ static_cast<std::uint64_t>(i));
    double magnitude = 1.0;
    if ((h >> 2) < moved_below) magnitude = (h & 2) != 0 ? 1.0 + 0x1p-7 : 1.0 - 0x1p-7;
    data[i] = from_double<T>((h & 1) != 0 ? -magnitude : magnitude);
  }
}

// Both fills: 256-thread blocks, a thread per element up to 65536 blocks, then grid-stride.
constexpr int fill_block = 256;
int fill_grid(std::int64_t count) {
  const std::int64_t wanted = (count + fill_block - 1) / fill_block;
  return static_cast<int>(wanted < 65536 ? wanted : 65536);
}

template <typename T>
void launch_fill(void* d_data, std::int64_t count, std::uint64_t seed, cudaStream_t stream, value_spread spread) {
  if (count == 0) return;
  fill_kernel<T><<<fill_grid(count), fill_block, 0, stream>>>(static_cast<T*>(d_data), count, seed, spread);
  WARPFOLD_CHECK_LAUNCH();
}

}  // namespace

void fill_near_one(dtype type, void* d_data, std::int64_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  visit_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      throw invalid_argument("fill_near_one: float types only");
    } else {
      const double share = near_one_moved(count) / static_cast<double>(count);
      const auto moved_below = static_cast<std::uint64_t>(share * 0x1p62);
      fill_near_one_kernel<T><<<fill_grid(count), fill_block, 0, stream>>>(static_cast<T*>(d_data), count, seed, moved_below);
      WARPFOLD_CHECK_LAUNCH();
    }
  });
}

void fill_varied(dtype type, void* d_data, std::int64_t count, std::uint64_t seed, cudaStream_t stream, value_spread spread) {
  visit_dtype(type, [&](auto tag) { launch_fill<typename decltype(tag)::type>(d_data, count, seed, stream, spread); });
}

}  // namespace warpfold::bench
