// Grid layer of the reproducible and exact sums: how many blocks, the scratch they need, and
// the launch. Neither result depends on the grid (the tests force other grids through
// testing::scoped_sum_grid and compare bits), so the grid is chosen for speed alone.
#pragma once

#include <algorithm>
#include <cstdint>

#include "warpfold/accumulator.hpp"
#include "warpfold/blocks/grid.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/device/launcher.hpp"
#include "warpfold/device/reduce_policy.hpp"
#include "warpfold/sum_modes/exact_kernel.cuh"
#include "warpfold/sum_modes/grid_override.hpp"
#include "warpfold/sum_modes/reproducible_kernel.cuh"
#include "warpfold/sum_modes/sequences_kernel.cuh"

namespace warpfold::sum_modes {

// Reproducible: one block of 1024 threads per group of 32 chunks, up to one resident wave,
// and as many groups for each block as can be: 512 groups on 264 resident blocks would leave
// the second round 94% full, so 256 blocks take exactly two each.
template <typename T, typename Out>
void launch_reproducible(const T* in, std::int64_t n, Out* out, device::launcher& l) {
  const bool aligned = blocks::is_vector_aligned(in);
  auto kernel = aligned ? reproducible_sum_kernel<T, Out, true> : reproducible_sum_kernel<T, Out, false>;
  const std::int64_t groups = reproducible_groups<T>(n);
  const int block = reproducible_combine_lanes;
  const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, block, l.device());
  // Up to two groups (128 KB of f32), one block does it all: no scratch, no fence, no ticket.
  std::int64_t grid = groups <= 2 ? 1 : std::max<std::int64_t>(1, std::min(groups, wave));
  const std::int64_t rounds = std::max<std::int64_t>(1, blocks::ceil_div(groups, grid));
  grid = std::max<std::int64_t>(1, blocks::ceil_div(groups, rounds));
  if (testing::forced_sum_grid() > 0) grid = testing::forced_sum_grid();
  const bool needs_scratch = grid > 1 || groups > reproducible_combine_lanes;
  const device::scratch_request request =
      needs_scratch ? device::scratch_request{1, 0, groups * std::int64_t(sizeof(Out))} : device::scratch_request{};
  l.launch_with_scratch(kernel, static_cast<unsigned>(grid), block, 0u, request, in, n, out);
}

// Exact: one block up to 64 KB of input (as the default sum), else enough 512-thread blocks
// for a few loads per thread, up to one resident wave.
template <typename T, typename Out>
void launch_exact(const T* in, std::int64_t n, Out* out, device::launcher& l) {
  using policy = device::reduce_policy;
  auto kernel = exact_sum_kernel<T, Out>;
  const int block = exact_block_size;
  std::int64_t grid = 1;
  if (n * std::int64_t(sizeof(T)) > policy::single_block_max_bytes) {
    const std::int64_t per_block = std::int64_t(block) * exact_loads_in_flight * blocks::vector16<T>::size * 2;
    const std::int64_t wave = std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, block, l.device());
    grid = std::max<std::int64_t>(1, std::min({wave, policy::max_grid, blocks::ceil_div(n, per_block)}));
  }
  if (testing::forced_sum_grid() > 0) grid = std::min<std::int64_t>(testing::forced_sum_grid(), policy::max_grid);
  const device::scratch_request request =
      grid > 1 ? device::scratch_request{1, 0, grid * (superaccumulator_format<T>::digits + 1) * std::int64_t(sizeof(long long))}
               : device::scratch_request{};
  l.launch_with_scratch(kernel, static_cast<unsigned>(grid), block, 0u, request, in, n, out);
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
