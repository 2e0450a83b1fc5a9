// The plan of a many-array reduction (many/layout.cuh): where each array starts in the
// sequence of all elements, and the first array of each block, after checking the list.
// - Lists of up to block_plan_max_arrays: every block of the reduction kernel makes the plan
//   itself (plan_in_block), into shared memory. The call is then one kernel, and no block
//   waits on another.
// - Longer lists: a kernel of its own (plan_kernel), one cluster of blocks on as many SMs that
//   share the reading of the list and write the plan to scratch memory, where every block of
//   the reduction kernel could not afford to read all of it. The extra launch costs 4-7 us
//   a call (H100, 2026-11-25: a list of one array, 8.6 us a call planned in each block, 12.4
//   us with a one-block plan kernel, 15.5 us with the cluster), which is why the shorter
//   lists plan in every block even though each block then reads the whole list.
#pragma once

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/many/layout.cuh"

namespace warpfold::many {

inline constexpr int plan_block = 512;

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
//   call, against 175.6, 24.2 and 246.6 in the committed run). The kernel fences that way
//   since 2026-11-25, with its combined result taken from the blocks (many_kernel.cuh).
// The same marks on 2026-11-25, after those changes and with the runs below made odd (25.9 us
// a call with the marks): plan 7.0 us (p10-p90 5.3-8.3), pieces 2.9, units 0.7, loads 3.4,
// tickets and the block's combine 3.6, finishing 1.4, the last block's combine 0.7. The plan
// is bounded by what an SM reads from L2: two blocks of 80 KB of list each. One block of
// 1,024 threads per SM halves that (5,000 arrays: 24.2 -> 22.6 us a call) but costs every
// list about 3 us more of fixed time (one array: 8.6 -> 11.4 us; GPT-2 small's 175.1 ->
// 178.3 us), so it was not kept.
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
  // Odd, so that the threads of a warp read their runs' 8-byte words from different banks (a
  // run of 16 put every thread of a warp on one bank: 8,000 arrays took twice as long).
  const std::int64_t per_thread = ((A + Threads - 1) / Threads) | 1;
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
    auto last_block = [&](std::int64_t a) { return last_block_of(prefix[a], a + 1 < A ? prefix[a + 1] : n, n, G); };
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

// The plan kernel's blocks read their arrays a tile of plan_tile arrays at a time. Each thread
// issues the loads of its plan_loads entries of a tile before it looks at any, so a tile is one
// round trip to memory; the sizes are then scanned in runs of plan_loads per thread. A block
// needs its arrays' total first (where each block's range starts depends on all of them), then
// the starts and the last block of each array: arrays of one tile are read once, more are read
// twice, tile by tile. Each array costs one division (its last block), read back from shared memory by its
// successor. H100, 2026-11-25, per-array L2 norms, a call, 20,000 arrays of up to 1,024 floats
// and 60,000 of up to 256: 64.5 and 163 us with the plan before (one block, tiles of 1,024,
// four divisions an array, the starts read back from global memory); 54.5 and 126 us with one
// block as here; 28.8 and 44.2 us with the cluster of eight.
inline constexpr int plan_loads = 16;
inline constexpr int plan_tile = plan_block * plan_loads;
// Thread t's run of plan_loads sizes is at t * (plan_loads + 1): an odd stride in 8-byte words,
// so that a warp's threads read their runs from different banks.
inline constexpr int plan_stride = plan_loads + 1;
inline constexpr int plan_tile_words = plan_block * plan_stride;
inline constexpr std::size_t plan_shared_bytes = sizeof(long long) * plan_tile_words + sizeof(int) * plan_tile;
WARPFOLD_HOST_DEVICE constexpr int plan_word(int i) { return i / plan_loads * plan_stride + i % plan_loads; }

// Loads a tile's entries (arrays base, base + plan_block, ... below `end` for this thread),
// keeps the thread's first invalid one, and returns their element counts' sum; with `tile`,
// also puts the counts there.
template <typename Entry>
WARPFOLD_DEVICE long long load_plan_tile(const Entry* list, std::int64_t end, std::int64_t base, long long* tile,
                                         unsigned long long& own_invalid) {
  Entry entries[plan_loads];
#pragma unroll
  for (int u = 0; u < plan_loads; ++u) {
    const std::int64_t a = base + u * plan_block + threadIdx.x;
    if (a < end) entries[u] = list[a];
  }
  long long sum = 0;
#pragma unroll
  for (int u = 0; u < plan_loads; ++u) {
    const std::int64_t a = base + u * plan_block + threadIdx.x;
    long long size = 0;
    if (a < end) {
      if (invalid_entry(entries[u]) && own_invalid == ~0ull) own_invalid = static_cast<unsigned long long>(a);
      size = counted_elements(entries[u]);
    }
    sum += size;
    if (tile != nullptr) tile[plan_word(u * plan_block + threadIdx.x)] = size;
  }
  return sum;
}

// The plan kernel is one cluster of plan_cluster blocks, each on its own SM: block r plans
// arrays [r A / R, (r + 1) A / R), so the list is read by R SMs at once, and the blocks learn
// each other's totals through distributed shared memory, with the cluster's barrier.
inline constexpr int plan_cluster = 8;  // the largest portable cluster

template <typename Entry>
__global__ void __launch_bounds__(plan_block)
    plan_kernel(const Entry* list, layout l, unsigned char* partials, std::int64_t* status) {
  namespace cg = cooperative_groups;
  using scan = cub::BlockScan<long long, plan_block, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename scan::TempStorage scan_storage;
  __shared__ unsigned long long first_invalid;  // of this block's arrays
  __shared__ long long range_elements;          // in this block's arrays
  __shared__ long long range_start;             // the position of this block's first array
  __shared__ long long list_elements;
  __shared__ unsigned long long list_invalid;
  __shared__ int last_block_before;  // the last block of the array before the tile
  extern __shared__ long long tile[];  // plan_tile_words: a tile's sizes, then their starts
  int* last_blocks = reinterpret_cast<int*>(tile + plan_tile_words);  // plan_tile: the tile's last blocks
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank()), ranks = static_cast<int>(cluster.num_blocks());
  blocks::wait_for_prior_kernels();
  // The reduction kernel may set up now: it waits for this kernel's end before it reads.
  blocks::allow_dependent_launch();
  auto* prefix = reinterpret_cast<std::int64_t*>(partials + l.prefix_offset);
  auto* first_array = reinterpret_cast<std::int64_t*>(partials + l.first_array_offset);
  const std::int64_t A = l.arrays, G = l.blocks;
  const std::int64_t begin = A * rank / ranks, end = A * (rank + 1) / ranks;
  if (threadIdx.x == 0) first_invalid = ~0ull;
  // Blocks that no array reaches (possible only when there are no elements) keep A: no pieces.
  // (Before the cluster's barrier below: the arrays' own writes come after it.)
  for (std::int64_t b = std::int64_t{rank} * plan_block + threadIdx.x; b < G; b += std::int64_t{ranks} * plan_block)
    first_array[b] = A;
  // 1. This block's total, and its first invalid array.
  unsigned long long own_invalid = ~0ull;
  long long own = 0;
  // Arrays of one tile keep their sizes from this read for step 3; more are read again there.
  const bool one_tile = end - begin <= plan_tile;
  for (std::int64_t base = begin; base < end; base += plan_tile)
    own += load_plan_tile(list, end, base, one_tile ? tile : nullptr, own_invalid);
  __syncthreads();  // first_invalid is set
  if (own_invalid != ~0ull) atomicMin(&first_invalid, own_invalid);
  long long unused, total;
  scan(scan_storage).ExclusiveSum(own, unused, total);
  if (threadIdx.x == 0) range_elements = total;
  cluster.sync();
  // 2. Everyone's totals: where this block's arrays start, how many elements in all, and the
  //    list's first invalid array.
  if (threadIdx.x < blocks::warp_size) {
    const int r = static_cast<int>(threadIdx.x);
    const long long elements = r < ranks ? *cluster.map_shared_rank(&range_elements, r) : 0;
    const unsigned long long invalid = r < ranks ? *cluster.map_shared_rank(&first_invalid, r) : ~0ull;
    long long before = r < rank ? elements : 0, all = elements;
    unsigned long long first = invalid;
#pragma unroll
    for (int delta = blocks::warp_size / 2; delta > 0; delta /= 2) {
      before += __shfl_xor_sync(blocks::full_warp_mask, before, delta);
      all += __shfl_xor_sync(blocks::full_warp_mask, all, delta);
      const unsigned long long other = __shfl_xor_sync(blocks::full_warp_mask, first, delta);
      first = other < first ? other : first;
    }
    if (r == 0) {
      range_start = before;
      list_elements = all;
      list_invalid = first;
    }
  }
  cluster.sync();  // no block reads another's shared memory after this
  const long long n = list_elements;
  // The last block of the array before this block's first: from that array's size.
  if (threadIdx.x == 0)
    last_block_before = begin == 0 || begin == end
                            ? -1
                            : static_cast<int>(last_block_of(range_start - counted_elements(list[begin - 1]), range_start, n, G));
  // 3. Tile by tile: the starts, and the last block of each array.
  long long carry = range_start;
  for (std::int64_t base = begin; base < end; base += plan_tile) {
    if (!one_tile) load_plan_tile(list, end, base, tile, own_invalid);
    __syncthreads();
    long long own_run = 0;
#pragma unroll
    for (int k = 0; k < plan_loads; ++k) own_run += tile[threadIdx.x * plan_stride + k];
    long long start, tile_total;
    scan(scan_storage).ExclusiveSum(own_run, start, tile_total);
    start += carry;
#pragma unroll
    for (int k = 0; k < plan_loads; ++k) {
      const long long size = tile[threadIdx.x * plan_stride + k];
      tile[threadIdx.x * plan_stride + k] = start;
      start += size;
    }
    __syncthreads();
    // Each array's start, and its last block: one division an array (computing both ends of an
    // array and of the one before, four, took 13 us per tile of 8,192 arrays).
    const std::int64_t tile_end = base + plan_tile < end ? base + plan_tile : end;
#pragma unroll 1
    for (int u = 0; u < plan_loads; ++u) {
      const std::int64_t a = base + u * plan_block + threadIdx.x;
      if (a >= tile_end) break;
      const long long first = tile[plan_word(static_cast<int>(a - base))];
      const long long last = a + 1 == tile_end ? carry + tile_total : tile[plan_word(static_cast<int>(a + 1 - base))];
      prefix[a] = first;
      last_blocks[a - base] = static_cast<int>(last_block_of(first, last, n, G));
    }
    __syncthreads();
    // first_array[b] = the first array whose last block is b or later: array a is that array
    // for the blocks after the last block of array a - 1, up to its own.
#pragma unroll 1
    for (int u = 0; u < plan_loads; ++u) {
      const std::int64_t a = base + u * plan_block + threadIdx.x;
      if (a >= tile_end) break;
      const int last = last_blocks[a - base];
      const int previous_last = a == base ? last_block_before : last_blocks[a - 1 - base];
      for (int b = previous_last + 1; b <= last; ++b) first_array[b] = a;
    }
    carry += tile_total;
    __syncthreads();  // everyone has read the tile and last_block_before
    if (threadIdx.x == 0) last_block_before = last_blocks[tile_end - 1 - base];
    __syncthreads();
  }
  if (rank == 0 && threadIdx.x == 0) {
    const bool invalid = list_invalid != ~0ull;
    prefix[A] = invalid ? -1 : n;
    if (status != nullptr) *status = invalid ? static_cast<std::int64_t>(list_invalid) : -1;
  }
}

}  // namespace warpfold::many
