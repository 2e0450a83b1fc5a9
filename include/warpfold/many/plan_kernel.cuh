// First of the two kernels of a many-array reduction: one block reads the list once, checks
// it, and writes the plan that the second kernel's blocks need (many/layout.cuh): where each
// array starts in the sequence of all elements, and the first array of each block. Reading
// the list once here costs less than every block of the second kernel reading all of it.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/many/layout.cuh"

namespace warpfold::many {

inline constexpr int plan_block = 1024;

template <typename Entry>
__global__ void __launch_bounds__(plan_block)
    plan_kernel(const Entry* list, layout l, unsigned char* partials, std::int64_t* status) {
  using scan = cub::BlockScan<long long, plan_block>;
  __shared__ typename scan::TempStorage scan_storage;
  __shared__ long long carry;
  __shared__ unsigned long long first_invalid;
  blocks::wait_for_prior_kernels();
  auto* prefix = reinterpret_cast<std::int64_t*>(partials + l.prefix_offset);
  auto* first_array = reinterpret_cast<std::int64_t*>(partials + l.first_array_offset);
  const std::int64_t A = l.arrays, G = l.blocks;
  if (threadIdx.x == 0) {
    carry = 0;
    first_invalid = ~0ull;
  }
  __syncthreads();
  for (std::int64_t base = 0; base < A; base += plan_block) {
    const std::int64_t a = base + threadIdx.x;
    long long size = 0;
    if (a < A) {
      const Entry entry = list[a];
      if (entry.size < 0 || (entry.size > 0 && lacks_data(entry))) atomicMin(&first_invalid, static_cast<unsigned long long>(a));
      size = entry.size > 0 ? entry.size : 0;
    }
    long long before, tile_total;
    scan(scan_storage).ExclusiveSum(size, before, tile_total);
    if (a < A) prefix[a] = carry + before;
    __syncthreads();  // everyone has read carry
    if (threadIdx.x == 0) carry += tile_total;
    __syncthreads();
  }
  const bool invalid = first_invalid != ~0ull;
  const std::int64_t n = carry;
  if (threadIdx.x == 0) {
    prefix[A] = invalid ? -1 : n;
    if (status != nullptr) *status = invalid ? static_cast<std::int64_t>(first_invalid) : -1;
  }
  // first_array[b] = the first array whose last block is b or later. Blocks that no array
  // reaches (possible only when there are no elements) get A: no pieces.
  for (std::int64_t b = threadIdx.x; b < G; b += plan_block) first_array[b] = A;
  __syncthreads();  // prefix is complete and visible to the block
  for (std::int64_t a = threadIdx.x; a < A && !invalid; a += plan_block) {
    const std::int64_t last = blocks_of(prefix[a], prefix[a + 1], n, G).last;
    const std::int64_t previous_last = a == 0 ? -1 : blocks_of(prefix[a - 1], prefix[a], n, G).last;
    for (std::int64_t b = previous_last + 1; b <= last; ++b) first_array[b] = a;
  }
  blocks::allow_dependent_launch();
}

}  // namespace warpfold::many
