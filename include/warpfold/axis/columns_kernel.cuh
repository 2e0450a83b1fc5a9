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
//
// Stacked kept indices: where each kept index has only a few rows (a [B, 6, 427] array over
// the 6), a tile of ty row groups would give each thread one or two rows to load and then a
// combine through shared memory, per work item: a block would wait on memory once per item.
// Then the ty row groups take ty neighbouring kept indices instead, and each thread walks
// every row of its column (its loads in flight together) and writes its outputs itself, with
// no combine (launch.cuh says when).
//
// Merged columns: an output may also be `merge` neighbouring columns (launch.cuh:
// merged_columns_for, runs that lie side by side in memory read as one slab). Tiles then
// start on whole outputs, and each output folds its columns from shared memory.
// Interleaved columns: or `merge` columns `fold_stride` apart (launch.cuh:
// interleaved_columns_for, narrow columns whose rows are read as one slab), each written
// where the plan's out_order puts it; a tile then holds the whole slab.
// Mapped columns: one column an output, written where out_order puts it (launch.cuh:
// mapped_period_columns_for, narrow columns and the kept axes that continue them in memory).
// Shifted columns (rows that start anywhere, shifted_vector.cuh) are read in block space
// where each thread's rows share one shift (realign_block_sums, below).
#pragma once

#include <cstdint>

#include "warpfold/accumulator.hpp"
#include "warpfold/axis/column_combine.cuh"
#include "warpfold/axis/output.cuh"
#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/shifted_vector.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/shared_memory.cuh"
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
  bool stacked;            // row group y of a block takes kept index b ty + y, all its rows
  bool block_space;        // shifted, but each thread's rows share one shift: it sums the aligned
                           // blocks that hold its columns, realigned once per work item
  std::int64_t items;      // per row: columns / vector size (rounded up when shifted), or columns
  std::int64_t end;        // shifted: one past the view's last element, as an offset from `in`
  int tile_items;          // tx, a power of two up to columns_block
  std::int64_t tiles;      // per b: ceil(items / tile_stride)
  std::int64_t splits;     // row pieces per tile
  std::int64_t merge;      // columns per output: 1, or a merged (interleaved) plan's run length (rows)
  std::int64_t fold_stride;  // from one of an output's columns to the next: 1, or an interleaved plan's columns
  int tile_stride;         // items from one tile's start to the next: tile_items, or fewer
                           // when merging, so that every tile holds whole outputs; in block
                           // space tile_items - 1 (the last lane loads the block after the tile)
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

// The same for outputs `step` elements apart (a permuted view's columns): one by one unless
// the step is 1.
template <int N, typename Acc, typename Out>
WARPFOLD_DEVICE void store_items(Out to, const Acc (&items)[N], int count, std::int64_t step, bool vector_store) {
  if (step == 1) return store_items(to, items, count, vector_store);
#pragma unroll
  for (int e = 0; e < N; ++e)
    if (e < count) to[e * step] = items[e];
}

// One row of a shifted item (load_shifted_before: the `valid` columns that the row holds near
// the view's end; the others fold in as zeros, and are never stored).
template <typename Op, typename Acc, typename T, typename ToAcc>
WARPFOLD_DEVICE void fold_shifted_row(Op op, Acc (&acc)[blocks::vector16<T>::size], const T* at, const T* end,
                                      std::int64_t valid, std::int64_t row, ToAcc to_acc) {
  const blocks::vector16<T> v = load_shifted_before(at, end, valid);
  blocks::fold_vector_columns(op, acc, v.items, row, to_acc);
}

