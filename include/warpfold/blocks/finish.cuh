// Finish layer: what happens to each block's partial result.
// A block's kernel ends by handing its value (valid in thread 0) to one of these epilogues;
// every thread of the block must call the epilogue, because the last-block one needs them all.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "warpfold/blocks/block_reduce.cuh"
#include "warpfold/blocks/thread_reduce.cuh"
#include "warpfold/device/scratch.hpp"

namespace warpfold::blocks {

// Reads memory that other blocks of this launch wrote, bypassing L1 (which is not coherent
// across SMs) so that the last block never sees a stale line.
template <typename T>
WARPFOLD_DEVICE T load_from_other_blocks(const T* p) {
  if constexpr (std::is_arithmetic_v<T>) {
    return __ldcg(p);
  } else {
    static_assert(sizeof(T) % sizeof(int) == 0 && alignof(T) >= alignof(int),
                  "partials of a struct type must be made of 4-byte words");
    int words[sizeof(T) / sizeof(int)];
#pragma unroll
    for (int w = 0; w < int(sizeof(T) / sizeof(int)); ++w)
      words[w] = __ldcg(reinterpret_cast<const int*>(p) + w);
    T value;
    std::memcpy(&value, words, sizeof(T));
    return value;
  }
}

// Writes the block's value to partials[blockIdx.x]; someone else combines them later
// (the host, another launch of the same kernel, or a second single-block kernel).
template <typename T>
struct store_partial {
  T* partials;
  WARPFOLD_DEVICE void operator()(T block_value) const {
    if (threadIdx.x == 0) partials[blockIdx.x] = block_value;
  }
};

// Adds the block's value into *result with one atomic per block. The result must be zeroed
// before the launch. Float atomics land in whatever order blocks finish, so float results can
// differ in the last bits from run to run: this epilogue is not deterministic for floats.
template <typename T>
struct atomic_add_to_result {
  T* result;
  WARPFOLD_DEVICE void operator()(T block_value) const {
    if (threadIdx.x == 0) atomicAdd(result, block_value);
  }
};

// The arrival counter behind every one-pass finish. Thread 0 takes a ticket from `counter`;
// the holder of ticket expected - 1 is the last of `expected` arrivals, knows that everyone
// else's partials are written, and resets the counter for the next launch (so no memset and
// no second kernel is ever needed). Call from thread 0 only, after the caller's partials
// are written and fenced.
WARPFOLD_DEVICE bool take_last_ticket(unsigned int* counter, unsigned int expected) {
  const unsigned int ticket = atomicAdd(counter, 1u);
  const bool last = ticket == expected - 1;
  if (last) *counter = 0u;  // every other arrival has counted already
  return last;
}

// For blocks whose threads all wrote partials: each thread fences its own writes, then the
// block takes one ticket. Every thread calls it; all get the same answer.
WARPFOLD_DEVICE bool block_arrives_last(unsigned int* counter, unsigned int expected) {
  __shared__ bool is_last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) is_last = take_last_ticket(counter, expected);
  __syncthreads();
  if (is_last) __threadfence();  // pairs with the writers' fences
  return is_last;
}

// Counting work finished in scratch memory (device/scratch.hpp), so that its owner can tell
// when no launch uses it any more. Called from thread 0 of the last block of a group, once
// every load of partials by its block has returned (the block's result depends on them, so
// the count cannot overtake them), next to the result's own store.
//
// A finish that spans the grid, on the scratch's arrival counter (reset at the last ticket):
// one plain store of the count that the launch brings the block to. Launches that share a
// block run one after the other, so nothing else writes it meanwhile; the owner treats the
// block as idle only when one 8-byte read sees that count and the arrivals back at zero, which
// proves the reset landed too. A fence or an atomic here would add a round trip to L2 at the
// end of every call (H100, 2026-11-22: +0.5 us with a fence, +0.2 us with an atomic).
WARPFOLD_DEVICE void record_launch_finished(unsigned int* finished, unsigned int count) { *finished = count; }

// A group that finished on a counter of its own (several per launch: the axis kernels): adds
// one, after a fence that puts that counter's reset ahead of the count, which the owner cannot
// see otherwise.
WARPFOLD_DEVICE void count_group_finished(unsigned int* finished) {
  __threadfence();
  atomicAdd(finished, 1u);
}

// One-pass finish: every block stores its partial, then takes a ticket from a counter; the
// block that draws the last ticket knows all partials are written and combines them.
// __threadfence() before the ticket makes the partial visible device-wide before the count
// says so. The last block resets the counter, so the next launch needs no memset and the
// whole reduction stays one kernel (and can be captured in a CUDA graph).
// Every thread calls it; it returns true in thread 0 of the last block, with the total.
template <typename T, typename Op>
WARPFOLD_DEVICE bool last_block_combines(T block_value, T* partials, unsigned int* arrivals, Op op, T& total) {
  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    __threadfence();
    is_last_block = take_last_ticket(arrivals, gridDim.x);
  }
  __syncthreads();
  if (!is_last_block) return false;

  __threadfence();  // pairs with the writers' fences: their partials are visible from here
  T acc = op.template identity<T>();
  for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x)
    acc = op(acc, load_from_other_blocks(partials + i));
  acc = block_reduce(acc, op);
  if (threadIdx.x != 0) return false;
  total = acc;
  return true;
}

// The one-pass finish as an epilogue: the last block writes the total to *result.
template <typename T, typename Op>
struct last_block_finishes {
  T* partials;             // gridDim.x entries
  unsigned int* arrivals;  // zero before the first launch; left at zero after each
  T* result;
  Op op;

  WARPFOLD_DEVICE void operator()(T block_value) const {
    T total;
    if (last_block_combines(block_value, partials, arrivals, op, total)) *result = total;
  }
};

// The "second kernel" finish: one block reduces `count` partials into *result.
template <typename T, typename Op>
__global__ void reduce_partials_in_one_block(const T* partials, std::int64_t count, T* result, Op op) {
  T acc = thread_reduce_strided(partials, count, threadIdx.x, blockDim.x, op, op.template identity<T>());
  acc = block_reduce(acc, op);
  if (threadIdx.x == 0) *result = acc;
}

}  // namespace warpfold::blocks
