// Reductions whose innermost axis is kept ([R, C] along dim 0, [B, R, C] along dim 1):
// every output is a column, and neighbouring outputs are neighbouring addresses.
//
// So threads never reduce along a row: a block is a tile of tx columns (as 16-byte vectors
// when the rows allow) by ty = 512 / tx rows. Each thread walks down its column, keeping one
// accumulator per element of its vector, with eight rows' loads in flight. A warp therefore
// reads whole rows (tx < 32) or 512 contiguous bytes (tx >= 32) per instruction, whatever C
// is: 4 columns or 4 million. Then the ty threads of each column meet: shuffles inside a
// warp, shared memory across warps.
//
// Work item (b, tile, split): when B x tiles is too small to fill the GPU (a 16.7 M x 4 array
// has one tile), the rows are also split into `splits` pieces, each leaving one partial
// per column; the last block of the tile to arrive combines them in split order.
#pragma once

#include <cstdint>

#include "warpfold/axis/column_combine.cuh"
#include "warpfold/axis/output.cuh"
#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/shifted_vector.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/vector_fold.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::axis {

inline constexpr int columns_block = 512;
// Two 512-thread blocks per SM (64 registers; more spill), so eight loads in flight each.
inline constexpr int rows_in_flight = 8;

struct columns_shape {
  bool vectorized;         // items are 16-byte vectors of columns, else single columns
  bool shifted;            // vectorized, but rows start anywhere: items read by load_shifted
  bool vector_store;       // vectorized, not shifted, and each item's outputs are 16 aligned bytes
  std::int64_t items;      // per row: columns / vector size (rounded up when shifted), or columns
  std::int64_t end;        // shifted: one past the view's last element, as an offset from `in`
  int tile_items;          // tx, a power of two up to columns_block
  std::int64_t tiles;      // per b: ceil(items / tx)
  std::int64_t splits;     // row pieces per tile
};

// Writes a thread's `count` outputs. When they fill 16 bytes (four float sums of a float
// vector) and the output allows, as one 16-byte store: a warp then writes 512 contiguous
// bytes with one instruction rather than four 4-byte stores 16 bytes apart.
template <int N, typename Acc, typename Out>
WARPFOLD_DEVICE void store_items(Out to, const Acc (&items)[N], int count, bool vector_store) {
  if constexpr (is_plain_output<Out> && sizeof(Acc) * N == blocks::vector_bytes) {
    if (vector_store) {
      blocks::vector16<Acc> v;
#pragma unroll
      for (int e = 0; e < N; ++e) v.items[e] = items[e];
      *reinterpret_cast<blocks::vector16<Acc>*>(to) = v;
      return;
    }
  }
#pragma unroll
  for (int e = 0; e < N; ++e)
    if (e < count) to[e] = items[e];
}

// One row of a shifted item: its 16 bytes by load_shifted where both blocks lie inside the
// array, else element by element (the `valid` columns that the row holds; the others fold in
// whatever they are, and are never stored).
template <typename Op, typename Acc, typename T, typename ToAcc>
WARPFOLD_DEVICE void fold_shifted_row(Op op, Acc (&acc)[blocks::vector16<T>::size], const T* at, const T* end,
                                      std::int64_t valid, std::int64_t row, ToAcc to_acc) {
  blocks::vector16<T> v;
  if (shifted_load_fits(at, end)) {
    v = load_shifted(at);
  } else {
#pragma unroll
    for (int e = 0; e < blocks::vector16<T>::size; ++e) v.items[e] = e < valid ? at[e] : T{};
  }
#pragma unroll
  for (int e = 0; e < blocks::vector16<T>::size; ++e) acc[e] = op(acc[e], to_acc(v.items[e], row));
}

