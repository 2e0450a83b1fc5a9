// Second kernel of a many-array reduction: every block reduces its pieces (many/layout.cuh),
// whoever completes an array finishes it, and the last block to arrive finishes the list.
//
// Per block, in batches of up to one piece per thread:
// - The pieces are cut into units of one warp's round of loads, and each warp reads an equal
//   run of units: all warps read the same number of bytes whatever the sizes, and a piece
//   that several warps shared gets their partials combined in warp order.
// - An array whose only piece is here is finished at once. Otherwise each of its pieces takes
//   a ticket on the array's counter, and the block that draws the last one finishes it.
// - Finishing an array (one warp): its pieces' partials, read in slot order and combined in a
//   fixed tree, give its result.
// - The combined result needs no array's result: each block combines its pieces in order, and
//   the last block to arrive combines the blocks' values in block order. (It used to combine
//   every array's result, in array order, after a counter of finished arrays: a store, a fence
//   and a load per array more, and a finish that read the whole list.)
// Every combine order depends only on the list's sizes and the grid, so results are the same
// bits run to run on one GPU, with no float atomics. Without per-array outputs, the pieces of
// arrays that span blocks are not stored at all.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "warpfold/blocks/block_reduce.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/thread_reduce.cuh"
#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/device/scratch.hpp"
#include "warpfold/many/layout.cuh"
#include "warpfold/many/plan_kernel.cuh"
#include "warpfold/stats/statistics.hpp"

namespace warpfold::many {

inline constexpr int many_block = 512;
inline constexpr int many_warps = many_block / blocks::warp_size;
// 16-byte loads in flight per lane of a warp, and the kernel's register budget.
// - 64 registers is the budget of 2 blocks of 512 threads per SM, which hold 1024 threads:
//   8 loads of 16 bytes each keep 128 KB per SM in flight, as many as the single-array
//   kernel's 2048 threads with 4 (4 loads read GPT-2 small's list at 88% of the read ceiling;
//   H100, 2026-11-24). The 4-byte types with accumulators of up to 8 bytes take 8 within it;
//   the others 4 (with 8, ptxas spilled 20-80 bytes per thread of them; sm_90).
// - Statistics of two arrays (dot) and accumulators wider than 16 bytes (moments of doubles,
//   the scaled squares of a double L2 norm) get no budget: under it ptxas spilled 140-280
//   bytes per thread. They run one block per SM.
template <typename Stat>
inline constexpr bool many_unbounded = sizeof(typename Stat::accumulator) > 16 || detail::takes_pairs<Stat>::value;
template <typename Stat, typename T>
inline constexpr int many_loads_in_flight = sizeof(typename Stat::accumulator) <= 8 && !many_unbounded<Stat> && sizeof(T) == 4 ? 8 : 4;
template <typename Stat>
inline constexpr int many_min_blocks_per_sm = many_unbounded<Stat> ? 1 : 2;

// A block's pieces are cut into units, and its warps share the units equally (see step 2 of
// the kernel). A unit is one round of loads for a warp, and its bounds lie on multiples of its
// size in memory, so that every unit but a piece's first starts on a 512-byte boundary
// (blocks/load.cuh says why that matters).
template <typename Stat, typename T>
inline constexpr std::int64_t unit_elements =
    std::int64_t{blocks::warp_size} * many_loads_in_flight<Stat, T> * blocks::vector16<T>::size;

// The units of a piece of `length` elements from `data`: the unit-sized blocks of memory it
// touches, numbered by position in memory (element_position / unit_elements). An empty piece
// has one, so that every piece has a warp that gives its result.
template <typename T>
WARPFOLD_DEVICE std::int64_t element_position(const T* data) {
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(data) / sizeof(T));
}
template <typename Stat, typename T>
WARPFOLD_DEVICE std::int64_t units_of(const T* data, std::int64_t length) {
  if (length <= 0) return 1;
  const std::int64_t first = element_position(data);
  return (first + length - 1) / unit_elements<Stat, T> - first / unit_elements<Stat, T> + 1;
}

