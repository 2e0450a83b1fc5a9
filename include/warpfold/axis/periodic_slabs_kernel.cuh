// Narrow columns in many slabs: [.., K, .., R, C] reduced over R and every axis above it but
// the kept ones, where each (kept index, outer reduced index) owns one contiguous slab of R
// rows of C columns, S >= C elements apart (f32 [7, 18, 53400, 14] over {0, 2}: 126 slabs of
// 53400 x 14 floats; f32 [2, 2, 56, 4597, 36] over {1, 3}). periodic_columns_kernel reads one
// such matrix flat; here there are many, so the flat walk runs inside a slab.
//
// Work item ("piece") = one chunk of one slab's aligned 16-byte body. A block (512 or 1024
// threads) takes pieces in turn. Its first A threads take vectors begin + t, begin + t + A,
// ... of its chunk, where A x V is a multiple of S, so element e of each of a thread's vectors
// is always at the same place in a row, as in periodic_columns_kernel, and each thread keeps
// one accumulator per element of its vector. At the end of the piece the block stages them,
// folds each column from the staged values (a group of lanes per column), folds the slab's
// head and tail in its first and last piece, and leaves C partials. The last block of a kept
// index's pieces (an arrival counter per kept index) adds them up in piece order and writes
// the kept index's C outputs; a kept index of one piece is written by its block directly. One
// launch, fixed order, so float results repeat.
//
// Why: the columns kernel's tiles are at least a warp of column items wide, so C = 14 floats
// (read an element a load, 14 of 32 lanes busy) or 36 aligned floats (9 vectors) leave most
// lanes idle: f32 [7, 18, 53400, 14] over {0, 2} took 487 us there (300 M warp instructions),
// 113 us read flat here; f32 [2, 2, 56, 4597, 36] over {1, 3} 135 -> 54 us (H200, 2026-11-30,
// cold L2; axis/launch.cuh, periodic_slabs_for, has the random cases' before and after).
#pragma once

#include <cstdint>

#include "warpfold/axis/column_combine.cuh"
#include "warpfold/axis/flat_rows_kernel.cuh"
#include "warpfold/axis/periodic_columns_kernel.cuh"
#include "warpfold/axis/plan.hpp"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::axis {

// Loads in flight a thread: eight, where periodic_columns_kernel keeps four at twice the
// threads an SM (its 1024-thread blocks, two an SM for 4-byte types, need 32 registers).
inline constexpr int slab_loads_in_flight = 8;

struct periodic_slabs_shape {
  strided_dims kept;      // kept index g's slabs start at kept.offset(g) + slabs.offset(j)
  strided_dims kept_out;  // and its outputs at kept_out.offset(g) + c * out_step
  strided_dims slabs;     // the reduced axes above the rows (none: one slab a kept index)
  std::int64_t slab_elements;  // (R - 1) S + C
  std::int64_t chunks;         // pieces a slab
  std::int64_t pieces_per_kept;
  std::int64_t pieces;
  std::int64_t out_step;
  int row_stride;  // S
  int columns;     // C
  int padded_columns;
  int block;   // threads a block: 512 or 1024
  int active;  // A, of the block's threads
  // Whether each kept index is one piece (one slab, one chunk): its block writes the outputs
  // itself, with no partials, counter or combine.
  WARPFOLD_HOST_DEVICE bool piece_per_kept() const { return pieces_per_kept == 1; }
};

