// Narrow columns: [R, C] along dim 0 with rows of 1, 2, 4, 8, 16 or 32 16-byte vectors
// (C = 4 to 128 floats; 16777216x4, 1048576x64), read as one flat run of vectors like the
// full reduce. Thread t of a grid of T threads takes vectors t, t + T, ...; T is a multiple
// of 32 and of the row's V vectors, so all of a thread's vectors sit at the same place in
// their rows: thread t always holds columns (t mod V) * per_vector onwards. It keeps one
// accumulator per element of its vector; then the threads with the same t mod V meet
// (combine_column), each block leaves its C column values as partials, and the last block to
// arrive adds them up in block order (combine_splits). One launch, fixed order.
//
// Why a kernel of its own: columns_kernel walks column tiles down runtime row ranges, at two
// 512-thread blocks per SM. Here there is nothing to walk but the flat index, so two
// 1024-thread blocks per SM fit, as in the full reduce. H100, 2026-11-22, float32 C = 4, 16,
// 64: 94.1%, 93.8% and 91.8% of the read ceiling, against 90.0%, 90.2% and 88.9%.
#pragma once

#include <cstdint>

#include "warpfold/axis/column_combine.cuh"
#include "warpfold/axis/flat_rows_kernel.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/vector_fold.cuh"

namespace warpfold::axis {

template <typename T, typename Acc, typename Op, typename ToAcc, typename Out>
__global__ void __launch_bounds__(flat_block, (flat_blocks_per_sm<T, Acc>))
    flat_columns_kernel(const T* in, std::int64_t vectors, int log2_row_vectors, Out out, Op op, ToAcc to_acc,
                        device::scratch_view scratch) {
  blocks::wait_for_prior_kernels();
  constexpr int per_vector = blocks::vector16<T>::size;
  constexpr int L = flat_loads_in_flight;
  const blocks::streaming_vector_load load;
  const std::int64_t count = std::int64_t(gridDim.x) * blockDim.x;
  Acc acc[per_vector];
#pragma unroll
  for (int e = 0; e < per_vector; ++e) acc[e] = op.template identity<Acc>();
  // argmin/argmax report the row: the vector's index divided by the vectors per row.
  auto fold_vector = [&](const blocks::vector16<T>& x, std::int64_t at) {
    const std::int64_t row = at >> log2_row_vectors;
    blocks::fold_vector_columns(op, acc, x.items, row, to_acc);
  };

  std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; v + (L - 1) * count < vectors; v += L * count) {
    blocks::vector16<T> x[L];
#pragma unroll
    for (int u = 0; u < L; ++u) x[u] = load(in, v + u * count);
    // count is a multiple of the vectors per row, so the L vectors hold the same columns of
    // L rows, count / row_vectors rows apart.
    blocks::fold_column_rows(op, acc, x, v >> log2_row_vectors, count >> log2_row_vectors, to_acc);
  }
  for (; v < vectors; v += count) fold_vector(load(in, v), v);

  const int row_vectors = 1 << log2_row_vectors;
  const std::int64_t columns = std::int64_t(row_vectors) * per_vector;
  Acc* partials = scratch.partials_as<Acc>();
  Acc* block_partials = partials + blockIdx.x * columns;
#pragma unroll
  for (int e = 0; e < per_vector; ++e) {
    const Acc total = combine_column<flat_block>(acc[e], row_vectors, op);
    if (threadIdx.x < row_vectors) block_partials[threadIdx.x * per_vector + e] = total;
  }
  if (!blocks::block_arrives_last(scratch.arrivals, gridDim.x)) return;
  combine_splits<flat_block>(partials, gridDim.x, columns, out, columns, op);
  __syncthreads();  // every thread of the last block is done reading the partials
  if (threadIdx.x == 0) blocks::record_launch_finished(scratch.finished, scratch.finished_after);
}

}  // namespace warpfold::axis
