// Second kernel of a many-array reduction: every block reduces its pieces (many/layout.cuh),
// and whoever completes an array finishes it, and whoever completes the list finishes that.
//
// Per block, in batches of up to one piece per thread:
// - Pieces too short to give each warp a full round of loads go one per warp, so a block with
//   hundreds of small arrays keeps hundreds of loads in flight rather than waiting on one
//   array at a time; longer pieces take the whole block, one after another.
// - An array whose only piece is here is finished at once. Otherwise each of its pieces takes
//   a ticket on the array's counter, and the block that draws the last one finishes it.
// - Finishing an array (one warp): its pieces' partials, read in slot order and combined in a
//   fixed tree, give its accumulator, kept for the combined result, and its result, written.
// - Each block adds the arrays it finished to a counter of the whole list; the block that
//   brings it to A combines every array's accumulator in array order into the combined result.
// Every combine order depends only on the list's sizes and the grid, so results are the same
// bits run to run on one GPU, with no float atomics.
#pragma once

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
// 16-byte loads in flight per lane of a warp reading a piece alone, and per thread of a block
// reading one together. 64 registers is the budget of 2 blocks of 512 threads per SM; 8 loads
// in flight spilled 100-200 bytes per thread (ptxas, sm_90), and so did a warp loop that
// issued each round's loads under guards (which did not shorten the 5,000-array list either).
inline constexpr int many_loads_in_flight = 4;
inline constexpr int block_loads_in_flight = 4;
// A piece is read by the whole block when it holds at least a full round of loads for every
// warp (16 warps x 32 lanes x 16 bytes) and at least a warp's share of the block's range;
// otherwise by one warp. So warps that take the short pieces of a range finish together, and
// a block with one long piece and a few short ones does not leave the long one to one warp.
inline constexpr std::int64_t block_piece_bytes = std::int64_t{many_warps} * blocks::warp_size * 16;
template <typename T>
WARPFOLD_DEVICE bool read_by_block(std::int64_t length, std::int64_t range) {
  return length * std::int64_t(sizeof(T)) >= block_piece_bytes && length >= range / many_warps;
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

// Adds `count` finished arrays to the list's counter; true for the block that completes it
// (which resets the counter, as take_last_ticket does).
WARPFOLD_DEVICE bool completes_list(unsigned int* counter, unsigned int count, unsigned int arrays) {
  const unsigned int before = atomicAdd(counter, count);
  const bool last = before + count == arrays;
  if (last) *counter = 0u;
  return last;
}

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
    return blocks::thread_reduce_vectorized<Unroll, blocks::streaming_vector_load, BodyAlignment>(
        p.data, p.length, rank, count, op, op.template identity<Acc>(), to_acc);
}

