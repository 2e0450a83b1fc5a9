// How many arrays are cut into pieces for one launch (many/many_kernel.cuh).
//
// The arrays' elements, listed one array after another, form one sequence of N elements, and
// block b of G reads positions [b N / G, (b + 1) N / G): every block gets the same number of
// elements, whatever mix of sizes the list holds (148 tensors of a model, or 5,000 of ten
// elements). Where a block's range meets an array, that is a piece; an empty array is one
// empty piece of the block whose range holds its position. Listed by array and then by block,
// pieces form a staircase, so piece (array a, block b) can have slot a + b: slots are unique,
// in order, and fewer than A + G. So the scratch that holds the pieces' partial results has a
// size that the host knows from the list's length alone, with no copy back of the sizes.
#pragma once

#include <cstdint>

#include "warpfold/config.hpp"

namespace warpfold::many {

// A list entry: one device array.
template <typename T>
struct array_ref {
  const T* data;
  std::int64_t size;
};

// A list entry of a statistic of two arrays (dot): x and y, of `size` elements each.
template <typename T>
struct array_pair_ref {
  const T* x;
  const T* y;
  std::int64_t size;
};

// What the kernels need of an entry of either kind.
template <typename T>
WARPFOLD_HOST_DEVICE const T* first_data(const array_ref<T>& e) { return e.data; }
template <typename T>
WARPFOLD_HOST_DEVICE const T* second_data(const array_ref<T>&) { return nullptr; }
template <typename T>
WARPFOLD_HOST_DEVICE bool lacks_data(const array_ref<T>& e) { return e.data == nullptr; }
template <typename T>
WARPFOLD_HOST_DEVICE const T* first_data(const array_pair_ref<T>& e) { return e.x; }
template <typename T>
WARPFOLD_HOST_DEVICE const T* second_data(const array_pair_ref<T>& e) { return e.y; }
template <typename T>
WARPFOLD_HOST_DEVICE bool lacks_data(const array_pair_ref<T>& e) { return e.x == nullptr || e.y == nullptr; }

// Lists of up to this many arrays are planned by every block of the reduction kernel for
// itself (many/plan_kernel.cuh: plan_in_block); longer ones by the plan kernel first. Each
// block's own plan costs in proportion to the list: every block reads the list's entries (16
// or 24 bytes an array, from L2 after the first block; an SM reads two blocks' worth) and
// scans them, and keeps 8 bytes an array of shared memory. The plan kernel costs a launch
// more, and little per array. H100, 2026-11-25, per-array L2 norms, a call, planned in each
// block against by the plan kernel: 2,000 arrays 18.2 and 20.9 us, 3,000 arrays of up to 64
// elements 17.5 and 19.3, 5,000 arrays 24.0 and 23.9, 8,000 arrays 25.8 and 23.8.
inline constexpr std::int64_t block_plan_max_arrays = 4096;

// Where the launch keeps its plan and partial results in scratch memory, as element offsets
// into the partials area (device/scratch.hpp), and its shape.
struct layout {
  std::int64_t arrays;   // A
  std::int64_t blocks;   // G
  // int64 prefix[A + 1]: the first position of each array; prefix[A] = N, or -1 when the list
  // holds an invalid entry (then nothing is written but the status).
  std::int64_t prefix_offset;
  std::int64_t first_array_offset;  // int64 [G]: the first array with a piece in block b
  std::int64_t slots_offset;        // Acc [A + G]: the pieces' partial results
  std::int64_t block_partials_offset;  // Acc [G]: each block's pieces combined, for the combined result
  std::int64_t list_offset;         // entries [A]: a copy of a host list (host-list form only)
  std::int64_t bytes;
};

inline std::int64_t round_up(std::int64_t x, std::int64_t to) { return (x + to - 1) / to * to; }

// For accumulators of acc_bytes and list entries of entry_bytes.
inline layout layout_for(std::int64_t arrays, std::int64_t blocks, std::int64_t acc_bytes, std::int64_t entry_bytes) {
  layout l{};
  l.arrays = arrays;
  l.blocks = blocks;
  std::int64_t at = 0;
  l.prefix_offset = at;
  at = round_up(at + 8 * (arrays + 1), 256);
  l.first_array_offset = at;
  at = round_up(at + 8 * blocks, 256);
  l.slots_offset = at;
  at = round_up(at + acc_bytes * (arrays + blocks), 256);
  l.block_partials_offset = at;
  at = round_up(at + acc_bytes * blocks, 256);
  l.list_offset = at;
  at = round_up(at + entry_bytes * arrays, 256);
  l.bytes = at;
  return l;
}

// floor(a / d) for 0 <= a < 2^53 and 0 < d < 2^53 (the products below stay under 2^53 while
// the list holds fewer than 2^41 elements: 8 TB of floats), without a 64-bit integer division:
// a GPU has no instruction for one, and its software routine, run for every piece by the many
// kernel and four times per array by the plan kernel's single block, is dozens of
// instructions. H100, 2026-11-24, per-array L2 norms and the global norm: GPT-2 small's list
// 204 -> 194 us, 1,000 mixed arrays 287 -> 272 us.
// The quotient is estimated in double: a relative error of a few 2^-53 is under one unit for
// quotients below 2^51 (here block numbers, and positions in the list), so the truncated
// estimate is off by at most one, which exact integer products then correct.
WARPFOLD_HOST_DEVICE std::int64_t quotient(std::int64_t a, std::int64_t d) {
#ifdef __CUDA_ARCH__
  std::int64_t q = static_cast<std::int64_t>(static_cast<double>(a) * __drcp_rn(static_cast<double>(d)));
#else
  std::int64_t q = static_cast<std::int64_t>(static_cast<double>(a) / static_cast<double>(d));
#endif
  if (q * d > a) --q;
  else if ((q + 1) * d <= a) ++q;
  return q;
}

// The block whose range holds position p: the largest b with b N / G <= p (G - 1 past the end;
// 0 when there are no elements). b N / G <= p exactly when b N <= (p + 1) G - 1.
WARPFOLD_HOST_DEVICE std::int64_t block_of(std::int64_t p, std::int64_t n, std::int64_t g) {
  if (n <= 0) return 0;
  const std::int64_t b = quotient((p + 1) * g - 1, n);
  return b < g - 1 ? b : g - 1;
}

// The blocks that hold pieces of an array with positions [begin, end).
struct block_span {
  std::int64_t first;
  std::int64_t last;
};
WARPFOLD_HOST_DEVICE block_span blocks_of(std::int64_t begin, std::int64_t end, std::int64_t n, std::int64_t g) {
  const std::int64_t first = block_of(begin, n, g);
  return {first, end > begin ? block_of(end - 1, n, g) : first};
}

// The last of them alone: one division instead of two.
WARPFOLD_HOST_DEVICE std::int64_t last_block_of(std::int64_t begin, std::int64_t end, std::int64_t n, std::int64_t g) {
  return block_of(end > begin ? end - 1 : begin, n, g);
}

WARPFOLD_HOST_DEVICE std::int64_t range_begin(std::int64_t b, std::int64_t n, std::int64_t g) { return quotient(b * n, g); }

}  // namespace warpfold::many
