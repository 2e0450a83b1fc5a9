// The reproducible and exact sums of many sequences at once (sum_modes/sequences.cuh): the
// axis and segmented forms. One launch, no scratch, and no output depends on the grid:
// - the shortest sequences (a few dozen elements) are summed by one thread each, so that a
//   million rows of 4 do not cost a million warp-wide combines;
// - a sequence short enough for one warp is summed by one warp;
// - a longer one is summed by the whole block.
// Blocks take the outputs in rounds of up to one per thread (sum_sequences_in_rounds): each
// thread reads its output's length, sums it if it is short, or queues it in shared memory for
// the block's warps or for the whole block. So a mix of lengths needs no host decision (the
// host never sees segment lengths), and the list is read once. The cost of this simple split,
// reported by the bench rather than tuned: a few very long sequences keep only as many blocks
// busy as there are sequences, and columns (dim 0) are read element by element.
//
// Reproducible: output o is exactly what sum_reproducible returns for its elements copied
// out in order (reproducible_order.hpp). A thread computes a sequence of at most 8 lane
// vectors by doing the lanes' additions and the butterfly itself; a warp computes a sequence
// of one group (at most 32 chunks) by summing chunk c into lane c and then doing steps 4 and 5
// with the +0s of the absent chunks and groups written out; a block computes a longer one as
// the full-sum kernel does with a grid of one block.
//
// Exact: a thread adds a short sequence of half, bfloat16 or float elements in double when
// that is provably exact (their exponents span little enough), and rounds once; otherwise
// (wide spreads, special values, and every double) as the full exact sum, with one
// superaccumulator per warp (short sequences) or per block (long ones) in shared memory,
// rounded once by the warp or block that owns it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/sum_modes/exact_kernel.cuh"
#include "warpfold/sum_modes/reproducible_kernel.cuh"
#include "warpfold/sum_modes/sequences.cuh"
#include "warpfold/sum_modes/superaccumulator.cuh"

