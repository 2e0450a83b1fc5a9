// Rows of up to a few thousand contiguous elements, one output each ([rows, R] along dim 1
// for R up to about 8K floats): a group of G lanes per row.
//
// Why groups: a 4-float row is one 16-byte vector, so a whole warp on it would leave 31
// lanes idle, and one thread per 8K-float row would read 32 KB with no parallelism. G is the
// row's vector count rounded up to a power of two, capped at a warp: G = 1 for 4 floats, 4
// for 16, 16 for 64, 32 from 128 on. Neighbouring groups take neighbouring rows, so each
// load instruction of a warp reads one contiguous stretch of memory, and the group's lanes
// meet with log2(G) shuffles (blocks::group_reduce), without shared memory or barriers.
//
// Four 16-byte loads in flight per lane: across four rows when a row is one load per lane,
// along the row when it is longer (rows_in_flight = 4, 2 or 1). Eight measured slower: the
// extra registers spill at two 512-thread blocks per SM.
#pragma once

#include <cstdint>

#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/run_lattice.cuh"
#include "warpfold/axis/shifted_vector.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/vector_fold.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::axis {

inline constexpr int short_rows_block = 512;
inline constexpr int load_slots = 4;

struct short_rows_shape {
  std::int64_t rows;
  std::int64_t row_stride;     // elements between row starts (regular rows)
  std::int64_t row_length;     // R: elements per run
  std::int64_t inner_stride;   // elements between a run's elements (1 unless a stepped view)
  bool vectorized;             // runs start 16-byte aligned and R is a multiple of a vector
  // Regular rows that start anywhere (R of 975 f16s, a slice): read as the aligned 16-byte
  // blocks that hold them (shifted_vector.cuh: row_blocks); 2-byte elements read one at a
  // time put a sixteenth of what a warp needs in flight per load.
  bool shifted;
  std::int64_t end;            // shifted: one past the view's last element, as an offset from `in`
  std::int64_t items;          // per run: R / vector size, the most blocks a row touches, or R
  int group_size;              // G
  int rows_in_flight;          // 4, 2 or 1: the slots go across rows, then along them
  // Regular rows are one run each, row_stride apart. Other outputs (several runs, or rows
  // of a view whose kept axes do not make one stride) take their addresses from the plan:
  // each group walks its output's runs with fold_runs (axis/run_lattice.cuh).
  bool regular;
};

// Folds one item (a 16-byte vector or one element) at position `item` of its row.
template <typename Acc, typename T, typename Op, typename ToAcc>
WARPFOLD_DEVICE void fold_item(Acc& acc, const blocks::vector16<T>& v, std::int64_t item, Op op, ToAcc to_acc) {
  acc = blocks::fold_vector_items(op, acc, v.items, item * blocks::vector16<T>::size, to_acc);
}

