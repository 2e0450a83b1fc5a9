// The exact sum: every block adds its share into a superaccumulator in shared memory
// (superaccumulator.cuh), mostly through the warps' folds (window_accumulator.cuh); then one
// block adds up the blocks' digits and rounds once: block 0 of a grid that is one cluster,
// which the others hand their digits through distributed shared memory, or else the last
// block to arrive, which reads them from scratch. One launch; a grid of one block or one
// cluster needs no scratch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "warpfold/blocks/cluster_finish.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/device/scratch.hpp"
#include "warpfold/sum_modes/superaccumulator.cuh"
#include "warpfold/sum_modes/window_accumulator.cuh"

namespace warpfold::sum_modes {

constexpr int exact_block_size = 512;
// Each lane holds two 16-byte loads of the batch it adds and two of the next, issued before
// the adds: the folds' chains of dependent double adds then never leave the warp without
// loads in flight. More in flight helps little: with the batches staged in shared memory
// instead (cp.async, three batches of both loads ahead of the one being added, 64 KB a block;
// branch experiment/staged-loads), the H200 (2026-11-28, uniform data) ran bf16 and f32 at
// 2^28 1-3% faster, f16 and f32 at 2^22-2^26 up to 4% slower, and f64 at 2^26-2^28 12-14%
// slower (docs/results/H200/staging_2026-11-28). ncu put the loop at 2.1-2.4 warp
// instructions a cycle per SM, 10-18 per element: what limits it is its instructions.
constexpr int exact_loads_in_flight = 2;

// What the warps add: half stays half (direct_accumulator), bfloat16 becomes float (exactly).
template <typename T>
using exact_element_t = std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<std::is_same_v<T, __half>, __half, float>>;

template <typename T>
struct exact_warp_accumulator {
  using type = fold_accumulator<exact_element_t<T>, superaccumulator_format<T>::lowest, fold_policy<T>>;
};
template <>
struct exact_warp_accumulator<__half> {
  using type = direct_accumulator;
};
template <typename T>
using exact_warp_accumulator_t = typename exact_warp_accumulator<T>::type;

template <typename T>
WARPFOLD_DEVICE exact_element_t<T> to_exact_element(T x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(x);
  else return x;
}

// -0: padding that neither adds anything nor says "not every element was -0".
template <typename T>
WARPFOLD_DEVICE blocks::vector16<T> negative_zeros() {
  blocks::vector16<T> v;
#pragma unroll
  for (int j = 0; j < blocks::vector16<T>::size; ++j) v.items[j] = -T(0.0f);
  return v;
}

// One element straight into the superaccumulator (the unaligned head and the tail).
template <typename T>
WARPFOLD_DEVICE void add_single(T x, long long* digits, unsigned& flags) {
  double value;
  if constexpr (std::is_same_v<T, double>) value = x;
  else value = static_cast<double>(static_cast<float>(x));
  const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(value));
  if ((bits & 0x7fffffffffffffffull) >= 0x7ff0000000000000ull) {
    flags |= value != value ? saw_nan : (value > 0 ? saw_plus_infinity : saw_minus_infinity);
    return;
  }
  if (bits != 0x8000000000000000ull) flags |= saw_other_than_minus_zero;
  add_double<superaccumulator_format<T>::lowest>(digits, value);
}

// This thread's share of the grid-stride loop, added to `digits`. Loop trips are the same for
// every lane of a warp (lanes past the end load -0), because the folds are the warp's.
template <typename T>
WARPFOLD_DEVICE void accumulate_exact(const T* in, std::int64_t n, std::int64_t rank, std::int64_t threads,
                                      long long* digits, unsigned& flags) {
  constexpr int U = exact_loads_in_flight;
  constexpr int V = blocks::vector16<T>::size;
  const blocks::aligned_split split = blocks::split_at_alignment(in, n);
  if (rank < split.head) add_single(in[rank], digits, flags);
  if (split.tail_begin + rank < n) add_single(in[split.tail_begin + rank], digits, flags);

  const T* body = in + split.head;
  const int lane = threadIdx.x % blocks::warp_size;
  exact_warp_accumulator_t<T> warp_accumulator;
  auto load_batch = [&](std::int64_t v0, blocks::vector16<T>(&batch)[U]) {
    if (v0 + (U - 1) * threads + blocks::warp_size <= split.body_vectors) {  // all in the body: no check per load
#pragma unroll
      for (int u = 0; u < U; ++u) batch[u] = blocks::streaming_vector_load{}(body, v0 + lane + u * threads);
      return;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t v = v0 + lane + u * threads;
      batch[u] = v < split.body_vectors ? blocks::streaming_vector_load{}(body, v) : negative_zeros<T>();
    }
  };
  blocks::vector16<T> next[U];
  std::int64_t v0 = rank - lane;
  if (v0 < split.body_vectors) load_batch(v0, next);
  for (; v0 < split.body_vectors; v0 += U * threads) {
    blocks::vector16<T> batch[U];
#pragma unroll
    for (int u = 0; u < U; ++u) batch[u] = next[u];
    if (v0 + U * threads < split.body_vectors) load_batch(v0 + U * threads, next);
    exact_element_t<T> x[U * V];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int j = 0; j < V; ++j) x[u * V + j] = to_exact_element(batch[u].items[j]);
    warp_accumulator.add(x, digits, flags);
  }
  warp_accumulator.flush(digits);
}

