// Contiguous rows of 1, 2, 4, 8, 16 or 32 16-byte vectors ([rows, R] along dim 1 for R = 4 to
// 128 floats), read the way the full reduce reads: as one flat run of vectors. Thread t of a
// grid of T threads takes vectors t, t + T, t + 2T, ... Because T is a multiple of 32, and a
// row's V vectors divide 32, every aligned group of V lanes holds one whole row at every
// step: the group adds it up with log2(V) shuffles and its first lane writes the row's value.
//
// Why a kernel of its own: short_rows_kernel serves rows of any length (runtime group sizes,
// load slots across and along rows), and that bookkeeping costs registers: two 512-thread
// blocks per SM at 64 registers, four 16-byte loads in flight per thread. This one keeps no
// per-row index, so it fits in 32 registers: two 1024-thread blocks per SM with four loads
// each, as many bytes in flight as the full reduce. H100, 2026-11-22, float32 rows of 16 and
// 64: 93.7% and 95.3% of the read ceiling, against 90.7% and 88.7% with short_rows_kernel.
//
// Rows of one vector write a quarter as many bytes as they read (float), so there the writes
// matter too: see one_vector_rows.
#pragma once

#include <cstdint>

#include "warpfold/axis/output.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/store.cuh"
#include "warpfold/blocks/vector_fold.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::axis {

inline constexpr int flat_block = 1024;
inline constexpr int flat_loads_in_flight = 4;

// Two blocks per SM need at most 32 registers a thread; wide accumulators (argmin's
// value-index pairs, a vector of int8 widened to int64) would spill there, so they get one.
template <typename T, typename Acc>
inline constexpr int flat_blocks_per_sm = sizeof(Acc) * blocks::vector16<T>::size <= 16 ? 2 : 1;

// One vector's items folded into one value; `first_item` is the first one's index in its row.
// Through the shared vector fold (blocks/vector_fold.cuh), so that var_mean merges a vector's
// moments once, and min/max of halves meet in pairs, as in the production reduce.
template <typename Acc, typename T, typename Op, typename ToAcc>
WARPFOLD_DEVICE Acc fold_row_vector(const blocks::vector16<T>& x, std::int64_t first_item, Op op, ToAcc to_acc) {
  return blocks::fold_vector_items(op, op.template identity<Acc>(), x.items, first_item, to_acc);
}

// Whether one_vector_rows can stage a warp's 128 values in shared memory (16 KiB a block for
// 4-byte values) and write them as whole 16-byte vectors.
template <typename Acc>
inline constexpr bool stages_row_values = sizeof(Acc) <= 8 && blocks::vector_bytes % sizeof(Acc) == 0;

// Rows of exactly one vector, with 16-byte aligned output. Each warp takes 128 neighbouring
// rows per step (its four loads 32 rows apart), puts their values in shared memory, and
// writes them back as 16-byte streaming stores (blocks/store.cuh): a warp's 128 float sums
// leave as 32 full vectors rather than 128 4-byte stores. H100, 2026-11-22, 16777216x4 float:
// 94.8% of the read ceiling, against 89.7% for 4-byte streaming stores and 87.8% for plain ones.
template <typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE void one_vector_rows(const T* in, std::int64_t rows, Acc* out, Op op, ToAcc to_acc) {
  constexpr int L = flat_loads_in_flight;
  constexpr int rows_per_step = L * blocks::warp_size;
  constexpr int per_store = blocks::vector_bytes / sizeof(Acc);
  __shared__ alignas(blocks::vector_bytes) Acc staged[flat_block / blocks::warp_size][rows_per_step];
  const blocks::streaming_vector_load load;
  const int lane = threadIdx.x % blocks::warp_size;
  const int warp = threadIdx.x / blocks::warp_size;
  Acc* values = staged[warp];
  const auto* vectors = reinterpret_cast<const blocks::vector16<Acc>*>(staged[warp]);
  const std::int64_t warps_in_grid = std::int64_t(gridDim.x) * (blockDim.x / blocks::warp_size);
  std::int64_t first = (std::int64_t(blockIdx.x) * (blockDim.x / blocks::warp_size) + warp) * rows_per_step;
  for (; first + rows_per_step <= rows; first += warps_in_grid * rows_per_step) {
    blocks::vector16<T> x[L];
#pragma unroll
    for (int u = 0; u < L; ++u) x[u] = load(in, first + u * blocks::warp_size + lane);
#pragma unroll
    for (int u = 0; u < L; ++u) values[u * blocks::warp_size + lane] = fold_row_vector<Acc>(x[u], 0, op, to_acc);
    __syncwarp();
    auto* to = reinterpret_cast<blocks::vector16<Acc>*>(out + first);
    for (int k = lane; k < rows_per_step / per_store; k += blocks::warp_size) blocks::store_streaming(to + k, vectors[k]);
    __syncwarp();  // the values are out before the next step overwrites them
  }
  // At most one warp is left with a part step: a row per lane.
  for (std::int64_t row = first + lane; first < rows && row < rows; row += blocks::warp_size)
    out[row] = fold_row_vector<Acc>(load(in, row), 0, op, to_acc);
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(flat_block, (flat_blocks_per_sm<T, Acc>))
    flat_rows_kernel(const T* in, std::int64_t vectors, int log2_row_vectors, Out out, Op op, ToAcc to_acc) {
  blocks::wait_for_prior_kernels();
  if constexpr (stages_row_values<Acc> && is_plain_output<Out>) {
    if (log2_row_vectors == 0 && blocks::is_vector_aligned(out))
      return one_vector_rows(in, vectors, out, op, to_acc);
  }
  constexpr int per_vector = blocks::vector16<T>::size;
  constexpr int L = flat_loads_in_flight;
  const blocks::streaming_vector_load load;
  const int row_vectors = 1 << log2_row_vectors;
  const int lane = threadIdx.x % blocks::warp_size;
  const bool writes = lane % row_vectors == 0;  // the first lane of its row's group
  const std::int64_t count = std::int64_t(gridDim.x) * blockDim.x;
  // A thread's vectors all sit at the same place in their rows, so their items' indices
  // within the row (which argmin/argmax report) are the same at every step.
  const std::int64_t first_item = std::int64_t(lane % row_vectors) * per_vector;
  auto fold_vector = [&](const blocks::vector16<T>& x) { return fold_row_vector<Acc>(x, first_item, op, to_acc); };

  // Loop bounds depend on the warp's first vector only, so all 32 lanes reach the shuffles.
  std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; v - lane + blocks::warp_size + (L - 1) * count <= vectors; v += L * count) {
    blocks::vector16<T> x[L];
#pragma unroll
    for (int u = 0; u < L; ++u) x[u] = load(in, v + u * count);
    Acc row[L];
#pragma unroll
    for (int u = 0; u < L; ++u) row[u] = fold_vector(x[u]);
    for (int delta = row_vectors / 2; delta > 0; delta /= 2) {
#pragma unroll
      for (int u = 0; u < L; ++u) row[u] = op(row[u], blocks::shuffle_down(row[u], delta));
    }
    if (writes) {
#pragma unroll
      for (int u = 0; u < L; ++u) out[(v + u * count) >> log2_row_vectors] = row[u];
    }
  }
  // The last steps: a row's vectors are all in range or all out, as `vectors` is whole rows.
  for (; v - lane < vectors; v += count) {
    const bool valid = v < vectors;
    Acc row = valid ? fold_vector(load(in, v)) : op.template identity<Acc>();
    row = blocks::group_reduce(row, op, row_vectors);
    if (valid && writes) out[v >> log2_row_vectors] = row;
  }
}

}  // namespace warpfold::axis