// With PlansInBlock, each block makes its plan in the dynamic shared memory of the launch
// (8 (A + 1) bytes: plan_kernel.cuh); otherwise plan_kernel has written it to scratch memory.
// A template argument, not a flag: the kernel with both paths ran GPT-2 small's list 4% slower
// than the one with the scratch path alone, even with the plan in scratch (H100, 2026-11-24).
template <typename Stat, typename T, typename Entry, bool PlansInBlock>
__global__ void __launch_bounds__(many_block)
    many_kernel(const Entry* list, layout l, Stat stat, typename Stat::result* per_array,
                typename Stat::result* combined, std::int64_t* status, device::scratch_view scratch) {
  using Acc = typename Stat::accumulator;
  using Op = typename Stat::combine;
  const Op op{};
  const detail::statistic_element<Stat> to_acc{stat};
  __shared__ piece<T> pieces[many_block];
  __shared__ Acc values[many_block];  // each piece's result, for arrays whose only piece it is
  __shared__ int to_finish[many_block];  // pieces whose array is complete
  __shared__ int finishing;
  __shared__ bool list_done;

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
  Acc* totals = reinterpret_cast<Acc*>(scratch.partials + l.totals_offset);
  unsigned int* array_arrivals = scratch.counters;
  unsigned int* list_arrivals = scratch.counters + l.arrays;
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
    if (a < A) {
      const std::int64_t array_begin = prefix(a), array_end = prefix(a + 1);
      const block_span span = blocks_of(array_begin, array_end, n, G);
      if (span.first <= b) {
        has_piece = true;
        const std::int64_t piece_begin = array_begin > begin ? array_begin : begin;
        const std::int64_t piece_end = array_end < end ? array_end : end;
        const Entry entry = list[a];
        const T* second = second_data(entry);
        pieces[threadIdx.x] = {first_data(entry) + (piece_begin - array_begin),
                               second != nullptr ? second + (piece_begin - array_begin) : nullptr,
                               piece_end > piece_begin ? piece_end - piece_begin : 0, a, a + b,
                               span.last - span.first + 1};
      }
    }
    if (threadIdx.x == 0) finishing = 0;
    const int count = __syncthreads_count(has_piece);
    if (count == 0) return;

    // 2. Reduce the pieces: short ones one per warp, long ones by the whole block.
    for (int i = warp; i < count; i += many_warps) {
      const piece<T> p = pieces[i];
      if (read_by_block<T>(p.length, end - begin)) continue;
      Acc acc = fold_piece<many_loads_in_flight, blocks::vector_bytes>(p, lane, blocks::warp_size, op, to_acc);
      acc = blocks::warp_reduce(acc, op);
      if (lane == 0) {
        values[i] = acc;
        if (p.array_pieces > 1) slots[p.slot] = acc;
      }
    }
    for (int i = 0; i < count; ++i) {
      const piece<T> p = pieces[i];
      if (!read_by_block<T>(p.length, end - begin)) continue;
      Acc acc = fold_piece<block_loads_in_flight, blocks::stream_body_alignment>(p, threadIdx.x, many_block, op, to_acc);
      acc = blocks::block_reduce(acc, op);
      if (threadIdx.x == 0) {
        values[i] = acc;
        if (p.array_pieces > 1) slots[p.slot] = acc;
      }
    }
    __threadfence();  // each writer's slots, before any ticket below counts them
    __syncthreads();

    // 3. Tickets: which arrays are complete now. An array with one piece is complete at once.
    if (threadIdx.x < count) {
      const piece<T> p = pieces[threadIdx.x];
      if (p.array_pieces == 1 || blocks::take_last_ticket(array_arrivals + p.array, unsigned(p.array_pieces)))
        to_finish[atomicAdd(&finishing, 1)] = threadIdx.x;
    }
    __syncthreads();
    __threadfence();  // pairs with the other blocks' fences: their slots are visible from here

    // 4. Finish the complete arrays, one per warp: slots in order, combined in a fixed tree.
    for (int i = warp; i < finishing; i += many_warps) {
      const int which = to_finish[i];
      const std::int64_t array = pieces[which].array;
      Acc acc = values[which];  // the whole array, when this was its only piece
      if (pieces[which].array_pieces > 1) {
        const block_span span = blocks_of(prefix(array), prefix(array + 1), n, G);
        acc = op.template identity<Acc>();
        for (std::int64_t s = array + span.first + lane; s <= array + span.last; s += blocks::warp_size)
          acc = op(acc, blocks::load_from_other_blocks(slots + s));
        acc = blocks::warp_reduce(acc, op);
      }
      if (lane == 0) {
        totals[array] = acc;
        if (per_array != nullptr) per_array[array] = stat.finish(acc);
      }
    }
    __threadfence();  // the totals, before the list's counter counts them
    __syncthreads();

    // 5. The block that completes the list combines every array's total, in array order.
    if (threadIdx.x == 0) list_done = finishing > 0 && completes_list(list_arrivals, unsigned(finishing), unsigned(A));
    __syncthreads();
    if (list_done) break;
    if (count < many_block) return;
  }
  __threadfence();
  // Every array's total, in array order; eight loads in flight per thread.
  constexpr int in_flight = 8;
  Acc acc = op.template identity<Acc>();
  for (std::int64_t first = threadIdx.x; first < A; first += std::int64_t{many_block} * in_flight) {
    Acc batch[in_flight];
#pragma unroll
    for (int u = 0; u < in_flight; ++u) {
      const std::int64_t i = first + std::int64_t{u} * many_block;
      batch[u] = i < A ? blocks::load_from_other_blocks(totals + i) : op.template identity<Acc>();
    }
#pragma unroll
    for (int u = 0; u < in_flight; ++u) acc = op(acc, batch[u]);
  }
  acc = blocks::block_reduce(acc, op);
  if (threadIdx.x == 0) {
    if (combined != nullptr) *combined = stat.finish(acc);
    blocks::record_launch_finished(scratch.finished, scratch.finished_after);
  }
}

}  // namespace warpfold::many