// Where a grid's exact sum goes: rounded once into an Out (float for half, bfloat16 and float;
// double for double), or, as exact_digit_words, kept as the normalized digits followed by one
// word per special flag (1 where seen): integers that several sums (the ranks of a sharded
// array) can add up exactly before one rounding.
struct exact_digit_words {
  long long word;
};
// Called by every lane of one warp, on digits that need not be normalized; lane 0 stores.
template <typename T, typename Out>
WARPFOLD_DEVICE void store_exact(Out* out, long long* digits, unsigned flags) {
  using format = superaccumulator_format<T>;
  const Out value = warp_round_to_nearest<Out, format::lowest, format::digits>(digits, flags);
  if (threadIdx.x % blocks::warp_size == 0) *out = value;
}
inline constexpr int exact_flag_words = 4;  // saw_nan ... saw_other_than_minus_zero
template <typename T>
WARPFOLD_DEVICE void store_exact(exact_digit_words* out, long long* digits, unsigned flags) {
  constexpr int D = superaccumulator_format<T>::digits;
  warp_normalize<D>(digits);
  __syncwarp();
  for (int i = threadIdx.x % blocks::warp_size; i < D + exact_flag_words; i += blocks::warp_size)
    out[i].word = i < D ? digits[i] : (flags >> (i - D)) & 1u;
}

// A block's flags as one word that the blocks' words can be added up in, with the digits:
// flag b counts in bits 16b and up (at most 4096 blocks, max_grid, count to below 2^16).
WARPFOLD_DEVICE long long summable_flags(unsigned flags) {
  long long word = 0;
  for (int b = 0; b < exact_flag_words; ++b) word |= static_cast<long long>((flags >> b) & 1u) << (16 * b);
  return word;
}
WARPFOLD_DEVICE unsigned flags_of_sum(long long word) {
  unsigned flags = 0;
  for (int b = 0; b < exact_flag_words; ++b) flags |= ((word >> (16 * b)) & 0xffff) != 0 ? 1u << b : 0u;
  return flags;
}

// The last block's combine: S lanes per digit (the most, up to a warp, that the block has for
// every digit), each adding the digit of every S-th block's partial, then a shuffle sum over the
// S lanes. All loads in flight at once and no atomics: with a shared-memory atomic per thread,
// 39 threads per digit took turns on each digit (f32), 2-3 us of the kernel's tail.
template <int Digits>
inline constexpr int lanes_per_digit = [] {
  int lanes = blocks::warp_size;
  while (lanes > 1 && Digits * lanes > exact_block_size) lanes /= 2;
  return lanes;
}();

// Below this many elements the blocks' digits are added up as they are, unnormalized: every
// element adds less than 2^30 to a digit (one double into the superaccumulator at most), and
// every flush of a warp's folds, which follows at least one element, less than 2^33, so the
// grid's digits stay below n * 2^34 < 2^62. Above it each block normalizes its digits first
// (a warp's carry passes, whose skipping took 3.4-3.9 us off double sums of 2^20 elements,
// H100, 2026-11-25).
inline constexpr std::int64_t unnormalized_partials_max_n = std::int64_t{1} << 28;

