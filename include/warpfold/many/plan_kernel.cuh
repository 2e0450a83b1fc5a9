// The plan of a many-array reduction (many/layout.cuh): where each array starts in the
// sequence of all elements, and the first array of each block, after checking the list.
// - Lists of up to block_plan_max_arrays: every block of the reduction kernel makes the plan
//   itself (plan_in_block), into shared memory. The call is then one kernel, and no block
//   waits on a single block that reads the list tile by tile.
// - Longer lists: a kernel of its own (plan_kernel), one block that reads the list once and
//   writes the plan to scratch memory, where every block of the reduction kernel could not
//   afford to read all of it.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/many/layout.cuh"

namespace warpfold::many {

inline constexpr int plan_block = 1024;

// What both plans ask of an entry: whether it is invalid (a negative size, or elements but no
// data), and how many elements it puts in the sequence.
template <typename Entry>
WARPFOLD_DEVICE bool invalid_entry(const Entry& entry) {
  return entry.size < 0 || (entry.size > 0 && lacks_data(entry));
}
template <typename Entry>
WARPFOLD_DEVICE long long counted_elements(const Entry& entry) {
  return entry.size > 0 ? entry.size : 0;
}

// Each block's own plan, for lists of up to block_plan_max_arrays: prefix (shared memory,
// A + 1 entries) as plan_kernel writes it, and the first array with a piece in block `b`
// (A if none). Block 0 writes the status. Every thread of the block calls it.
//
// What it costs, and three ways that did not pay (H100, 2026-11-24; clock64 marks per block in a
// copy of the kernel, per-array L2 norms of the 5,000-array list, 25-26 us a call): the plan
// took 7.6 us of each block's time (median), 3.7 us to load the sizes and 2.5 us to scan them
// and find the block's first array; then the pieces 2.8 us, their loads 3.4-4.2 us, the slots
// and fence 2.7-3.1 us, finishing 2 us. The kernel issued 2,100 instructions per warp and
// its warps spent a third of their stalls at barriers (ncu).
// - Blocks reading the list from different starting points (so that they would not all ask
//   the same L2 lines at once) made the loads slower: 6.1 us.
// - Clusters of 8 blocks sharing the reading (each block a part, the rest copied from the
//   others' shared memory) read an eighth as much, but each round of reads of another block's
//   shared memory took microseconds there: the plan grew to 12-15 us.
// - Fences only in the threads that wrote slots or totals (many_kernel.cuh), not in all 512
//   three times a batch: 6% off a synthetic list of 148 arrays of up to 2^20 floats in the
//   copy, but the three lists of `warpfold many` ran as before (175.1, 25.5 and 246.5 us a
//   call, against 175.6, 24.2 and 246.6 in the committed run).
template <int Threads, typename Entry>
WARPFOLD_DEVICE void plan_in_block(const Entry* list, std::int64_t A, std::int64_t G, std::int64_t b,
                                   std::int64_t* prefix, std::int64_t* status, std::int64_t& first_array) {
  // Warp scans: a few hundred bytes of shared memory, where the default (raking) takes 4 KB.
  // The reduction kernel's shared memory decides how the SM splits its storage between shared
  // memory and L1, and the larger share cost GPT-2 small's list 4% (H100, 2026-11-24).
  using scan = cub::BlockScan<long long, Threads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename scan::TempStorage scan_storage;
  __shared__ unsigned long long first_invalid;
  if (threadIdx.x == 0) {
    first_invalid = ~0ull;
    first_array = A;
  }
  __syncthreads();
  // The sizes: each thread issues its loads for up to `batch` entries before it looks at any,
  // and keeps its own first invalid entry. A loop that checked each entry as it came (with the
  // shared-memory atomic in the loop) waited on L2 once per entry: up to 16 round trips per
  // block for the longest lists planned here (ncu, H100, 2026-11-24: a fifth of the kernel's
  // stall samples on the 5,000-array list).
  constexpr int batch = 8;
  unsigned long long own_invalid = ~0ull;
  for (std::int64_t base = threadIdx.x; base < A; base += std::int64_t{batch} * Threads) {
    Entry entries[batch];
#pragma unroll
    for (int u = 0; u < batch; ++u)
      if (base + u * Threads < A) entries[u] = list[base + u * Threads];
#pragma unroll
    for (int u = 0; u < batch; ++u) {
      const std::int64_t a = base + u * Threads;
      if (a >= A) break;
      if (invalid_entry(entries[u]) && own_invalid == ~0ull) own_invalid = static_cast<unsigned long long>(a);
      prefix[a] = counted_elements(entries[u]);
    }
  }
  if (own_invalid != ~0ull) atomicMin(&first_invalid, own_invalid);
  __syncthreads();
  // Each thread a run of consecutive arrays: its sum, one block scan, then its starts.
  const std::int64_t per_thread = (A + Threads - 1) / Threads;
  const std::int64_t run_begin = threadIdx.x * per_thread < A ? threadIdx.x * per_thread : A;
  const std::int64_t run_end = run_begin + per_thread < A ? run_begin + per_thread : A;
  long long own = 0;
  for (std::int64_t a = run_begin; a < run_end; ++a) own += prefix[a];
  long long start, n;
  scan(scan_storage).ExclusiveSum(own, start, n);
  for (std::int64_t a = run_begin; a < run_end; ++a) {
    const long long size = prefix[a];
    prefix[a] = start;
    start += size;
  }
  const bool invalid = first_invalid != ~0ull;
  if (threadIdx.x == 0) {
    prefix[A] = invalid ? -1 : n;
    if (status != nullptr && b == 0) *status = invalid ? static_cast<std::int64_t>(first_invalid) : -1;
  }
  __syncthreads();  // every start is in place
  // The first array whose last block is b or later; last blocks grow with the array, so one
  // thread's run holds it, and that thread looks through its run.
  if (!invalid && run_begin < run_end) {
    auto last_block = [&](std::int64_t a) { return blocks_of(prefix[a], a + 1 < A ? prefix[a + 1] : n, n, G).last; };
    const std::int64_t before = run_begin == 0 ? -1 : last_block(run_begin - 1);
    if (before < b && last_block(run_end - 1) >= b)
      for (std::int64_t a = run_begin; a < run_end; ++a)
        if (last_block(a) >= b) {
          first_array = a;
          break;
        }
  }
  __syncthreads();
}

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
      if (invalid_entry(entry)) atomicMin(&first_invalid, static_cast<unsigned long long>(a));
      size = counted_elements(entry);
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