// The store of a merging tile: its column totals (or, split, the last block's combine of the
// splits' partials) are staged in shared memory, and each output folds its `merge` columns:
// neighbours, or every fold_stride-th column from its first (interleaved). Merged tiles
// start on whole outputs and plan columns are whole outputs; an interleaved tile holds every
// column. So no output straddles two tiles. A plan with an out_order writes output o of the
// kept index's period at out_order(o). Called by the whole block.
// An output's columns are folded by several lanes (a power of two up to a warp, at most one
// per column, as many as the block's threads allow for the tile's outputs): lane j takes
// columns j, j + lanes, ... in order, then the lanes combine in a fixed tree, so the result
// is the same run to run. (A lane an output made an output of 200 columns one chain of
// 200 dependent shared-memory loads, with the rest of the block waiting at the barrier.)
template <typename Acc, typename Op, typename Out, int N>
WARPFOLD_DEVICE void merge_and_store(const columns_shape& shape, const plan& p, const Acc (&total)[N], bool active,
                                     std::int64_t w, std::int64_t group, std::int64_t first_column, Out out_b, Op op,
                                     Acc* partials, const device::scratch_view& scratch) {
  const int tx = shape.tile_items;
  const int per_item = shape.vectorized ? N : 1;
  const std::int64_t tile_columns = std::int64_t(tx) * per_item;  // the partials' layout
  const std::int64_t held = std::int64_t(shape.tile_stride) * per_item;
  const std::int64_t valid = p.columns - first_column < held ? p.columns - first_column : held;
  Acc* staged = blocks::dynamic_shared<Acc>();
  const int x = threadIdx.x;
  if (shape.splits == 1) {
    if (x < tx && active) {
#pragma unroll
      for (int e = 0; e < N; ++e)
        if (e < per_item && x * per_item + e < valid) staged[x * per_item + e] = total[e];
    }
  } else {
    if (x < tx) store_items(partials + w * tile_columns + std::int64_t(x) * per_item, total, per_item, false);
    if (!blocks::block_arrives_last(scratch.counters + group, static_cast<unsigned int>(shape.splits))) return;
    combine_splits<columns_block>(partials + group * shape.splits * tile_columns, shape.splits, tile_columns, staged,
                                  valid, op);
  }
  __syncthreads();
  const std::int64_t first_output = first_column / shape.merge;
  const bool interleaved = shape.fold_stride > 1;
  const std::int64_t outputs = interleaved ? shape.fold_stride : (valid + shape.merge - 1) / shape.merge;
  int lanes = 1;  // an output's
  while (lanes < blocks::warp_size && 2 * lanes <= shape.merge && std::int64_t(2 * lanes) * outputs <= blockDim.x) lanes *= 2;
  const int outputs_a_round = blockDim.x / lanes;
  const int lane = x % lanes;
  // Every thread runs every round (the shuffles need whole warps), with an output or not.
  for (std::int64_t round = 0; round < outputs; round += outputs_a_round) {
    const std::int64_t o = round + x / lanes;
    Acc folded = op.template identity<Acc>();
    if (o < outputs) {
      const Acc* columns = staged + (interleaved ? o : o * shape.merge);
      for (std::int64_t k = lane; k < shape.merge; k += lanes) folded = op(folded, columns[k * shape.fold_stride]);
    }
    folded = blocks::group_reduce(folded, op, lanes);
    if (lane == 0 && o < outputs) {
      const std::int64_t output = interleaved ? o : first_output + o;
      out_b[p.out_order.identity() ? output * p.column_out_stride : p.out_order(output)] = folded;
    }
  }
  __syncthreads();  // the next work item stages over these, and the partials are read
  if (shape.splits > 1 && x == 0) blocks::count_group_finished(scratch.finished);
}

// Block space (launch.cuh: block_space_columns): shifted rows where every row of a thread
// starts the same number of elements s past a 16-byte boundary (its rows are a multiple of
// the shift's period apart). The thread then sums, row by row, the aligned block that holds
// its item's first column, exactly as the aligned walk sums vectors: slot k of that block is
// column item V - s + k in every one of its rows. Once its rows are done, the tile realigns
// through shared memory: each row group stages its block sums, and item x takes slots
// x V + s .. x V + s + V - 1, the last of them from the next lane's block. So the tile's last
// lane loads (the block after the tile's last item) but holds no item. Called by the whole
// block; `stage` holds columns_block x V accumulators.
template <typename Acc, int N>
WARPFOLD_DEVICE void realign_block_sums(Acc (&acc)[N], Acc* stage, int x, int y, int tx, int shift_items) {
  Acc* row = stage + std::int64_t(y) * tx * N;
#pragma unroll
  for (int k = 0; k < N; ++k) row[x * N + k] = acc[k];
  __syncthreads();
  if (x < tx - 1) {
#pragma unroll
    for (int e = 0; e < N; ++e) acc[e] = row[x * N + e + shift_items];
  }
  __syncthreads();  // the stage is free again (for merge_and_store, or the next work item)
}