// The regular rows' walk for U = shape.rows_in_flight rows in flight, a template argument:
// slot s reads row s % U, item s / U, and with U known those are constants. As a run-time
// value, each slot's row and item took an integer division per slot and pass (about a third
// of the instructions of bf16 rows of 7215; H200, 2026-11-29, Nsight Compute).
template <int U, bool Shifted, typename Acc, typename T, typename Op, typename ToAcc, typename Out>
WARPFOLD_DEVICE void fold_regular_rows(const T* in, const plan& p, const short_rows_shape& shape, Out out, Op op,
                                       ToAcc to_acc) {
  static_assert(load_slots % U == 0, "the slots go across U rows, then along them");
  constexpr int slots_along_row = load_slots / U;
  const blocks::streaming_vector_load load;
  const int lane = threadIdx.x % blocks::warp_size;
  const int G = shape.group_size;
  const int groups_per_warp = blocks::warp_size / G;
  const int group = lane / G;
  const int rank = lane % G;
  const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / blocks::warp_size;
  const std::int64_t warps = std::int64_t(gridDim.x) * blockDim.x / blocks::warp_size;
  const std::int64_t rows_per_step = std::int64_t(groups_per_warp) * U;
  const std::int64_t items = shape.items;
  // Slot s reads row (first + (s % U) * groups_per_warp + group), item k + (s / U) * G:
  // relative to the group's first row, an offset of (s % U) * row_step elements.
  const std::int64_t row_step = std::int64_t(groups_per_warp) * shape.row_stride;

  // The loop bound depends on the warp only, so every lane reaches group_reduce together.
  for (std::int64_t first = warp * rows_per_step; first < shape.rows; first += warps * rows_per_step) {
    const std::int64_t rows_left = shape.rows - first - group;  // this group's rows from here on
    const T* row0 = in + (first + group) * shape.row_stride;
    auto has_row = [&](int s) { return std::int64_t(s % U) * groups_per_warp < rows_left; };
    Acc acc[load_slots];
#pragma unroll
    for (int s = 0; s < load_slots; ++s) acc[s] = op.template identity<Acc>();

    if constexpr (Shifted) {
      const T* end = in + shape.end;
      shifted_row<T> row[U];
#pragma unroll
      for (int u = 0; u < U; ++u) row[u] = shifted_row<T>::of(row0 + u * row_step, shape.row_length, end, has_row(u));
      for (int k = rank; k < items; k += G * slots_along_row) {
        blocks::vector16<T> v[load_slots];
#pragma unroll
        for (int s = 0; s < load_slots; ++s) {
          const int item = k + (s / U) * G;
          if (item < row[s % U].count) v[s] = row[s % U].load(item, end);
        }
#pragma unroll
        for (int s = 0; s < load_slots; ++s) {
          const int item = k + (s / U) * G;
          if (item < row[s % U].count) row[s % U].fold(acc[s], v[s], item, op, to_acc);
        }
      }
    } else {
      for (std::int64_t k = rank; k < items; k += std::int64_t(G) * slots_along_row) {
        if (shape.vectorized) {
          blocks::vector16<T> v[load_slots];
#pragma unroll
          for (int s = 0; s < load_slots; ++s) {
            const std::int64_t item = k + std::int64_t(s / U) * G;
            if (has_row(s) && item < items) v[s] = load(row0 + (s % U) * row_step, item);
          }
#pragma unroll
          for (int s = 0; s < load_slots; ++s) {
            const std::int64_t item = k + std::int64_t(s / U) * G;
            if (has_row(s) && item < items) fold_item(acc[s], v[s], item, op, to_acc);
          }
        } else {
          T x[load_slots];
#pragma unroll
          for (int s = 0; s < load_slots; ++s) {
            const std::int64_t item = k + std::int64_t(s / U) * G;
            if (has_row(s) && item < items) x[s] = row0[(s % U) * row_step + item * shape.inner_stride];
          }
#pragma unroll
          for (int s = 0; s < load_slots; ++s) {
            const std::int64_t item = k + std::int64_t(s / U) * G;
            if (has_row(s) && item < items) acc[s] = op(acc[s], to_acc(x[s], item));
          }
        }
      }
    }

    // Slots s and s + width (width a multiple of U) hold the same row: fold them in halves
    // until acc[u] is row u's part (u < U). Unrolled, so every index is a constant and the
    // accumulators stay in registers.
#pragma unroll
    for (int width = load_slots / 2; width >= U; width /= 2) {
#pragma unroll
      for (int s = 0; s < width; ++s) acc[s] = op(acc[s], acc[s + width]);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const Acc total = blocks::group_reduce(acc[u], op, G);
      if (rank == 0 && has_row(u)) out[p.out_order(first + std::int64_t(u) * groups_per_warp + group)] = total;
    }
  }
}

// Regular (shape.regular) is a template argument, so that the irregular path's registers do
// not push the regular rows' loop into spilling. So is Shifted (shape.shifted): as a runtime
// branch of the same kernel it made aligned rows 4% slower ([8192, 8192] f32 along dim 1:
// 93.9 -> 98.0 us; H100, 2026-11-24).
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out, bool Regular, bool Shifted = false>
__global__ void __launch_bounds__(short_rows_block, 2)
    short_rows_kernel(const T* in, plan p, short_rows_shape shape, Out out, Op op, ToAcc to_acc) {
  blocks::wait_for_prior_kernels();
  if constexpr (!Regular) {
    // One output per group at a time; the loop bound depends on the warp only, so every
    // lane reaches group_reduce together.
    const int lane = threadIdx.x % blocks::warp_size;
    const int G = shape.group_size;
    const int groups_per_warp = blocks::warp_size / G;
    const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / blocks::warp_size;
    const std::int64_t warps = std::int64_t(gridDim.x) * blockDim.x / blocks::warp_size;
    for (std::int64_t first = warp * groups_per_warp; first < shape.rows; first += warps * groups_per_warp) {
      const std::int64_t row = first + lane / G;
      Acc acc = op.template identity<Acc>();
      if (row < shape.rows)
        acc = fold_runs<load_slots, Shifted>(in + p.kept.offset(row), p.runs, 0, p.runs.size(), p.run_length,
                                             p.inner_stride, shape.vectorized, lane % G, G, acc, op, to_acc,
                                             in + shape.end);
      acc = blocks::group_reduce(acc, op, G);
      if (lane % G == 0 && row < shape.rows) out[p.out_order(row)] = acc;
    }
  } else {
    switch (shape.rows_in_flight) {  // 4, 2 or 1 (launch.cuh)
      case 4: fold_regular_rows<4, Shifted, Acc>(in, p, shape, out, op, to_acc); break;
      case 2: fold_regular_rows<2, Shifted, Acc>(in, p, shape, out, op, to_acc); break;
      default: fold_regular_rows<1, Shifted, Acc>(in, p, shape, out, op, to_acc); break;
    }
  }
}

}  // namespace warpfold::axis