namespace warpfold::sum_modes {

// The outputs that a round of one block takes: as many as spread the list over the grid, at
// most one per thread, and at most `most` (the host's choice, sequences_round_limit).
WARPFOLD_DEVICE std::int64_t outputs_per_round(std::int64_t count, int block, int most) {
  const std::int64_t even = (count + gridDim.x - 1) / gridDim.x;
  const std::int64_t limit = most < block ? most : block;
  return even < limit ? (even > 0 ? even : 1) : limit;
}

// When every output is the block's (an axis whose outputs are all long), a round takes one
// output, so that the grid's blocks work on neighbouring outputs at once: they share the
// cache lines of neighbouring columns instead of each sweeping its own band of them.
template <typename Sequences>
int sequences_round_limit(const Sequences& list, std::int64_t warp_max) {
  if constexpr (Sequences::uniform_length) return list.length > warp_max ? 1 : 1 << 30;
  else return 1 << 30;
}

// Sums every output of `list` in rounds. A sequence of at most thread_max elements goes to
// thread_sum(s, o) on its own thread, which may decline (returns false); declined ones and
// those up to warp_max elements go to warp_sum(s, o), called by every lane of one warp; longer
// ones to block_sum(s, o), called by every thread of the block. Launched with Block threads.
template <int Block, typename Sequences, typename ThreadSum, typename WarpSum, typename BlockSum>
WARPFOLD_DEVICE void sum_sequences_in_rounds(const Sequences& list, int round_limit, std::int64_t thread_max,
                                             std::int64_t warp_max, ThreadSum thread_sum, WarpSum warp_sum,
                                             BlockSum block_sum) {
  constexpr int warps = Block / blocks::warp_size;
  __shared__ int warp_queue[Block];
  __shared__ int block_queue[Block];
  __shared__ int warp_queued, block_queued;
  const int warp = threadIdx.x / blocks::warp_size;
  const std::int64_t per_round = outputs_per_round(list.count, Block, round_limit);
  for (std::int64_t first = blockIdx.x * per_round; first < list.count; first += gridDim.x * per_round) {
    if (threadIdx.x == 0) warp_queued = block_queued = 0;
    __syncthreads();
    const std::int64_t o = first + threadIdx.x;
    if (threadIdx.x < per_round && o < list.count) {
      const auto s = list[o];
      if (s.length > warp_max) block_queue[atomicAdd(&block_queued, 1)] = threadIdx.x;
      else if (s.length > thread_max || !thread_sum(s, o)) warp_queue[atomicAdd(&warp_queued, 1)] = threadIdx.x;
    }
    __syncthreads();
    for (int k = warp; k < warp_queued; k += warps) warp_sum(list[first + warp_queue[k]], first + warp_queue[k]);
    for (int k = 0; k < block_queued; ++k) block_sum(list[first + block_queue[k]], first + block_queue[k]);
    __syncthreads();  // the queues are free for the next round
  }
}

// ---- reproducible ----

// Steps 2-3 of chunk c, from whichever source the sequence allows.
template <typename T, typename A>
WARPFOLD_DEVICE A sequence_chunk_sum(const contiguous_sequence<T>& s, std::int64_t c, std::int64_t m, int lane) {
  if (blocks::is_vector_aligned(s.first))  // the same for every lane: one branch per warp
    return reproducible_chunk_sum<T, A>(pointer_source<T, true>{s.first}, s.length, c, m, lane);
  return reproducible_chunk_sum<T, A>(pointer_source<T, false>{s.first}, s.length, c, m, lane);
}
template <typename T, typename A>
WARPFOLD_DEVICE A sequence_chunk_sum(const strided_sequence<T>& s, std::int64_t c, std::int64_t m, int lane) {
  return reproducible_chunk_sum<T, A>(strided_source<T>{s}, s.length, c, m, lane);
}

// A sequence of at most one group, by one warp; every lane gets the result.
template <typename T, typename A, typename Sequence>
WARPFOLD_DEVICE A warp_reproducible_sum(const Sequence& s, int lane) {
  const std::int64_t m = reproducible_chunks<T>(s.length);
  A chunk = A(0);  // lane c: chunk c's sum, +0 for a chunk past the last
  for (std::int64_t c = 0; c < m; ++c) {
    const A sum = sequence_chunk_sum<T, A>(s, c, m, lane);
    if (lane == c) chunk = sum;
  }
  const A group = butterfly_sum(chunk);                           // step 4: G[0]
  const A q0 = butterfly_sum(lane == 0 ? A(0) + group : A(0));  // step 5: combine lanes 0-31 (G[0], then +0s)
  return butterfly_sum(lane == 0 ? q0 : A(0));                    // q[0], then the +0s of warps 1-31
}

// The sequences that one thread sums: at most 8 lane vectors of the first row.
template <typename T>
constexpr std::int64_t reproducible_thread_max = 8 * reproducible_vector_elements<T>;

// The order for a sequence of at most 8 lane vectors, by one thread. Lanes 8-31 and the
// accumulators of rows 1-3 hold +0, and adding +0 twice is adding it once, so: lane l's value
// is its V elements added to +0 (+0 past the end), then + 0 (its three other accumulators and
// the butterfly's steps 16 and 8); steps 4, 2 and 1 pair lanes 0-7; steps 4 and 5 of the order
// add only +0s (absent chunks and groups).
template <typename T, typename A, typename Sequence>
WARPFOLD_DEVICE A thread_reproducible_sum(const Sequence& s) {
  constexpr int V = reproducible_vector_elements<T>;
  A lane_value[8];
#pragma unroll
  for (int l = 0; l < 8; ++l) {
    A acc = A(0);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const std::int64_t i = l * V + j;
      acc = acc + (i < s.length ? static_cast<A>(s[i]) : A(0));
    }
    lane_value[l] = acc + A(0);
  }
#pragma unroll
  for (int d = 4; d > 0; d /= 2)
#pragma unroll
    for (int l = 0; l < d; ++l) lane_value[l] = lane_value[l] + lane_value[l + d];
  return lane_value[0] + A(0);
}

// A sequence of one group (at most 32 chunks) is a warp's.
template <typename T>
constexpr std::int64_t reproducible_warp_max =
    reproducible_group_chunks * reproducible_accumulators * reproducible_row_elements<T>;

