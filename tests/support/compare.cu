// The one kernel in the test support: compares two device ranges byte for byte without
// copying them to the host. It exists for speed only (the Large tests check a 10^8-element
// input after each of 150 calls: on the host that is ~100 GB over PCIe, here ~1 GB of device
// reads per check), so it is deliberately plain: a grid-stride loop of 16-byte loads.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "warpfold_test/device_memory.hpp"

namespace warpfold_test {
namespace {

__global__ void count_differing_words(const uint4* a, const uint4* b, std::size_t words,
                                      unsigned long long* differing, unsigned long long* first) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
    const uint4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) {
      atomicAdd(differing, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

}  // namespace

byte_comparison compare_device_bytes(const void* a, const void* b, std::size_t bytes) {
  byte_comparison result;
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  const bool aligned = reinterpret_cast<std::uintptr_t>(a) % 16 == 0 && reinterpret_cast<std::uintptr_t>(b) % 16 == 0;
  const std::size_t words = aligned ? bytes / 16 : 0;

  if (words > 0) {
    device_array<unsigned long long> counters(2);  // differing, first
    const unsigned long long init[2] = {0ull, ~0ull};
    copy_to_device(counters.data(), init, 2);
    const int block = 256;
    const int grid = static_cast<int>(std::min<std::size_t>((words + block - 1) / block, 4096));
    count_differing_words<<<grid, block>>>(static_cast<const uint4*>(a), static_cast<const uint4*>(b), words,
                                           counters.data(), counters.data() + 1);
    WARPFOLD_TEST_CUDA(cudaGetLastError());
    unsigned long long out[2];
    copy_to_host(out, counters.data(), 2);  // synchronizes
    result.differing_words = static_cast<std::int64_t>(out[0]);
    if (out[0] > 0) {
      // Narrow the first differing word down to its first differing byte.
      unsigned char wa[16], wb[16];
      copy_to_host(wa, pa + out[1] * 16, 16);
      copy_to_host(wb, pb + out[1] * 16, 16);
      int k = 0;
      while (k < 15 && wa[k] == wb[k]) ++k;
      result.first_difference = static_cast<std::int64_t>(out[1] * 16 + k);
    }
  }
  // The tail that does not fill a 16-byte word (or everything, for unaligned ranges).
  const std::size_t tail_begin = words * 16;
  if (tail_begin < bytes) {
    const std::size_t tail = bytes - tail_begin;
    std::vector<unsigned char> ta(tail), tb(tail);
    copy_to_host(ta.data(), pa + tail_begin, tail);
    copy_to_host(tb.data(), pb + tail_begin, tail);
    for (std::size_t k = 0; k < tail; ++k) {
      if (ta[k] != tb[k]) {
        ++result.differing_words;
        if (result.first_difference < 0) result.first_difference = static_cast<std::int64_t>(tail_begin + k);
      }
    }
  }
  return result;
}

}  // namespace warpfold_test
