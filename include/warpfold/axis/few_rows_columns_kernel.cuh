// Columns over few rows: a kept innermost axis of 16-byte column vectors over up to 15
// reduced rows ([2, 33554432] along dim 0, [B, 6, 4270] over the 6); the planner sends it
// fewer than 8 (4 where rows start unaligned), where it gains (launch.cuh).
//
// The columns kernel gives such plans tiles one row high: each thread walks its column item's
// R rows, eight loads at a time and the rest one after another, then moves on to its next
// tile. With two rows a thread has one load in flight, and the GPU far less than it needs to
// stream (H200, 2026-11-29: f32 [2, 33554432] along dim 0 at 64% of the read ceiling,
// [4, 8388608] at 64%).
//
// Here a thread takes K column items instead of one (K x 256 neighbouring items a block, so a
// warp still reads 512 contiguous bytes of a row per load) and issues all of their R x K loads
// before it folds any: up to eight 16-byte loads, or four pairs where rows start unaligned
// (shifted_vector.cuh). K grows with the work only while every resident thread still has an
// item (launch.cuh, which also says which plans come here). No item is shared between
// threads, so there is no combine and no shared memory; each output is its item's rows
// folded in row order, as in the columns kernel.
//
// Items are numbered across the kept indices (item u is column item u % items of kept index
// u / items), so narrow slabs of many kept indices fill whole blocks too.
#pragma once

#include <cstdint>
#include <type_traits>

#include "warpfold/axis/columns_kernel.cuh"
#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/shifted_vector.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/load.cuh"

namespace warpfold::axis {

inline constexpr int few_rows_block = 256;

// 16-byte loads in flight a thread (a batch), and column items a thread at most. Where a
// vector's accumulators take more than 32 bytes (an int8 vector's sixteen int64 sums, argmin's
// value-index pairs, a vector of variances), half the loads, which keep them in 80 registers.
// Several items a thread only for elements of 2 bytes and more, with narrow accumulators:
// each count of items is another unrolled copy of the kernel, and the others would gain little
// for the compile time (a 1-byte vector's 16 elements make each copy large).
// Unaligned rows hold pairs of loads, four a batch, so they take at most two items (two rows
// each), and only 4-byte elements take two. With one, a matrix of two unaligned rows keeps two
// pairs in flight a thread (i32 [2, 44056021] along dim 0: 64% of the read ceiling; Nsight
// Compute, H200: 24 warps an SM, 9 of their 15 cycles between instructions waiting on
// memory). H200, 2026-11-29, 14 random cases of two unaligned rows, two items against one:
// the ten of f32 and i32 0.975x on geometric mean (0.93-1.04x); the four of f16 and bf16 all
// slower, 1.04-1.22x (their warps then also wait on the load queue: lg_throttle). 16 of f32 and
// i32 from seeds not tuned on: 0.977x, three slower, to 1.08x. 8-byte elements were not
// measured, and keep one.
template <typename T, typename Acc>
inline constexpr bool few_rows_wide_accumulators = blocks::vector16<T>::size * sizeof(Acc) > 32;
template <typename T, typename Acc>
inline constexpr int few_rows_loads = few_rows_wide_accumulators<T, Acc> ? 4 : 8;
template <bool Shifted, typename T, typename Acc>
inline constexpr int few_rows_most_items = few_rows_wide_accumulators<T, Acc> || sizeof(T) == 1 ? 1
                                           : !Shifted                                          ? 4
                                           : sizeof(T) == 4                                    ? 2
                                                                                               : 1;
// Pairs of loads where rows start unaligned.
template <bool Shifted, typename T, typename Acc>
inline constexpr int few_rows_batch = Shifted ? few_rows_loads<T, Acc> / 2 : few_rows_loads<T, Acc>;

struct few_rows_shape {
  bool shifted;              // rows start anywhere: items read by load_shifted
  bool vector_store;         // each item's outputs are 16 aligned bytes (columns_shape)
  std::int64_t items;        // column items (16-byte vectors) per kept index
  std::int64_t end;          // shifted: one past the view's last element, as an offset from `in`
  int items_per_thread;      // K: 1, 2 or 4 (few_rows_most_items)
};

// A row of a column item, from its first element `at`.
template <bool Shifted, typename T>
WARPFOLD_DEVICE blocks::vector16<T> load_item_row(const T* at, const T* end) {
  if constexpr (Shifted) {
    // The view's last rows element by element, none past the view's last element. (Elements
    // past the item's last column that come before it are read and folded, and never stored.)
    return load_shifted_before(at, end, end - at);
  } else {
    return blocks::streaming_vector_load{}(at, 0);
  }
}

template <typename Acc, typename T, typename Op, typename ToAcc>
WARPFOLD_DEVICE void fold_item_row(Acc (&acc)[blocks::vector16<T>::size], const blocks::vector16<T>& v, int row, Op op,
                                   ToAcc to_acc) {
  blocks::fold_vector_columns(op, acc, v.items, row, to_acc);
}

// Index arithmetic without 64-bit divisions where the values allow: a 64-bit division is a
// call, and the registers saved around it made this kernel spill (at 64 registers a thread).
// q = n / d, r = n % d.
WARPFOLD_DEVICE void divide(std::int64_t n, std::int64_t d, bool in_32_bits, std::int64_t& q, std::int64_t& r) {
  if (in_32_bits) {
    const auto n32 = static_cast<std::uint32_t>(n), d32 = static_cast<std::uint32_t>(d);
    q = n32 / d32;
    r = n32 - static_cast<std::uint32_t>(q) * d32;
  } else {
    q = n / d;
    r = n - q * d;
  }
}
// The offset of kept index b, in 32-bit arithmetic where b fits (one kept axis, every [R, C]
// and [B, R, C], is a multiply either way).
WARPFOLD_DEVICE std::int64_t kept_offset(const strided_dims& dims, std::int64_t b, bool in_32_bits) {
  return in_32_bits ? dims.offset_32(static_cast<std::uint32_t>(b)) : dims.offset(b);
}

// K items a thread, a compile-time count, so that every load, fold and store indexes its
// registers by constants. K > 1 only where all of an item's rows fit one batch with the other
// items' (launch.cuh): then each item's R loads are issued together with the others', and
// folded and stored one item at a time. K = 1 walks longer rows a batch at a time.
template <bool Shifted, int K, typename T, typename Acc, typename Op, typename ToAcc, typename Out>
WARPFOLD_DEVICE void fold_few_rows(const T* in, const plan& p, const few_rows_shape& shape, Out out, Op op,
                                   ToAcc to_acc) {
  constexpr int V = blocks::vector16<T>::size;
  constexpr int Batch = few_rows_batch<Shifted, T, Acc>;
  constexpr int RowsTogether = K == 1 ? Batch : Batch / K;  // a batch's rows of each item
  // Fewer than 16 rows, one reduced axis (launch.cuh): a small count, a fixed row stride.
  const int rows = static_cast<int>(p.runs.size());
  const std::int64_t row_stride = p.runs.stride[0];
  const std::int64_t kept = p.kept.size();
  const std::int64_t units = kept * shape.items;
  const std::int64_t chunk = std::int64_t(K) * blockDim.x;
  const bool in_32_bits = units + std::int64_t(gridDim.x) * chunk <= std::int64_t{UINT32_MAX};  // every unit index
  const T* end = in + shape.end;

  for (std::int64_t first = blockIdx.x * chunk + threadIdx.x; first < units; first += gridDim.x * chunk) {
    // The thread's items first, first + blockDim.x, ...: where each starts in the input (row
    // 0), or null past the last item. Where their outputs go is worked out again at the store,
    // which holds fewer registers through the loads than keeping it would.
    const T* at[K];
    std::int64_t b, item;
    divide(first, shape.items, in_32_bits, b, item);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k > 0) {
        item += blockDim.x;
        if (item >= shape.items) {  // past the kept index's last item (narrow slabs: several)
          std::int64_t more;
          divide(item, shape.items, in_32_bits, more, item);
          b += more;
        }
      }
      at[k] = b < kept ? in + kept_offset(p.kept, b, in_32_bits) + item * V : nullptr;
    }

