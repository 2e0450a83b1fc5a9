// The exact sum: every block adds its share into a superaccumulator in shared memory
// (superaccumulator.cuh), mostly through the warps' folds (window_accumulator.cuh); the last
// block to arrive adds up the blocks' digits and rounds once. One launch; a grid of one block
// needs no scratch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

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
// loads in flight.
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
template <typename T, typename Out>
WARPFOLD_DEVICE void store_exact(Out* out, long long* digits, unsigned flags) {
  using format = superaccumulator_format<T>;
  *out = round_to_nearest<Out, format::lowest, format::digits>(digits, flags);
}
inline constexpr int exact_flag_words = 4;  // saw_nan ... saw_other_than_minus_zero
template <typename T>
WARPFOLD_DEVICE void store_exact(exact_digit_words* out, long long* digits, unsigned flags) {
  constexpr int D = superaccumulator_format<T>::digits;
  for (int i = 0; i < D; ++i) out[i].word = digits[i];
  for (int b = 0; b < exact_flag_words; ++b) out[D + b].word = (flags >> b) & 1u;
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

// Launched with exact_block_size threads per block. Out is float (half, bfloat16, float),
// double, or exact_digit_words (the digits themselves). Scratch, when the grid has more than one block: (digits + 1) words per block.
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
  blocks::wait_for_prior_kernels();
  for (int i = threadIdx.x; i < warps * D; i += blockDim.x) warp_digits[i / D][i % D] = 0;
  if (threadIdx.x == 0) block_flags = n == 0 ? saw_other_than_minus_zero : 0u;  // the empty sum is +0
  __syncthreads();

  unsigned flags = 0;
  const int warp = threadIdx.x / blocks::warp_size;
  accumulate_exact(in, n, std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x, std::int64_t(gridDim.x) * blockDim.x,
                   warp_digits[warp], flags);
  blocks::allow_dependent_launch();
  flags = __reduce_or_sync(blocks::full_warp_mask, flags);
  if (threadIdx.x % blocks::warp_size == 0 && flags != 0) atomicOr(&block_flags, flags);
  __syncthreads();
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    long long sum = 0;
#pragma unroll
    for (int w = 0; w < warps; ++w) sum += warp_digits[w][i];
    digits[i] = sum;
  }
  __syncthreads();
  if (threadIdx.x < blocks::warp_size) warp_normalize<D>(digits);  // digits below 2^30: the grid's sum cannot overflow
  if (gridDim.x == 1) {
    __syncwarp();
    if (threadIdx.x == 0) store_exact<T>(out, digits, block_flags);
    return;
  }
  __syncthreads();

  long long* partials = scratch.partials_as<long long>();
  long long* mine = partials + std::int64_t(blockIdx.x) * (D + 1);
  for (int i = threadIdx.x; i < D; i += blockDim.x) mine[i] = digits[i];
  if (threadIdx.x == 0) mine[D] = block_flags;
  if (!blocks::block_arrives_last(scratch.arrivals, gridDim.x)) return;

  // The last block: S lanes per digit; lane j of digit i adds digit i of blocks j, j + S, ...
  constexpr int S = lanes_per_digit<D>;
  constexpr int whole_warps = (S * D + blocks::warp_size - 1) / blocks::warp_size * blocks::warp_size;
  if (int(threadIdx.x) < whole_warps) {  // the shuffles below need whole warps; lanes past digit D - 1 add nothing
    const int i = threadIdx.x / S, j = threadIdx.x % S;
    // Loads in flight per lane. double's 74 digits leave 4 lanes per digit, 66 partials each
    // from a wave of 264 blocks: 16 at a time (5 rounds to L2, not 9) took 0.6 us off f64's
    // sums from 2^20 to 2^26 (H100, 2026-11-25); with 32 lanes per digit (float, bfloat16,
    // half) 16 was 1% slower at 2^18-2^20 than 8.
    constexpr int in_flight = S < blocks::warp_size ? 16 : 8;
    long long sum = 0;
    for (unsigned b0 = j; i < D && b0 < gridDim.x; b0 += S * in_flight) {
      long long loaded[in_flight];
#pragma unroll
      for (int u = 0; u < in_flight; ++u) {
        const unsigned b = b0 + u * S;
        loaded[u] = b < gridDim.x ? __ldcg(partials + std::int64_t(b) * (D + 1) + i) : 0;
      }
#pragma unroll
      for (int u = 0; u < in_flight; ++u) sum += loaded[u];
    }
    // S consecutive lanes of one warp hold digit i; every lane of those warps takes part.
    sum = blocks::group_reduce(sum, op::sum{}, S);
    if (i < D && j == 0) digits[i] = sum;
  }
  unsigned grid_flags = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    grid_flags |= static_cast<unsigned>(__ldcg(partials + std::int64_t(b) * (D + 1) + D));
  grid_flags = __reduce_or_sync(blocks::full_warp_mask, grid_flags);
  if (threadIdx.x % blocks::warp_size == 0 && grid_flags != 0) atomicOr(&block_flags, grid_flags);
  __syncthreads();
  if (threadIdx.x >= blocks::warp_size) return;
  warp_normalize<D>(digits);
  __syncwarp();
  if (threadIdx.x == 0) {
    store_exact<T>(out, digits, block_flags);
    blocks::record_launch_finished(scratch.finished, scratch.finished_after);
  }
}

}  // namespace warpfold::sum_modes
