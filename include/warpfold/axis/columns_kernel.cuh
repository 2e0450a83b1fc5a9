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

#include "warpfold/axis/plan.hpp"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::axis {

inline constexpr int columns_block = 512;
// Two 512-thread blocks per SM (64 registers; more spill), so eight loads in flight each.
inline constexpr int rows_in_flight = 8;

struct columns_shape {
  bool vectorized;         // items are 16-byte vectors of columns, else single columns
  std::int64_t items;      // per row: columns / vector size, or columns
  int tile_items;          // tx, a power of two up to columns_block
  std::int64_t tiles;      // per b: ceil(items / tx)
  std::int64_t splits;     // row pieces per tile
};

// Combines the values of the ty threads that share a column (threadIdx.x % tx). Every thread
// calls it; the result is valid in threads 0 .. tx - 1.
template <typename Acc, typename Op>
WARPFOLD_DEVICE Acc combine_column(Acc value, int tx, Op op) {
  __shared__ Acc rows[columns_block];
  const int lane = threadIdx.x % blocks::warp_size;
  if (tx < blocks::warp_size) {  // the warp's 32 / tx rows first, with shuffles
    for (int delta = tx; delta < blocks::warp_size; delta *= 2) value = op(value, blocks::shuffle_down(value, delta));
  }
  const bool in_warp = tx < blocks::warp_size;
  const int contributors = in_warp ? blockDim.x / blocks::warp_size : blockDim.x / tx;
  if (contributors == 1) return value;
  const int row = in_warp ? threadIdx.x / blocks::warp_size : threadIdx.x / tx;
  __syncthreads();  // an earlier call may still be reading rows
  if (!in_warp || lane < tx) rows[row * tx + threadIdx.x % tx] = value;
  __syncthreads();
  if (threadIdx.x < tx) {
    for (int r = 1; r < contributors; ++r) value = op(value, rows[r * tx + threadIdx.x]);
  }
  return value;
}

// The last block of a tile adds up its splits' partials: a [splits, tile_columns] matrix
// reduced along dim 0, in split order. It is itself a small column reduction, so it takes
// the same thread layout (cx columns by 512 / cx splits, then combine_column), rather than
// one thread walking all splits of a column one dependent load after another.
template <typename Acc, typename Op>
WARPFOLD_DEVICE void combine_splits(const Acc* tile_partials, std::int64_t splits, std::int64_t tile_columns, Acc* out,
                                    std::int64_t valid_columns, Op op) {
  const int cx = tile_columns < columns_block ? static_cast<int>(tile_columns) : columns_block;  // a power of two
  const int cy = blockDim.x / cx;
  const int x = threadIdx.x % cx, y = threadIdx.x / cx;
  for (std::int64_t first = 0; first < tile_columns; first += cx) {  // the same for the whole block
    const std::int64_t k = first + x;
    Acc total = op.template identity<Acc>();
    std::int64_t s = y;
    for (; s + 3 * cy < splits; s += 4 * cy) {
      Acc v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = blocks::load_from_other_blocks(tile_partials + (s + u * cy) * tile_columns + k);
#pragma unroll
      for (int u = 0; u < 4; ++u) total = op(total, v[u]);
    }
    for (; s < splits; s += cy) total = op(total, blocks::load_from_other_blocks(tile_partials + s * tile_columns + k));
    total = combine_column(total, cx, op);
    if (threadIdx.x < cx && k < valid_columns) out[k] = total;
  }
}

template <typename T, typename Acc, typename Op, typename ToAcc>
__global__ void __launch_bounds__(columns_block, 2)
    columns_kernel(const T* in, plan p, columns_shape shape, Acc* out, Acc* partials, unsigned int* arrivals, Op op,
                   ToAcc to_acc) {
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
    const T* column = in + p.kept.offset(b) + item * per_item;
    // The splits interleave: split s takes row blocks s, s + splits, ... of ty rows each, so
    // at any moment the whole grid reads one contiguous stretch of the array, as a full
    // reduction does, instead of `splits` stretches far apart.
    const std::int64_t step = shape.splits * ty;

    Acc acc[vector_size];
#pragma unroll
    for (int e = 0; e < vector_size; ++e) acc[e] = op.template identity<Acc>();
    if (item < shape.items && p.runs.count <= 1) {
      // One reduced axis (every 2-D case): rows are a fixed stride apart, so addresses step
      // by a pointer increment, with no index arithmetic in the loop.
      const std::int64_t stride = p.runs.count ? p.runs.stride[0] * step : 0;
      std::int64_t j = split * ty + y;
      const T* at = column + (p.runs.count ? j * p.runs.stride[0] : 0);
      constexpr int U = rows_in_flight;
      if (shape.vectorized) {
        for (; j + (U - 1) * step < reduced; j += U * step, at += U * stride) {
          blocks::vector16<T> v[U];
#pragma unroll
          for (int u = 0; u < U; ++u) v[u] = load(at + u * stride, 0);
#pragma unroll
          for (int u = 0; u < U; ++u)
#pragma unroll
            for (int e = 0; e < vector_size; ++e) acc[e] = op(acc[e], to_acc(v[u].items[e], j + u * step));
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
#pragma unroll
          for (int u = 0; u < U; ++u) acc[0] = op(acc[0], to_acc(v[u], j + u * step));
        }
        for (; j < reduced; j += step, at += stride) acc[0] = op(acc[0], to_acc(*at, j));
      }
    } else if (item < shape.items) {
      // Several reduced axes: each row's address from its index (divisions), one at a time.
      for (std::int64_t j = split * ty + y; j < reduced; j += step) {
        const T* at = column + p.runs.offset(j);
        if (shape.vectorized) {
          const blocks::vector16<T> v = load(at, 0);
#pragma unroll
          for (int e = 0; e < vector_size; ++e) acc[e] = op(acc[e], to_acc(v.items[e], j));
        } else {
          acc[0] = op(acc[0], to_acc(*at, j));
        }
      }
    }

    // Column item x of this tile holds `per_item` outputs; write them, or leave partials.
    const std::int64_t tile_columns = std::int64_t(tx) * per_item;
    const std::int64_t first_column = tile * tile_columns;
    Acc* partial = partials + w * tile_columns;  // this split's slots, when splits > 1
#pragma unroll
    for (int e = 0; e < vector_size; ++e) {
      if (e < per_item) {  // the same for the whole block
        const Acc total = combine_column(acc[e], tx, op);
        const std::int64_t column_index = first_column + std::int64_t(x) * per_item + e;
        if (threadIdx.x < tx) {
          if (shape.splits == 1) {
            if (column_index < p.columns) out[b * p.columns + column_index] = total;
          } else {
            partial[x * per_item + e] = total;
          }
        }
      }
    }
    if (shape.splits == 1) continue;

    if (!blocks::block_arrives_last(arrivals + group, static_cast<unsigned int>(shape.splits))) continue;
    combine_splits(partials + group * shape.splits * tile_columns, shape.splits, tile_columns,
                   out + b * p.columns + first_column, p.columns - first_column, op);
  }
}

}  // namespace warpfold::axis