// Launched with reproducible_combine_lanes (1024) threads per block.
template <typename T, typename A, typename Sequences>
__global__ void __launch_bounds__(reproducible_combine_lanes, 1) reproducible_sequences_kernel(Sequences list, int round_limit, A* out) {
  constexpr int warps = reproducible_combine_lanes / blocks::warp_size;
  __shared__ A chunk_sums[reproducible_group_chunks];
  __shared__ A group_sums[reproducible_max_chunks / reproducible_group_chunks];
  __shared__ A warp_values[warps];
  blocks::wait_for_prior_kernels();
  const int lane = threadIdx.x % blocks::warp_size;
  const int warp = threadIdx.x / blocks::warp_size;

  auto thread_sum = [&](const auto& s, std::int64_t o) {
    out[o] = thread_reproducible_sum<T, A>(s);
    return true;
  };
  auto warp_sum = [&](const auto& s, std::int64_t o) {
    const A sum = warp_reproducible_sum<T, A>(s, lane);
    if (lane == 0) out[o] = sum;
  };
  auto block_sum = [&](const auto& s, std::int64_t o) {  // as the full sum's kernel with a grid of one block
    const std::int64_t groups = reproducible_groups<T>(s.length);
    const std::int64_t chunks = reproducible_chunks<T>(s.length);
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t c = g * reproducible_group_chunks + warp;
      const A sum = c < chunks ? sequence_chunk_sum<T, A>(s, c, chunks, lane) : A(0);
      if (lane == 0) chunk_sums[warp] = sum;
      __syncthreads();
      if (warp == 0) {
        const A group = butterfly_sum(chunk_sums[lane]);
        if (lane == 0) group_sums[g] = group;
      }
      __syncthreads();
    }
    A acc = A(0);  // combine lane threadIdx.x: at most one group each (groups <= 512)
    if (threadIdx.x < groups) acc = acc + group_sums[threadIdx.x];
    acc = butterfly_sum(acc);
    if (lane == 0) warp_values[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      acc = butterfly_sum(warp_values[lane]);
      if (lane == 0) out[o] = acc;
    }
    __syncthreads();  // the shared sums are free for the next sequence
  };
  sum_sequences_in_rounds<reproducible_combine_lanes>(list, round_limit, reproducible_thread_max<T>,
                                                      reproducible_warp_max<T>, thread_sum, warp_sum, block_sum);
  blocks::allow_dependent_launch();
}

// ---- exact ----

constexpr int exact_sequences_block = exact_block_size;
constexpr int exact_sequences_warps = exact_sequences_block / blocks::warp_size;

// The elements one lane adds per fold batch, as the full exact sum's loads give them.
template <typename T>
constexpr int exact_batch_elements = exact_loads_in_flight * blocks::vector16<T>::size;

// Sequences up to this long are summed by one warp (16 batches per lane); a block's fixed
// cost (clearing and normalizing its superaccumulator, two barriers) pays off beyond.
template <typename T>
constexpr std::int64_t exact_warp_max_elements = std::int64_t(blocks::warp_size) * exact_batch_elements<T> * 16;

// Thread `rank` of `threads` (a whole number of warps) adds its share of the sequence.
template <typename T>
WARPFOLD_DEVICE void accumulate_exact_sequence(const contiguous_sequence<T>& s, std::int64_t rank, std::int64_t threads,
                                               long long* digits, unsigned& flags) {
  accumulate_exact(s.first, s.length, rank, threads, digits, flags);
}
// Element by element: lane loads of neighbouring elements, the same trip count for every lane
// of a warp (-0 past the end), as the folds need.
template <typename T>
WARPFOLD_DEVICE void accumulate_exact_sequence(const strided_sequence<T>& s, std::int64_t rank, std::int64_t threads,
                                               long long* digits, unsigned& flags) {
  constexpr int K = exact_batch_elements<T>;
  const int lane = threadIdx.x % blocks::warp_size;
  exact_warp_accumulator_t<T> warp_accumulator;
  for (std::int64_t i0 = rank - lane; i0 < s.length; i0 += K * threads) {
    exact_element_t<T> x[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const std::int64_t i = i0 + lane + k * threads;
      x[k] = to_exact_element(i < s.length ? s[i] : -T(0.0f));
    }
    warp_accumulator.add(x, digits, flags);
  }
  warp_accumulator.flush(digits);
}

// The sequences that one thread may sum in double: half, bfloat16 and float, up to 64
// elements. (A double's 53 bits cannot hold sums of doubles exactly in general: a thread
// takes only their empty sequences.)
template <typename T>
constexpr std::int64_t exact_thread_max = std::is_same_v<T, double> ? 0 : 64;