template <typename T>
struct piece {
  const T* data;
  const T* second;  // y of a two-array statistic (dot), at the same offset; null otherwise
  std::int64_t length;
  std::int64_t array;
  std::int64_t slot;
  std::int64_t array_pieces;  // how many pieces the array has, in all blocks
};

// One thread's share of a piece: rank of `count` threads, with Unroll loads in flight.
template <int Unroll, int BodyAlignment, typename Stat, typename T, typename Op>
WARPFOLD_DEVICE typename Stat::accumulator fold_piece(const piece<T>& p, std::int64_t rank, std::int64_t count, Op op,
                                                      const detail::statistic_element<Stat>& to_acc) {
  using Acc = typename Stat::accumulator;
  // Two arrays: one pair of 16-byte loads in flight. Two pairs spilled 84 bytes per thread
  // within the 64-register budget (ptxas, sm_90, f32), one pair 16; dot over lists is not
  // timed against anything yet, so the smaller spill is kept.
  if constexpr (detail::takes_pairs<Stat>::value)
    return blocks::thread_reduce_pairs_vectorized<1, blocks::streaming_vector_load>(
        p.data, p.second, p.length, rank, count, op, op.template identity<Acc>(), to_acc);
  else
    // Moments merge once per vector: merged per batch, var_mean of halves spilled 68 bytes per
    // thread under the 64-register budget (ptxas, sm_90), against 16.
    return blocks::thread_reduce_vectorized<Unroll, blocks::streaming_vector_load, BodyAlignment, false>(
        p.data, p.length, rank, count, op, op.template identity<Acc>(), to_acc);
}