    Acc acc[V];
#pragma unroll
    for (int e = 0; e < V; ++e) acc[e] = op.template identity<Acc>();
    auto store = [&](int k) {
      std::int64_t b, item;
      divide(first + std::int64_t(k) * blockDim.x, shape.items, in_32_bits, b, item);
      if (b >= kept) return;
      const std::int64_t column = item * V;
      const int here = static_cast<int>(p.columns - column < V ? p.columns - column : V);
      store_items(out + kept_offset(p.kept_out, b, in_32_bits) + column * p.column_out_stride, acc, here,
                  p.column_out_stride, shape.vector_store);
    };
    if constexpr (K == 1) {
      for (int r0 = 0; r0 < rows; r0 += Batch) {
        blocks::vector16<T> v[Batch];
#pragma unroll
        for (int u = 0; u < Batch; ++u)
          if (r0 + u < rows && at[0]) v[u] = load_item_row<Shifted>(at[0] + (r0 + u) * row_stride, end);
#pragma unroll
        for (int u = 0; u < Batch; ++u)
          if (r0 + u < rows) fold_item_row(acc, v[u], r0 + u, op, to_acc);
      }
      store(0);
    } else {
      blocks::vector16<T> v[K][RowsTogether];
#pragma unroll
      for (int k = 0; k < K; ++k)
#pragma unroll
        for (int r = 0; r < RowsTogether; ++r)
          if (r < rows && at[k]) v[k][r] = load_item_row<Shifted>(at[k] + r * row_stride, end);
#pragma unroll
      for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int r = 0; r < RowsTogether; ++r)
          if (r < rows) fold_item_row(acc, v[k][r], r, op, to_acc);
        store(k);
#pragma unroll
        for (int e = 0; e < V; ++e) acc[e] = op.template identity<Acc>();
      }
    }
  }
}

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(few_rows_block, 3)
    few_rows_columns_kernel(const T* in, plan p, few_rows_shape shape, Out out, Op op, ToAcc to_acc) {
  blocks::wait_for_prior_kernels();
  auto walk = [&](auto shifted) {
    constexpr bool Shifted = decltype(shifted)::value;
    if constexpr (few_rows_most_items<Shifted, T, Acc> == 4) {
      if (shape.items_per_thread == 4) return fold_few_rows<Shifted, 4, T, Acc>(in, p, shape, out, op, to_acc);
    }
    if constexpr (few_rows_most_items<Shifted, T, Acc> >= 2) {
      if (shape.items_per_thread == 2) return fold_few_rows<Shifted, 2, T, Acc>(in, p, shape, out, op, to_acc);
    }
    fold_few_rows<Shifted, 1, T, Acc>(in, p, shape, out, op, to_acc);
  };
  if (shape.shifted) {
    walk(std::true_type{});
  } else {
    walk(std::false_type{});
  }
}

}  // namespace warpfold::axis
