// The order of additions of warpfold's reproducible sum. It depends only on n and the element
// type, never on the GPU, its SM count, the grid or the input's address, so the result is the
// same bits on every GPU; tests/support holds a CPU implementation of the same order.
//
// For elements of type T, accumulated in A (float for half, bfloat16 and float; double for
// double), with V = 16 / sizeof(T) elements per 16-byte vector:
// 1. The input is read as R = ceil(n / (32 V)) rows of 32 V elements; a missing element at
//    the end counts as +0. The rows are dealt to m = min(16384, ceil(R / 4)) chunks: chunk c
//    holds rows c, c + m, c + 2m, ... (its k-th row is row c + k m).
// 2. In a chunk, lane l (0..31) owns elements l*V .. l*V + V-1 of every row, and keeps four
//    accumulators, all +0 at first: the chunk's k-th row is added to accumulator k mod 4,
//    its V elements one after another, each converted to A first. The lane's value is then
//    ((acc0 + acc1) + acc2) + acc3.
// 3. The 32 lane values are combined by a butterfly: for d = 16, 8, 4, 2, 1, lane l takes
//    value(l) + value(l xor d). Lane 0's value is the chunk's sum.
// 4. The chunk sums are combined in groups of 32 consecutive chunks (32g .. 32g+31; +0 for
//    a chunk past the last) by the butterfly of step 3, into group sums G[0..ceil(m/32)-1].
// 5. The group sums are combined by 1024 "combine lanes": lane j adds G[j], G[j + 1024],
//    ... one after another to +0 (with at most 512 groups, G[j] or +0); lanes 32w .. 32w+31
//    are combined by the butterfly into q[w]; q[0..31] by one more butterfly. That is the
//    result (+0 for an empty input).
// Why this order: every piece is what a warp does at full speed anyway (16-byte loads, four
// in flight, shuffles); dealing rows round robin means that warps working on neighbouring
// chunks read neighbouring rows, so the GPU sweeps the array front to back as a grid-stride
// loop does; a block of 32 warps sums a group of chunks at once, so at most 512 group sums
// are left for the last block to combine.

#pragma once

#include <cstdint>

#include "warpfold/config.hpp"

namespace warpfold::sum_modes {

constexpr int reproducible_lanes = 32;
constexpr int reproducible_accumulators = 4;
constexpr int reproducible_combine_lanes = 1024;

constexpr std::int64_t reproducible_group_chunks = 32;

template <typename T>
constexpr int reproducible_vector_elements = 16 / int(sizeof(T));

template <typename T>
constexpr std::int64_t reproducible_row_elements = std::int64_t{reproducible_lanes} * reproducible_vector_elements<T>;

constexpr std::int64_t reproducible_max_chunks = 16384;

// R: rows of 32 V elements, the last one padded.
template <typename T>
WARPFOLD_HOST_DEVICE std::int64_t reproducible_rows(std::int64_t n) {
  return (n + reproducible_row_elements<T> - 1) / reproducible_row_elements<T>;
}

// m: how many chunks the rows are dealt to.
template <typename T>
WARPFOLD_HOST_DEVICE std::int64_t reproducible_chunks(std::int64_t n) {
  const std::int64_t quads = (reproducible_rows<T>(n) + reproducible_accumulators - 1) / reproducible_accumulators;
  return quads < reproducible_max_chunks ? quads : reproducible_max_chunks;
}

template <typename T>
WARPFOLD_HOST_DEVICE std::int64_t reproducible_groups(std::int64_t n) {
  return (reproducible_chunks<T>(n) + reproducible_group_chunks - 1) / reproducible_group_chunks;
}

// Not part of the order: how many partial results a launch may leave in scratch memory
// (sum_modes/launch.cuh, reproducible_kernel.cuh). Above one group and up to this many chunks,
// blocks of half a group leave two per group; beyond, blocks of a whole group leave one.
constexpr std::int64_t reproducible_half_group_max_chunks = 8192;

template <typename T>
WARPFOLD_HOST_DEVICE std::int64_t reproducible_partials(std::int64_t n) {
  const std::int64_t chunks = reproducible_chunks<T>(n);
  if (chunks <= reproducible_group_chunks) return 0;
  return reproducible_groups<T>(n) * (chunks <= reproducible_half_group_max_chunks ? 2 : 1);
}

}  // namespace warpfold::sum_modes