// With PlansInBlock, each block makes its plan in the dynamic shared memory of the launch
// (8 (A + 1) bytes: plan_kernel.cuh); otherwise plan_kernel has written it to scratch memory.
// A template argument, not a flag: the kernel with both paths ran GPT-2 small's list 4% slower
// than the one with the scratch path alone, even with the plan in scratch (H100, 2026-11-24).
template <typename Stat, typename T, typename Entry, bool PlansInBlock>
__global__ void __launch_bounds__(many_block, many_min_blocks_per_sm<Stat>)
    many_kernel(const Entry* list, layout l, Stat stat, typename Stat::result* per_array,
                typename Stat::result* combined, std::int64_t* status, device::scratch_view scratch) {
  using Acc = typename Stat::accumulator;
  using Op = typename Stat::combine;
  const Op op{};
  const detail::statistic_element<Stat> to_acc{stat};
  __shared__ piece<T> pieces[many_block];
  // Step 2's partial results: (piece i, warp w) at i + w.
  __shared__ Acc values[many_block + many_warps];
  __shared__ std::int64_t unit_start[many_block + 1];  // piece i's first unit; then the total
  using unit_scan = cub::BlockScan<long long, many_block, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename unit_scan::TempStorage unit_scan_storage;
  __shared__ int to_finish[many_block];  // pieces whose array is complete
  __shared__ int finishing;
  Acc block_value = op.template identity<Acc>();  // thread 0's: the block's pieces, in order

  extern __shared__ std::int64_t planned_prefix[];
  __shared__ std::int64_t planned_first_array;

  blocks::wait_for_prior_kernels();
  const std::int64_t A = l.arrays, G = l.blocks, b = blockIdx.x;
  if constexpr (PlansInBlock) plan_in_block<many_block>(list, A, G, b, planned_prefix, status, planned_first_array);
  const auto* scratch_prefix = reinterpret_cast<const std::int64_t*>(scratch.partials + l.prefix_offset);
  auto prefix = [&](std::int64_t a) {
    if constexpr (PlansInBlock) return planned_prefix[a];
    else return __ldcg(scratch_prefix + a);
  };
  const auto* first_array = reinterpret_cast<const std::int64_t*>(scratch.partials + l.first_array_offset);
  Acc* slots = reinterpret_cast<Acc*>(scratch.partials + l.slots_offset);
  Acc* block_partials = reinterpret_cast<Acc*>(scratch.partials + l.block_partials_offset);
  unsigned int* array_arrivals = scratch.counters;
  const std::int64_t n = prefix(A);
  if (n < 0 || A == 0) {  // an invalid entry (the plan wrote the status), or an empty list
    if (b == 0 && threadIdx.x == 0) {
      if (A == 0 && combined != nullptr) *combined = stat.finish(op.template identity<Acc>());
      blocks::record_launch_finished(scratch.finished, scratch.finished_after);
    }
    return;
  }
  const int lane = threadIdx.x % blocks::warp_size, warp = threadIdx.x / blocks::warp_size;
  const std::int64_t begin = range_begin(b, n, G), end = range_begin(b + 1, n, G);

  std::int64_t first_of_block;
  if constexpr (PlansInBlock) first_of_block = planned_first_array;
  else first_of_block = __ldcg(first_array + b);
  for (std::int64_t first = first_of_block;; first += many_block) {
    // 1. This batch's pieces: arrays first, first + 1, ... while their first block is this one
    //    (a prefix of the threads: every array from first on ends in this block or later).
    const std::int64_t a = first + threadIdx.x;
    bool has_piece = false;
    long long units = 0;
    if (a < A) {
      const std::int64_t array_begin = prefix(a), array_end = prefix(a + 1);
      const block_span span = blocks_of(array_begin, array_end, n, G);
      if (span.first <= b) {
        has_piece = true;
        const std::int64_t piece_begin = array_begin > begin ? array_begin : begin;
        const std::int64_t piece_end = array_end < end ? array_end : end;
        const std::int64_t length = piece_end > piece_begin ? piece_end - piece_begin : 0;
        const Entry entry = list[a];
        const T* data = first_data(entry) + (piece_begin - array_begin);
        const T* second = second_data(entry);
        pieces[threadIdx.x] = {data, second != nullptr ? second + (piece_begin - array_begin) : nullptr, length, a, a + b,
                               span.last - span.first + 1};
        units = units_of<Stat>(data, length);
      }
    }
    if (threadIdx.x == 0) finishing = 0;
    const int count = __syncthreads_count(has_piece);
    if (count == 0) break;

    // 2. Reduce the pieces. Their units, numbered in order, are split into equal runs, one per
    //    warp: a warp reads its run piece by piece, and gives each piece it touched a partial
    //    result. So every warp has the same number of rounds of loads, whatever the sizes: one
    //    long piece is read by all warps at once, and a warp may read a dozen short ones in
    //    turn. The design it replaced read short pieces one per warp and long ones with the
    //    whole block, one after another, each a round of loads and a block reduction; H100,
    //    2026-11-24, per-array L2 norms and the global norm of the 5,000-array list: 29.0 ->
    //    24.6 us (with the plan's batched loads).
    long long first_unit, unit_total;
    unit_scan(unit_scan_storage).ExclusiveSum(units, first_unit, unit_total);
    if (has_piece) unit_start[threadIdx.x] = first_unit;
    if (threadIdx.x == 0) unit_start[count] = unit_total;
    __syncthreads();
    // Warp w reads units [w U / W, (w + 1) U / W); so the warp that reads unit u is the largest w
    // with w U / W <= u, min(W - 1, (W u + W - 1) / U).
    auto run_start = [&](int w) { return w * unit_total / many_warps; };
    const std::int64_t run_begin = run_start(warp), run_end = run_start(warp + 1);
    if (run_begin < run_end) {
      int i = 0;  // the piece that holds unit run_begin: the last i with unit_start[i] <= run_begin
      for (int step = many_block; step > 0; step /= 2)
        if (i + step < count && unit_start[i + step] <= run_begin) i += step;
      for (std::int64_t u = run_begin; u < run_end; ++i) {
        piece<T> p;  // only what the fold needs: fewer registers held across the loop
        p.data = pieces[i].data;
        p.second = pieces[i].second;
        p.length = pieces[i].length;
        const std::int64_t piece_first_unit = unit_start[i];
        const std::int64_t stop = unit_start[i + 1] < run_end ? unit_start[i + 1] : run_end;
        // Units are unit_elements-sized blocks of memory: the piece's first is the one that holds
        // its first element.
        const std::int64_t element = element_position(p.data);
        const std::int64_t unit_base = element / unit_elements<Stat, T> - piece_first_unit;
        std::int64_t from = (unit_base + u) * unit_elements<Stat, T> - element;
        std::int64_t to = (unit_base + stop) * unit_elements<Stat, T> - element;
        from = from > 0 ? from : 0;
        to = to < p.length ? to : p.length;
        p.data += from;
        if (p.second != nullptr) p.second += from;
        p.length = to > from ? to - from : 0;
        Acc acc = fold_piece<many_loads_in_flight<Stat, T>, blocks::vector_bytes>(p, lane, blocks::warp_size, op, to_acc);
        acc = blocks::warp_reduce(acc, op);
        if (lane == 0) values[i + warp] = acc;
        u = stop;
      }
    }
    __syncthreads();
    // Every load of this block is done (their values are in `values`): the next kernel in the
    // stream may start setting up; it still waits for this one to end before it reads anything.
    blocks::allow_dependent_launch();
    // Piece i's partials, from its first warp to its last, in order.
    Acc piece_value = op.template identity<Acc>();
    if (has_piece) {
      auto warp_of = [&](std::int64_t u) {
        const std::int64_t w = (many_warps * u + many_warps - 1) / unit_total;
        return static_cast<int>(w < many_warps - 1 ? w : many_warps - 1);
      };
      const int first_warp = warp_of(unit_start[threadIdx.x]), last_warp = warp_of(unit_start[threadIdx.x + 1] - 1);
      piece_value = values[threadIdx.x + first_warp];
      for (int w = first_warp + 1; w <= last_warp; ++w)  // warps with no units between them wrote nothing
        if (run_start(w) < run_start(w + 1)) piece_value = op(piece_value, values[threadIdx.x + w]);
    }

    // 3. Per-array results. An array whose only piece is here is done; the pieces of the
    //    others go to their slots, and each takes a ticket on its array's counter (only its own
    //    thread fences: the other threads wrote nothing that another block reads).
    if (has_piece && per_array != nullptr) {
      const piece<T>& p = pieces[threadIdx.x];
      if (p.array_pieces == 1) {
        per_array[p.array] = stat.finish(piece_value);
      } else {
        slots[p.slot] = piece_value;
        __threadfence();
        if (blocks::take_last_ticket(array_arrivals + p.array, unsigned(p.array_pieces)))
          to_finish[atomicAdd(&finishing, 1)] = threadIdx.x;
      }
    }
    // The combined result: this batch's pieces in order (block_reduce's fixed tree).
    const Acc batch_value = blocks::block_reduce(piece_value, op);
    if (threadIdx.x == 0) block_value = op(block_value, batch_value);
    __syncthreads();  // block_reduce ends without one; `finishing` is complete

    // 4. Finish the arrays whose last piece was here, one per warp: slots in order, combined
    //    in a fixed tree.
    if (finishing > 0) {
      __threadfence();  // pairs with the other blocks' fences: their slots are visible from here
      for (int i = warp; i < finishing; i += many_warps) {
        const std::int64_t array = pieces[to_finish[i]].array;
        const block_span span = blocks_of(prefix(array), prefix(array + 1), n, G);
        Acc acc = op.template identity<Acc>();
        for (std::int64_t s = array + span.first + lane; s <= array + span.last; s += blocks::warp_size)
          acc = op(acc, blocks::load_from_other_blocks(slots + s));
        acc = blocks::warp_reduce(acc, op);
        if (lane == 0) per_array[array] = stat.finish(acc);
      }
    }
    __syncthreads();  // the finishing warps are done with the pieces and the slots
    if (count < many_block) break;
  }

  // 5. The combined result: every block's value, in block order, by the last block to arrive.
  Acc total;
  if (blocks::last_block_combines(block_value, block_partials, scratch.arrivals, op, total)) {
    if (combined != nullptr) *combined = stat.finish(total);
    blocks::record_launch_finished(scratch.finished, scratch.finished_after);
  }
}

}  // namespace warpfold::many
