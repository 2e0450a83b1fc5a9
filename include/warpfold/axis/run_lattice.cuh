// Thread layer for outputs made of many short runs (a 4-D array over two interleaved axes,
// [R1, K, R2] over {0, 2}, a permuted view): how `lanes` threads share the runs [first, end)
// of one output so that every lane keeps several loads in flight.
//
// A run of `items` items (16-byte vectors when every run starts aligned, else elements) gets
// `item_slots` lanes, the power of two at or above items (capped at `lanes`), and the team
// takes lanes / item_slots runs side by side. Each lane then walks its item of runs j, j + J,
// j + 2J, ... (J runs per step), U runs at a time: U independent loads in flight, and no
// division in the loop when the runs are one stride apart. Neighbouring lanes read
// neighbouring items, so a warp's loads cover whole runs.
//
// Runs that do not all start on a 16-byte boundary (an odd run length, a slice) are read with
// Shifted as the aligned 16-byte blocks that hold them (axis/shifted_vector.cuh: row_blocks),
// each lane keeping its block's elements of the run. Element by element, a lane of such runs
// moved 2 or 4 bytes a load: [8, 52000, 339] i32 over {0, 2} ran at 28% of the read ceiling.
#pragma once

#include <cstdint>

#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/shifted_vector.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/thread_reduce.cuh"
#include "warpfold/blocks/vector_fold.cuh"

namespace warpfold::axis {

struct run_lattice {
  int item_slots;     // lanes per run
  int runs_per_step;  // runs side by side
};

WARPFOLD_HOST_DEVICE run_lattice lattice_for(std::int64_t items, int lanes) {
  int slots = 1;
  while (slots < items && slots < lanes) slots *= 2;
  return {slots, lanes / slots};
}

// Folds lane `lane` of `lanes` share of runs [first, end) of one output starting at `base`
// into acc. Element e of run j is inner_stride * e past the run's start (vectorized runs are
// contiguous), and counts as index j * run_length + e (argmin/argmax).
// Shifted (contiguous runs of at least a vector's elements): the runs' blocks are read as
// row_blocks; view_end is one past the view's last element, which no load may pass.
template <int U, bool Shifted = false, typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE Acc fold_runs(const T* base, const strided_dims& runs, std::int64_t first, std::int64_t end,
                              std::int64_t run_length, std::int64_t inner_stride, bool vectorized, int lane,
                              int lanes, Acc acc, Op op, ToAcc to_acc, const T* view_end = nullptr) {
  constexpr int V = blocks::vector16<T>::size;
  const blocks::streaming_vector_load load;
  const std::int64_t items = Shifted ? (run_length + 2 * V - 2) / V  // the most blocks a run touches
                             : vectorized ? run_length / V : run_length;
  const run_lattice lattice = lattice_for(items, lanes);
  const std::int64_t k0 = lane % lattice.item_slots;
  const std::int64_t step = lattice.runs_per_step;
  // Lanes past the last run of a step (runs_per_step teams, fewer runs) or past the last item
  // simply find nothing to do.
  for (std::int64_t j = first + lane / lattice.item_slots; j < end; j += step * U) {
    std::int64_t at[U];
#pragma unroll
    for (int u = 0; u < U; ++u) at[u] = j + u * step < end ? runs.offset(j + u * step) : 0;
    for (std::int64_t k = k0; k < items; k += lattice.item_slots) {
      if constexpr (Shifted) {
        blocks::vector16<T> v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const row_blocks rb = row_blocks::of(base + at[u], run_length);
          if (j + u * step < end && rb.holds_row_elements<T>(k)) v[u] = load_row_block(base + at[u], rb, k, view_end);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const row_blocks rb = row_blocks::of(base + at[u], run_length);
          if (j + u * step < end && rb.holds_row_elements<T>(k))
            fold_row_block(acc, v[u], rb, k, op, blocks::shift_index<ToAcc>{to_acc, (j + u * step) * run_length});
        }
      } else if (vectorized) {
        blocks::vector16<T> v[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + u * step < end) v[u] = load(base + at[u], k);
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + u * step < end) {
            acc = blocks::fold_vector_items(op, acc, v[u].items, (j + u * step) * run_length + k * V, to_acc);
          }
      } else {
        T x[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + u * step < end) x[u] = base[at[u] + k * inner_stride];
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + u * step < end) acc = op(acc, to_acc(x[u], (j + u * step) * run_length + k));
      }
    }
  }
  return acc;
}

}  // namespace warpfold::axis