// Launched with exact_block_size threads per block, as one grid or (up to 16 blocks) as one
// cluster. Out is float (half, bfloat16, float), double, or exact_digit_words (the digits
// themselves). Scratch, when the grid has more than one block and is not one cluster:
// (digits + 1) words per block.
template <typename T, typename Out>
__global__ void __launch_bounds__(exact_block_size, 2)
    exact_sum_kernel(const T* in, std::int64_t n, Out* out, device::scratch_view scratch) {
  using format = superaccumulator_format<T>;
  constexpr int D = format::digits;
  constexpr int warps = exact_block_size / blocks::warp_size;
  // Each warp flushes into digits of its own (the shared-memory 64-bit atomics are compare-and-
  // swap loops, which 16 warps flushing at once made take turns); the block adds them up at the end.
  __shared__ long long warp_digits[warps][D];
  __shared__ long long digits[D];
  __shared__ unsigned block_flags;
  const bool one_cluster = blocks::grid_is_one_cluster();
  if (one_cluster) blocks::cluster_block_started();  // touches no memory: may precede the wait
  // Nothing here reads what an earlier kernel writes: set up before waiting for it.
  for (int i = threadIdx.x; i < warps * D; i += blockDim.x) warp_digits[i / D][i % D] = 0;
  if (threadIdx.x == 0) block_flags = n == 0 ? saw_other_than_minus_zero : 0u;  // the empty sum is +0
  blocks::wait_for_prior_kernels();
  __syncthreads();

  unsigned flags = 0;
  const int warp = threadIdx.x / blocks::warp_size;
  accumulate_exact(in, n, std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x, std::int64_t(gridDim.x) * blockDim.x,
                   warp_digits[warp], flags);
  blocks::allow_dependent_launch();
  flags = __reduce_or_sync(blocks::full_warp_mask, flags);
  if (threadIdx.x % blocks::warp_size == 0 && flags != 0) atomicOr(&block_flags, flags);
  __syncthreads();
  auto block_digit = [&](int i) {
    long long sum = 0;
#pragma unroll
    for (int w = 0; w < warps; ++w) sum += warp_digits[w][i];
    return sum;
  };
  if (one_cluster) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // Each block's digits and flags go straight to block 0's shared memory, unnormalized (16
    // blocks of at most 32 KB each: see unnormalized_partials_max_n).
    __shared__ long long cluster_digits[blocks::max_cluster_blocks][D + 1];
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    const unsigned rank = cluster.block_rank();
    __cluster_barrier_wait();  // every block has started: block 0's shared memory exists
    long long* slot = cluster.map_shared_rank(&cluster_digits[rank][0], 0);
    for (int i = threadIdx.x; i <= D; i += blockDim.x) slot[i] = i < D ? block_digit(i) : static_cast<long long>(block_flags);
    cluster.sync();
    if (rank != 0) return;
    const unsigned blocks_in_cluster = cluster.num_blocks();
    for (int i = threadIdx.x; i <= D; i += blockDim.x) {
      long long sum = 0;
      unsigned seen = 0;
      for (unsigned b = 0; b < blocks_in_cluster; ++b) {
        sum += cluster_digits[b][i];
        seen |= static_cast<unsigned>(cluster_digits[b][i]);
      }
      if (i < D) digits[i] = sum;
      else block_flags = seen;
    }
    __syncthreads();
    if (threadIdx.x < blocks::warp_size) store_exact<T>(out, digits, block_flags);
#endif
    return;
  }
  long long* partials = scratch.partials_as<long long>();
  long long* mine = partials + std::int64_t(blockIdx.x) * (D + 1);
  if (gridDim.x > 1 && n < unnormalized_partials_max_n) {
    // See unnormalized_partials_max_n: the block's digits go out as they are.
    for (int i = threadIdx.x; i <= D; i += blockDim.x) mine[i] = i < D ? block_digit(i) : summable_flags(block_flags);
  } else {
    for (int i = threadIdx.x; i < D; i += blockDim.x) digits[i] = block_digit(i);
    __syncthreads();
    if (gridDim.x == 1) {
      if (threadIdx.x < blocks::warp_size) store_exact<T>(out, digits, block_flags);
      return;
    }
    if (threadIdx.x < blocks::warp_size) warp_normalize<D>(digits);  // digits below 2^30: the grid's sum cannot overflow
    __syncthreads();
    for (int i = threadIdx.x; i <= D; i += blockDim.x) mine[i] = i < D ? digits[i] : summable_flags(block_flags);
  }
  if (!blocks::block_arrives_last(scratch.arrivals, gridDim.x)) return;

  // The last block: S lanes per word (the D digits and the flags), lane j of word i adding
  // word i of blocks j, j + S, ...
  constexpr int W = D + 1;
  constexpr int S = lanes_per_digit<W>;
  constexpr int whole_warps = (S * W + blocks::warp_size - 1) / blocks::warp_size * blocks::warp_size;
  if (int(threadIdx.x) < whole_warps) {  // the shuffles below need whole warps; lanes past word W - 1 add nothing
    const int i = threadIdx.x / S, j = threadIdx.x % S;
    // Loads in flight per lane. double's 74 digits leave 4 lanes per digit, 66 partials each
    // from a wave of 264 blocks: 16 at a time (5 rounds to L2, not 9) took 0.6 us off f64's
    // sums from 2^20 to 2^26 (H100, 2026-11-25); with 32 lanes per digit (float, bfloat16,
    // half) 16 was 1% slower at 2^18-2^20 than 8.
    constexpr int in_flight = S < blocks::warp_size ? 16 : 8;
    long long sum = 0;
    for (unsigned b0 = j; i < W && b0 < gridDim.x; b0 += S * in_flight) {
      long long loaded[in_flight];
#pragma unroll
      for (int u = 0; u < in_flight; ++u) {
        const unsigned b = b0 + u * S;
        loaded[u] = b < gridDim.x ? __ldcg(partials + std::int64_t(b) * W + i) : 0;
      }
#pragma unroll
      for (int u = 0; u < in_flight; ++u) sum += loaded[u];
    }
    // S consecutive lanes of one warp hold word i; every lane of those warps takes part.
    sum = blocks::group_reduce(sum, op::sum{}, S);
    if (i < D && j == 0) digits[i] = sum;
    if (i == D && j == 0) block_flags |= flags_of_sum(sum);
  }
  __syncthreads();
  if (threadIdx.x >= blocks::warp_size) return;
  store_exact<T>(out, digits, block_flags);
  if (threadIdx.x == 0) blocks::record_launch_finished(scratch.finished, scratch.finished_after);
}

}  // namespace warpfold::sum_modes
