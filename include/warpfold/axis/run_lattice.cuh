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
#pragma once

#include <cstdint>

#include "warpfold/axis/plan.hpp"
#include "warpfold/blocks/load.cuh"
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
template <int U, typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE Acc fold_runs(const T* base, const strided_dims& runs, std::int64_t first, std::int64_t end,
                              std::int64_t run_length, std::int64_t inner_stride, bool vectorized, int lane,
                              int lanes, Acc acc, Op op, ToAcc to_acc) {
  constexpr int V = blocks::vector16<T>::size;
  const blocks::streaming_vector_load load;
  const std::int64_t items = vectorized ? run_length / V : run_length;
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
      if (vectorized) {
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
