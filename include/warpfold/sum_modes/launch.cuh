// Grid layer of the reproducible and exact sums: how many blocks, the scratch they need, and
// the launch. Neither result depends on the grid (the tests force other grids through
// testing::scoped_sum_grid and compare bits), so the grid is chosen for speed alone.
#pragma once

#include <algorithm>
#include <cstdint>

#include "warpfold/accumulator.hpp"
#include "warpfold/blocks/grid.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/device/dispatch.cuh"
#include "warpfold/device/launcher.hpp"
#include "warpfold/device/reduce_policy.hpp"
#include "warpfold/sum_modes/exact_kernel.cuh"
#include "warpfold/sum_modes/grid_override.hpp"
#include "warpfold/sum_modes/reproducible_kernel.cuh"
#include "warpfold/sum_modes/sequences_kernel.cuh"

namespace warpfold::sum_modes {

// Reproducible, by the number of chunks m (reproducible_order.hpp). The shapes mirror the
// default sum's (device/dispatch.cuh): a warp's chunk of up to 4 rows is 2 KB, a half-group
// block's 16 chunks 32 KB, as a 512-thread block reads in one round of loads.
// - m <= 32 (one group, up to 64 KB): one block of 32 warps, no scratch.
// - up to 16 half groups (512 KB), where the GPU runs such clusters: one cluster of half-group
//   blocks, whose partials meet in block 0's shared memory.
// - m <= reproducible_half_group_max_chunks (16 MB): a half-group block per half group. Up to
//   4096 chunks (256 blocks), two blocks per SM at most (up to 64 registers): held to four,
//   the blocks of 2^20 doubles took 7.1-7.4 us instead of 6.6 (H100, 2026-11-25); from 4097
//   to 8192 chunks, four per SM (32 registers, no spill for any type), so that a resident wave
//   holds every half group (528 on an H100).
// - beyond: blocks of 32 warps, one resident wave, as many groups each as can be (512 groups
//   on 264 resident blocks would leave the second round 94% full, so 256 blocks take two each).
// The kernel for an input that is (or is not) 16-byte aligned, in blocks of Block threads,
// MinBlocks of them resident per SM.
template <typename T, typename Out, int Block, int MinBlocks>
auto reproducible_kernel_for(bool aligned) {
  return aligned ? reproducible_sum_kernel<T, Out, true, Block, MinBlocks> : reproducible_sum_kernel<T, Out, false, Block, MinBlocks>;
}

template <typename T, typename Out>
void launch_reproducible(const T* in, std::int64_t n, Out* out, device::launcher& l) {
  const bool aligned = blocks::is_vector_aligned(in);
  const std::int64_t chunks = reproducible_chunks<T>(n);
  const std::int64_t groups = reproducible_groups<T>(n);
  const int forced = testing::forced_sum_grid();
  auto scratch_for = [](std::int64_t grid, std::int64_t partials) {
    return grid > 1 ? device::scratch_request{1, 0, partials * std::int64_t(sizeof(Out))} : device::scratch_request{};
  };
  if (chunks > reproducible_group_chunks && chunks <= reproducible_half_group_max_chunks) {
    constexpr int block = reproducible_half_group_block;
    const bool spread = chunks <= reproducible_half_group_max_chunks / 2;
    auto kernel = spread ? reproducible_kernel_for<T, Out, block, 2>(aligned) : reproducible_kernel_for<T, Out, block, 4>(aligned);
    const std::int64_t units = groups * units_per_group<block>;
    if (forced == 0 && units <= blocks::largest_cluster(kernel, block, blocks::max_cluster_blocks, l.device())) {
      l.launch_with_scratch(kernel, static_cast<unsigned>(units), block, static_cast<unsigned>(units), device::scratch_request{},
                            in, n, out);
      return;
    }
    const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, block, l.device());
    const std::int64_t grid = forced > 0 ? forced : std::min(units, wave);
    l.launch_with_scratch(kernel, static_cast<unsigned>(grid), block, 0u, scratch_for(grid, units), in, n, out);
    return;
  }
  constexpr int block = reproducible_group_block;
  auto kernel = reproducible_kernel_for<T, Out, block, 2>(aligned);
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, block, l.device());
  std::int64_t grid = groups <= 1 ? 1 : std::max<std::int64_t>(1, std::min(groups, wave));
  const std::int64_t rounds = std::max<std::int64_t>(1, blocks::ceil_div(groups, grid));
  grid = std::max<std::int64_t>(1, blocks::ceil_div(groups, rounds));
  if (forced > 0) grid = forced;
  l.launch_with_scratch(kernel, static_cast<unsigned>(grid), block, 0u, scratch_for(grid, groups), in, n, out);
}