// Adds the sequence in double if that is exact, and rounds once into `result`; false when it
// cannot tell (a special value, or exponents too far apart), for the warp to do. Every element
// is an integer multiple of 2^(e_min - 23), where e_min is the smallest exponent among the
// nonzero ones (float's 24-bit significand; half and bfloat16 have fewer bits, so the bound
// holds for them too), and every partial sum is below n * 2^(e_max + 1). When that span,
// e_max + 1 + ceil(log2 n) - (e_min - 23), fits in 53 bits, every partial sum is a double and
// no addition rounds. The empty sum is +0; -0 + -0 is -0, and -0 is the start.
template <typename T, typename Out, typename Sequence>
WARPFOLD_DEVICE bool thread_exact_sum(const Sequence& s, Out& result) {
  if (s.length == 0) {
    result = Out(0);
    return true;
  }
  if constexpr (std::is_same_v<T, double>) return false;
  double sum = -0.0;
  int e_min = 1 << 20, e_max = -(1 << 20);
  for (std::int64_t i = 0; i < s.length; ++i) {
    const float x = static_cast<float>(to_exact_element(s[i]));
    const unsigned m = __float_as_uint(x) & 0x7fffffffu;
    if (m >= 0x7f800000u) return false;
    if (m != 0) {
      const int e = m >= 0x00800000u ? int(m >> 23) - 127 : -127 - __clz(int(m)) + 9;  // subnormal: floor(log2)
      e_min = ::min(e_min, e);
      e_max = ::max(e_max, e);
    }
    sum += static_cast<double>(x);
  }
  const int length_bits = 64 - __clzll(static_cast<unsigned long long>(s.length));  // >= log2(n)
  if (e_max != -(1 << 20) && e_max + 1 + length_bits - (e_min - 23) > 53) return false;
  result = static_cast<Out>(sum);
  return true;
}

// A sequence by one warp: superaccumulator `digits` (D words of shared memory, this warp's
// alone), rounded by lane 0 into out.
template <typename T, typename Out, typename Sequence>
WARPFOLD_DEVICE void warp_exact_sum(const Sequence& s, long long* digits, int lane, Out* out) {
  using format = superaccumulator_format<T>;
  constexpr int D = format::digits;
  for (int i = lane; i < D; i += blocks::warp_size) digits[i] = 0;
  __syncwarp();
  unsigned flags = s.length == 0 ? saw_other_than_minus_zero : 0u;  // the empty sum is +0
  accumulate_exact_sequence(s, lane, blocks::warp_size, digits, flags);
  flags = __reduce_or_sync(blocks::full_warp_mask, flags);
  __syncwarp();
  const Out value = warp_round_to_nearest<Out, format::lowest, D>(digits, flags);
  if (lane == 0) *out = value;
  __syncwarp();
}

// Launched with exact_sequences_block threads per block.
template <typename T, typename Out, typename Sequences>
__global__ void __launch_bounds__(exact_sequences_block, 2) exact_sequences_kernel(Sequences list, int round_limit, Out* out) {
  using format = superaccumulator_format<T>;
  constexpr int D = format::digits;
  __shared__ long long warp_digits[exact_sequences_warps][D];
  __shared__ long long block_digits[D];
  __shared__ unsigned block_flags;
  blocks::wait_for_prior_kernels();
  const int lane = threadIdx.x % blocks::warp_size;
  const int warp = threadIdx.x / blocks::warp_size;

  auto thread_sum = [&](const auto& s, std::int64_t o) {
    Out result;
    if (!thread_exact_sum<T>(s, result)) return false;
    out[o] = result;
    return true;
  };
  auto warp_sum = [&](const auto& s, std::int64_t o) { warp_exact_sum<T>(s, warp_digits[warp], lane, out + o); };
  auto block_sum = [&](const auto& s, std::int64_t o) {
    for (int i = threadIdx.x; i < D; i += blockDim.x) block_digits[i] = 0;
    if (threadIdx.x == 0) block_flags = 0;
    __syncthreads();
    unsigned flags = 0;
    accumulate_exact_sequence(s, threadIdx.x, blockDim.x, block_digits, flags);
    flags = __reduce_or_sync(blocks::full_warp_mask, flags);
    if (lane == 0 && flags != 0) atomicOr(&block_flags, flags);
    __syncthreads();
    if (warp == 0) {
      const Out value = warp_round_to_nearest<Out, format::lowest, D>(block_digits, block_flags);
      if (lane == 0) out[o] = value;
    }
    __syncthreads();  // the shared digits are free for the next sequence
  };
  sum_sequences_in_rounds<exact_sequences_block>(list, round_limit, exact_thread_max<T>, exact_warp_max_elements<T>,
                                                 thread_sum, warp_sum, block_sum);
  blocks::allow_dependent_launch();
}

}  // namespace warpfold::sum_modes
