// Varied input values from a hash of the index: see gpu.hpp for the ranges. The host
// reference never uses this formula; it sums a copy of the filled buffer.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

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

template <typename T>
__global__ void fill_kernel(T* data, std::int64_t count, std::uint64_t seed) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::uint64_t key = mix64(seed + 0x9e3779b97f4a7c15ull);
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    data[i] = value_from_hash<T>(mix64(key ^ static_cast<std::uint64_t>(i)));
}

template <typename T>
void launch_fill(void* d_data, std::int64_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  constexpr int block = 256;
  const std::int64_t wanted = (count + block - 1) / block;
  const int grid = static_cast<int>(wanted < 65536 ? wanted : 65536);
  fill_kernel<T><<<grid, block, 0, stream>>>(static_cast<T*>(d_data), count, seed);
  WARPFOLD_CHECK_LAUNCH();
}

}  // namespace

void fill_varied(dtype type, void* d_data, std::int64_t count, std::uint64_t seed, cudaStream_t stream) {
  visit_dtype(type, [&](auto tag) { launch_fill<typename decltype(tag)::type>(d_data, count, seed, stream); });
}

}  // namespace warpfold::bench