// Exact: the default sum's shapes (device/dispatch.cuh: launch_shape_for), in the exact
// kernel's one block size. One block up to 64 KB of input; up to 16 blocks of 32 KB, where the
// GPU runs such clusters, as one cluster whose blocks hand their digits to block 0 through
// distributed shared memory (H100, 2026-11-25: f64 sums of 2^14-2^16 elements 13.4-14.5 ->
// 7.9-8.6 us, f32 of 2^16 8.3-8.5 -> 6.3-6.7 us, against the last block's finish); else
// enough blocks for two rounds of loads per thread, up to one resident wave, finished by the
// last to arrive. No streaming shape: the kernel has one block size.
struct exact_launch_policy : device::reduce_policy {
  static constexpr int block_size = exact_block_size;
  static constexpr int cluster_block_size = exact_block_size;
  static constexpr int min_vectors_per_thread = 2 * exact_loads_in_flight;
  static constexpr std::int64_t large_input_bytes = INT64_MAX;
};

// The last block reads every block's digits: 74 words a block for double, against 13 for
// float. So a double grid that would pass half a wave takes blocks of four rounds instead,
// half as many (H100, 2026-11-25, 777777 and 2^20 doubles: 13.9-15.7 -> 12.4-13.6 us; at 2^18,
// 64 blocks of two rounds beat 32 of four, 9.7 against 11.1 us).
template <typename T, typename Out>
void launch_exact(const T* in, std::int64_t n, Out* out, device::launcher& l) {
  using policy = exact_launch_policy;
  auto kernel = exact_sum_kernel<T, Out>;
  device::launch_shape shape = device::launch_shape_for<policy, T>(n, kernel, l.facts());
  if (shape.cluster_blocks == 0 && shape.grid > 1 && superaccumulator_format<T>::digits > 32) {
    const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, policy::block_size, l.device());
    if (2 * shape.grid > wave) {
      const std::int64_t four_rounds = std::int64_t(policy::block_size) * 2 * policy::min_vectors_per_thread * blocks::vector16<T>::size;
      shape.grid = std::max<std::int64_t>(1, std::min({wave, policy::max_grid, blocks::ceil_div(n, four_rounds)}));
    }
  }
  if (testing::forced_sum_grid() > 0)
    shape = {std::min<std::int64_t>(testing::forced_sum_grid(), policy::max_grid), policy::block_size, 0u};
  const device::scratch_request request =
      shape.grid > 1 && shape.cluster_blocks == 0
          ? device::scratch_request{1, 0, shape.grid * (superaccumulator_format<T>::digits + 1) * std::int64_t(sizeof(long long))}
          : device::scratch_request{};
  l.launch_with_scratch(kernel, static_cast<unsigned>(shape.grid), policy::block_size, shape.cluster_blocks, request, in, n, out);
}

// Many sequences (the axis and segmented forms): a block for each, or a warp for each short
// one, up to one resident wave. No scratch; the test hook forces other grids. `warp_max`: the
// longest sequence the kernel gives a warp (sequences_round_limit).
template <typename Sequences, typename Out>
void launch_sequences(void (*kernel)(Sequences, int, Out*), int block, std::int64_t warp_max, const Sequences& list,
                      Out* out, device::launcher& l) {
  if (list.count == 0) return;
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, block, l.device());
  std::int64_t grid = std::max<std::int64_t>(1, std::min(list.count, wave));
  if (testing::forced_sum_grid() > 0) grid = testing::forced_sum_grid();
  l.launch(kernel, static_cast<unsigned>(grid), block, list, sequences_round_limit(list, warp_max), out);
}

template <typename T, typename Out, typename Sequences>
void launch_reproducible_sequences(const Sequences& list, Out* out, device::launcher& l) {
  launch_sequences(reproducible_sequences_kernel<T, Out, Sequences>, reproducible_combine_lanes,
                   reproducible_warp_max<T>, list, out, l);
}

template <typename T, typename Out, typename Sequences>
void launch_exact_sequences(const Sequences& list, Out* out, device::launcher& l) {
  launch_sequences(exact_sequences_kernel<T, Out, Sequences>, exact_sequences_block, exact_warp_max_elements<T>, list,
                   out, l);
}

}  // namespace warpfold::sum_modes