// 64 registers a thread, for every type: at periodic_columns_kernel's 32 (two 1024-thread
// blocks an SM for 4-byte types) the piece loop spilled 144 bytes a thread, and f32 slabs
// moved a third more through L2 than they read (H200, 2026-11-30). A 512-thread block runs two
// an SM.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(flat_block, 1)
    periodic_slabs_kernel(const T* in, periodic_slabs_shape s, Out out, Op op, ToAcc to_acc,
                          device::scratch_view scratch) {
  blocks::wait_for_prior_kernels();
  constexpr int V = blocks::vector16<T>::size;
  constexpr int L = slab_loads_in_flight;
  static_assert(periodic_columns_fit<T, Acc>, "the staged accumulators must fit in 32 KB");
  __shared__ Acc staged[flat_block * V];
  const blocks::streaming_vector_load load;
  Acc* partials = scratch.partials_as<Acc>();
  const int S = s.row_stride;
  const staged_column_lanes lanes(s.columns);

  for (std::int64_t piece = blockIdx.x; piece < s.pieces; piece += gridDim.x) {
    const std::int64_t kept = piece / s.pieces_per_kept, within = piece % s.pieces_per_kept;
    const std::int64_t slab = within / s.chunks, chunk = within % s.chunks;
    const T* base = in + s.kept.offset(kept) + s.slabs.offset(slab);
    const blocks::aligned_split split = blocks::split_at_alignment(base, s.slab_elements);
    const index_range range = chunk_of(split.body_vectors, s.chunks, chunk);
    // The piece's vectors from its first, in 32 bits (periodic_slabs_for: a slab holds fewer
    // than 2^31): fewer registers live across the loop, which spilled in 64 bits.
    const T* piece_body = base + split.head + range.begin * V;
    const int vectors = static_cast<int>(range.end - range.begin);
    const int first = static_cast<int>((split.head + range.begin * V) % S);

    Acc acc[V];
#pragma unroll
    for (int e = 0; e < V; ++e) acc[e] = op.template identity<Acc>();
    const int A = s.active;
    int v = static_cast<int>(threadIdx.x) < A ? static_cast<int>(threadIdx.x) : vectors;
    for (; v + (L - 1) * A < vectors; v += L * A) {
      blocks::vector16<T> x[L];
#pragma unroll
      for (int u = 0; u < L; ++u) x[u] = load(piece_body, v + u * A);
#pragma unroll
      for (int u = 0; u < L; ++u) blocks::fold_vector_columns(op, acc, x[u].items, 0, to_acc);
    }
    // The rest (fewer than L a thread) in batches of flat_loads_in_flight, each batch's loads in
    // flight together (a piece holds a few batches a thread: one loop trip a load would wait a
    // round trip for each).
    constexpr int Tail = flat_loads_in_flight;
    for (; v < vectors; v += Tail * A) {
      blocks::vector16<T> x[Tail];
#pragma unroll
      for (int u = 1; u < Tail; ++u)
        if (v + u * A < vectors) x[u] = load(piece_body, v + u * A);
      x[0] = load(piece_body, v);
      blocks::fold_vector_columns(op, acc, x[0].items, 0, to_acc);
#pragma unroll
      for (int u = 1; u < Tail; ++u)
        if (v + u * A < vectors) blocks::fold_vector_columns(op, acc, x[u].items, 0, to_acc);
    }

    // Staged value k (thread k / V, element k % V) is at (first + k) mod S in its row.
    __syncthreads();  // the previous piece's column folds are done reading `staged`
#pragma unroll
    for (int e = 0; e < V; ++e) staged[threadIdx.x * V + e] = acc[e];
    __syncthreads();
    const int staged_values = static_cast<int>(blockDim.x) * V;
    Acc* piece_partials = partials + piece * s.padded_columns;
    // The loop bound depends on the warp only, so every lane reaches group_reduce together.
    for (int first_of_warp = lanes.first_of_warp(); first_of_warp < s.columns; first_of_warp += lanes.step()) {
      const int c = lanes.column(first_of_warp);
      Acc total = op.template identity<Acc>();
      if (c < s.columns) {
        total = fold_staged_column(staged, staged_values, c, first, S, lanes, op);
        // The slab's elements before its first 16-byte boundary (its first piece), and after
        // its last (its last piece).
        if (lanes.leads())
          total = fold_column_outside_body(base, chunk == 0 ? split.head : 0,
                                           chunk == s.chunks - 1 ? split.tail_begin : s.slab_elements,
                                           s.slab_elements, c, S, total, op, to_acc);
      }
      total = blocks::group_reduce(total, op, lanes.G);
      if (lanes.leads() && c < s.columns) {
        if (s.piece_per_kept())
          out[s.kept_out.offset(kept) + c * s.out_step] = total;
        else
          piece_partials[c] = total;
      }
    }
    if (s.piece_per_kept()) continue;
    // Padded columns (up to the power of two that combine_splits takes) hold the identity.
    for (int c = s.columns + static_cast<int>(threadIdx.x); c < s.padded_columns; c += blockDim.x)
      piece_partials[c] = op.template identity<Acc>();
    if (!blocks::block_arrives_last(scratch.counters + kept, static_cast<unsigned int>(s.pieces_per_kept))) continue;
    combine_splits<flat_block, periodic_combine_loads>(partials + kept * s.pieces_per_kept * s.padded_columns,
                                                       s.pieces_per_kept, s.padded_columns,
                                                       out + s.kept_out.offset(kept), s.columns, op, s.out_step);
    __syncthreads();  // every thread of the block is done reading the partials
    if (threadIdx.x == 0) blocks::count_group_finished(scratch.finished);
  }
}

}  // namespace warpfold::axis