// SeveralRuns (p.runs.count > 1) is a template argument, so that its loop's registers do not
// push the one-stride loop into spilling.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out, bool SeveralRuns>
__global__ void __launch_bounds__(columns_block, 2)
    columns_kernel(const T* in, plan p, columns_shape shape, Out out, Op op, ToAcc to_acc, device::scratch_view scratch) {
  blocks::wait_for_prior_kernels();
  Acc* partials = scratch.partials_as<Acc>();  // used only when shape.splits > 1
  constexpr int vector_size = blocks::vector16<T>::size;
  const blocks::streaming_vector_load load;
  const int tx = shape.tile_items;
  const int ty = blockDim.x / tx;
  const int x = threadIdx.x % tx, y = threadIdx.x / tx;
  const int per_item = shape.vectorized ? vector_size : 1;  // columns per item
  const std::int64_t reduced = p.runs.size();
  const std::int64_t groups = p.kept.size() * shape.tiles;
  const std::int64_t work = groups * shape.splits;

  for (std::int64_t w = blockIdx.x; w < work; w += gridDim.x) {
    const std::int64_t group = w / shape.splits, split = w % shape.splits;
    const std::int64_t b = group / shape.tiles, tile = group % shape.tiles;
    const std::int64_t item = tile * tx + x;  // this thread's column item
    const T* column = in + p.kept.offset(b) + item * (shape.vectorized ? per_item : p.inner_stride);
    // The splits interleave: split s takes row blocks s, s + splits, ... of ty rows each, so
    // at any moment the whole grid reads one contiguous stretch of the array, as a full
    // reduction does, instead of `splits` stretches far apart.
    const std::int64_t step = shape.splits * ty;

    Acc acc[vector_size];
#pragma unroll
    for (int e = 0; e < vector_size; ++e) acc[e] = op.template identity<Acc>();
    if constexpr (!SeveralRuns) {
      if (item < shape.items) {
        // One reduced axis (every 2-D case): rows are a fixed stride apart, so addresses step
        // by a pointer increment, with no index arithmetic in the loop.
        const std::int64_t stride = p.runs.count ? p.runs.stride[0] * step : 0;
        std::int64_t j = split * ty + y;
        const T* at = column + (p.runs.count ? j * p.runs.stride[0] : 0);
        constexpr int U = rows_in_flight;
        if (shape.shifted) {
          // Two 16-byte loads a row, so half as many rows in flight, until the rows near the
          // array's end, whose second block might lie past it (then row by row, checked).
          constexpr int H = U / 2;
          const T* end = in + shape.end;
          for (; j + (H - 1) * step < reduced && shifted_load_fits(at + (H - 1) * stride, end); j += H * step, at += H * stride) {
            blocks::vector16<T> v[H];
#pragma unroll
            for (int u = 0; u < H; ++u) v[u] = load_shifted(at + u * stride);
            blocks::fold_column_rows(op, acc, v, j, step, to_acc);
          }
          for (; j < reduced; j += step, at += stride) fold_shifted_row(op, acc, at, end, p.columns - item * per_item, j, to_acc);
        } else if (shape.vectorized) {
          for (; j + (U - 1) * step < reduced; j += U * step, at += U * stride) {
            blocks::vector16<T> v[U];
#pragma unroll
            for (int u = 0; u < U; ++u) v[u] = load(at + u * stride, 0);
            blocks::fold_column_rows(op, acc, v, j, step, to_acc);
          }
          for (; j < reduced; j += step, at += stride) {
            const blocks::vector16<T> v = load(at, 0);
#pragma unroll
            for (int e = 0; e < vector_size; ++e) acc[e] = op(acc[e], to_acc(v.items[e], j));
          }
        } else {
          for (; j + (U - 1) * step < reduced; j += U * step, at += U * stride) {
            T v[U];
#pragma unroll
            for (int u = 0; u < U; ++u) v[u] = at[u * stride];
            acc[0] = blocks::fold_column_rows(op, acc[0], v, j, step, to_acc);
          }
          for (; j < reduced; j += step, at += stride) acc[0] = op(acc[0], to_acc(*at, j));
        }
      }
    } else if (item < shape.items) {
      // Several reduced axes: each row's address from its index (divisions), U rows' loads
      // in flight at a time.
      constexpr int U = rows_in_flight;
      if (shape.shifted) {
        constexpr int H = U / 2;  // two 16-byte loads a row
        const T* end = in + shape.end;
        for (std::int64_t j = split * ty + y; j < reduced; j += H * step) {
          const T* at[H];
#pragma unroll
          for (int u = 0; u < H; ++u) at[u] = column + (j + u * step < reduced ? p.runs.offset(j + u * step) : 0);
#pragma unroll
          for (int u = 0; u < H; ++u)
            if (j + u * step < reduced) fold_shifted_row(op, acc, at[u], end, p.columns - item * per_item, j + u * step, to_acc);
        }
      } else {
        for (std::int64_t j = split * ty + y; j < reduced; j += U * step) {
          std::int64_t at[U];
#pragma unroll
          for (int u = 0; u < U; ++u) at[u] = j + u * step < reduced ? p.runs.offset(j + u * step) : 0;
          if (shape.vectorized) {
            blocks::vector16<T> v[U];
#pragma unroll
            for (int u = 0; u < U; ++u)
              if (j + u * step < reduced) v[u] = load(column + at[u], 0);
#pragma unroll
            for (int u = 0; u < U; ++u)
              if (j + u * step < reduced) {
#pragma unroll
                for (int e = 0; e < vector_size; ++e) acc[e] = op(acc[e], to_acc(v[u].items[e], j + u * step));
              }
          } else {
            T x[U];
#pragma unroll
            for (int u = 0; u < U; ++u)
              if (j + u * step < reduced) x[u] = column[at[u]];
#pragma unroll
            for (int u = 0; u < U; ++u)
              if (j + u * step < reduced) acc[0] = op(acc[0], to_acc(x[u], j + u * step));
          }
        }
      }
    }

    // Column item x of this tile holds `per_item` outputs; write them, or leave partials.
    const std::int64_t tile_columns = std::int64_t(tx) * per_item;
    const std::int64_t first_column = tile * tile_columns;
    Acc total[vector_size];
#pragma unroll
    for (int e = 0; e < vector_size; ++e) {
      if (e < per_item) total[e] = combine_column<columns_block>(acc[e], tx, op);  // the same for the whole block
    }
    // Output column c of b is out[kept_out.offset(b) + c * column_out_stride]: 1 unless the
    // view's kept axes lie in memory in another order than in the output (a permuted view).
    const Out out_b = out + p.kept_out.offset(b);
    const std::int64_t out_step = p.column_out_stride;
    if (threadIdx.x < tx && shape.splits == 1 && item < shape.items) {
      const std::int64_t c = first_column + std::int64_t(x) * per_item;
      // A shifted item may run past the last column.
      const int here = static_cast<int>(p.columns - c < per_item ? p.columns - c : per_item);
      if (out_step == 1) {
        store_items(out_b + c, total, here, shape.vector_store);
      } else {
#pragma unroll
        for (int e = 0; e < vector_size; ++e)
          if (e < here) out_b[(c + e) * out_step] = total[e];
      }
    }
    if (shape.splits == 1) continue;
    if (threadIdx.x < tx)  // this split's slots
      store_items(partials + w * tile_columns + std::int64_t(x) * per_item, total, per_item, shape.vector_store);

    if (!blocks::block_arrives_last(scratch.counters + group, static_cast<unsigned int>(shape.splits))) continue;
    combine_splits<columns_block>(partials + group * shape.splits * tile_columns, shape.splits, tile_columns,
                                  out_b + first_column * out_step, p.columns - first_column, op, out_step);
    __syncthreads();  // every thread is done reading the group's partials
    if (threadIdx.x == 0) blocks::count_group_finished(scratch.finished);
  }
}

}  // namespace warpfold::axis