// How a thread walks its column's rows: one row stride, the rows 16-byte aligned (or single
// columns); one row stride, rows that may start anywhere (load_shifted: two loads a row);
// several reduced axes (each row's address from its index); one row stride, the rows of
// each thread at one shift, in block space (realign_block_sums: the aligned walk's loop on
// the blocks that hold the columns).
enum class column_walk { stride, shifted_stride, runs, blocks };

// The walk is a template argument, so that the aligned walk has a body of its own: with the
// shifted loop beside it, ptxas (sm_90, 64 registers) spilled 44 bytes a thread for i32 sums
// and 52 for f16, and the aligned loop reloaded them on every batch of rows (Nsight Compute,
// H200: i32 11x347x367x56 over {1, 3, 4}, 607,200 local-memory requests, about one per 16-byte
// row load). Alone, the aligned bodies of sums (f32, f16, i32, f64) spill nothing; wider
// accumulators still do (f16 min 12 bytes, f32 argmax 80, f16 var_mean 372, int8 sums 888).
// H200, 2026-11-29, 30 random cases that take it, 0.970x on geometric mean, none slower by
// 1%; 36 of seeds not tuned on, 0.968x, one 1.057x slower
// (docs/results/H200/axis_column_walks_2026-11-29). The shifted walk keeps the body that
// holds both loops (and its spills): a body with the shifted loop alone ran 12 such cases
// 1.045x slower on geometric mean, up to 1.18x (why was not looked into; its ptxas spills
// were 8-56 bytes either way). A merging launch gives the block tile_items x vector size
// accumulators of dynamic shared memory.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out, column_walk Walk>
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
  const std::int64_t kept = p.kept.size();
  const std::int64_t groups = (shape.stacked ? (kept + ty - 1) / ty : kept) * shape.tiles;
  const std::int64_t work = groups * shape.splits;

  for (std::int64_t w = blockIdx.x; w < work; w += gridDim.x) {
    const std::int64_t group = w / shape.splits, split = w % shape.splits;
    const std::int64_t tile = group % shape.tiles;
    const std::int64_t b = shape.stacked ? group / shape.tiles * ty + y : group / shape.tiles;
    const std::int64_t item = tile * shape.tile_stride + x;  // this thread's column item
    const bool active = x < shape.tile_stride && item < shape.items && b < kept;
    // In block space the lane after the last item loads too: its block holds that item's last
    // columns (realign_block_sums); there tile_stride is tx - 1, so every lane of the tile may.
    const bool loads = active || (shape.block_space && item <= shape.items && b < kept);
    const T* column = in + (b < kept ? p.kept.offset(b) : 0) + item * (shape.vectorized ? per_item : p.inner_stride);
    // The splits interleave: split s takes row blocks s, s + splits, ... of ty rows each, so
    // at any moment the whole grid reads one contiguous stretch of the array, as a full
    // reduction does, instead of `splits` stretches far apart. Stacked, a thread takes every
    // row of its column.
    const std::int64_t first_row = shape.stacked ? 0 : split * ty + y;
    const std::int64_t step = shape.stacked ? 1 : shape.splits * ty;

    Acc acc[vector_size];
#pragma unroll
    for (int e = 0; e < vector_size; ++e) acc[e] = op.template identity<Acc>();
    if constexpr (Walk != column_walk::runs) {
      if (Walk == column_walk::blocks ? loads : active) {
        // One reduced axis (every 2-D case): rows are a fixed stride apart, so addresses step
        // by a pointer increment, with no index arithmetic in the loop.
        const std::int64_t stride = p.runs.count ? p.runs.stride[0] * step : 0;
        std::int64_t j = first_row;
        const T* at = column + (p.runs.count ? j * p.runs.stride[0] : 0);
        constexpr int U = rows_in_flight;
        // The shifted walk's plans are all shifted (launch_columns), so in its body the aligned
        // loops below are never taken; they stay compiled there on purpose, as the body without
        // them ran slower (the comment above the kernel). The aligned walk drops this loop.
        if (Walk == column_walk::shifted_stride && shape.shifted) {
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
          // In block space, `at` steps through the blocks that hold the rows' columns, and only
          // rows whose block ends by the view's end go in batches (the last rows' last blocks
          // may not: they are read element by element, checked).
          std::int64_t batch_end = reduced;
          if constexpr (Walk == column_walk::blocks) {
            at -= shift_bytes_of(at) / sizeof(T);
            const std::int64_t room = shape.end - (at - in) - vector_size;  // elements, from this block
            const std::int64_t fitting = room < 0 ? 0 : room / stride + 1;    // rows whose blocks fit
            if (fitting < (reduced - j + step - 1) / step) batch_end = j + fitting * step;
          }
          for (; j + (U - 1) * step < batch_end; j += U * step, at += U * stride) {
            blocks::vector16<T> v[U];
#pragma unroll
            for (int u = 0; u < U; ++u) v[u] = load(at + u * stride, 0);
            blocks::fold_column_rows(op, acc, v, j, step, to_acc);
          }
          for (; j < reduced; j += step, at += stride) {
            const blocks::vector16<T> v =
                Walk == column_walk::blocks ? load_block_before(at, in + shape.end) : load(at, 0);
            blocks::fold_vector_columns(op, acc, v.items, j, to_acc);
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
    } else if (active) {
      // Several reduced axes: each row's address from its index (divisions), U rows' loads
      // in flight at a time.
      constexpr int U = rows_in_flight;
      if (shape.shifted) {
        constexpr int H = U / 2;  // two 16-byte loads a row
        const T* end = in + shape.end;
        for (std::int64_t j = first_row; j < reduced; j += H * step) {
          const T* at[H];
#pragma unroll
          for (int u = 0; u < H; ++u) at[u] = column + (j + u * step < reduced ? p.runs.offset(j + u * step) : 0);
#pragma unroll
          for (int u = 0; u < H; ++u)
            if (j + u * step < reduced) fold_shifted_row(op, acc, at[u], end, p.columns - item * per_item, j + u * step, to_acc);
        }
      } else {
        for (std::int64_t j = first_row; j < reduced; j += U * step) {
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
              if (j + u * step < reduced) blocks::fold_vector_columns(op, acc, v[u].items, j + u * step, to_acc);
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

    if constexpr (Walk == column_walk::blocks) {
      const T* first = column + (p.runs.count ? first_row * p.runs.stride[0] : 0);
      realign_block_sums(acc, blocks::dynamic_shared<Acc>(), x, y, tx, static_cast<int>(shift_bytes_of(first) / sizeof(T)));
    }

    // Column item x of this tile holds `per_item` outputs; write them, or leave partials.
    const std::int64_t tile_columns = std::int64_t(tx) * per_item;
    const std::int64_t first_column = tile * shape.tile_stride * per_item;
    Acc total[vector_size];
#pragma unroll
    for (int e = 0; e < vector_size; ++e) {
      // Stacked: the thread's own column total. Otherwise the same call for the whole block.
      if (e < per_item) total[e] = shape.stacked ? acc[e] : combine_column<columns_block>(acc[e], tx, op);
    }
    // Output column c of b is out[kept_out.offset(b) + c * column_out_stride]: 1 unless the
    // view's kept axes lie in memory in another order than in the output (a permuted view).
    const Out out_b = out + p.kept_out.offset(b);
    const std::int64_t out_step = p.column_out_stride;
    if constexpr (!is_arg_op_v<Op>) {  // argmin/argmax never merge (launch.cuh)
      if (shape.merge > 1 || !p.out_order.identity()) {
        merge_and_store(shape, p, total, active, w, group, first_column, out_b, op, partials, scratch);
        continue;
      }
    }
    if ((shape.stacked || threadIdx.x < tx) && shape.splits == 1 && active) {
      const std::int64_t c = first_column + std::int64_t(x) * per_item;
      // A shifted item may run past the last column.
      const int here = static_cast<int>(p.columns - c < per_item ? p.columns - c : per_item);
      store_items(out_b + c * out_step, total, here, out_step, shape.vector_store);
    }
    if (shape.splits == 1) continue;
    if (threadIdx.x < tx)  // this split's slots
      store_items(partials + w * tile_columns + std::int64_t(x) * per_item, total, per_item, shape.vector_store);

    if (!blocks::block_arrives_last(scratch.counters + group, static_cast<unsigned int>(shape.splits))) continue;
    const std::int64_t held = std::int64_t(shape.tile_stride) * per_item;  // the tile's own columns
    combine_splits<columns_block>(partials + group * shape.splits * tile_columns, shape.splits, tile_columns,
                                  out_b + first_column * out_step, p.columns - first_column < held ? p.columns - first_column : held,
                                  op, out_step);
    __syncthreads();  // every thread is done reading the group's partials
    if (threadIdx.x == 0) blocks::count_group_finished(scratch.finished);
  }
}

}  // namespace warpfold::axis
