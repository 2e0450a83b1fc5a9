// Long rows, or outputs made of several runs ([rows, R] along dim 1 for R from about 8K
// floats up, or [R1, K, R2] over {0, 2}): a whole block per output, and, when there are too
// few outputs to fill the GPU, several blocks per output.
//
// Each output's work is cut into `chunks` parts; work item (output, chunk) is one block's
// job. A block streams its part with the production reduce's thread layer (16-byte loads at
// any alignment), reduces it, and either writes the output (one chunk) or leaves a partial;
// the last of the output's blocks to arrive combines the partials (in scratch memory) in chunk
// order. So sixteen
// 16 MB rows still keep every SM busy, in one launch, with a fixed combine order.
#pragma once

#include <algorithm>
#include <cstdint>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/run_lattice.cuh"
#include "warpfold/blocks/block_reduce.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/thread_reduce.cuh"

namespace warpfold::axis {

inline constexpr int row_chunks_block = 512;
// Blocks run two per SM at up to 64 registers per thread (more spill), so each thread keeps
// eight 16-byte loads in flight, where the production kernel's twice as many threads keep four.
inline constexpr int row_loads_in_flight = 8;
// Moments merge once per vector here: merged per batch of eight, var_mean of halves spilled 328
// bytes per thread within that budget, against 96 (ptxas, sm_90).
inline constexpr bool batch_moments = false;

// How a block reads an output's runs: long runs in pieces with the whole block on one run;
// short runs (and the runs of a stepped view) through the run lattice, in vectors (every run
// aligned) or elements; unaligned runs of 64 elements and more, and runs of up to eight
// rounds of the block's loads, by teams, each on a run.
enum class runs_mode { long_runs, vector_lattice, element_lattice, team_runs };

// Lattice: compiled apart from the other modes (a template argument, not a runtime branch),
// so that the lattice's extra registers cannot push the long-run loops into spilling.
template <typename T, typename Acc, typename Op, typename ToAcc, typename Out, bool Lattice>
__global__ void __launch_bounds__(row_chunks_block, 2)
    row_chunks_kernel(const T* in, plan p, std::int64_t chunks, runs_mode mode, int team, Out out, Op op,
                      ToAcc to_acc, device::scratch_view scratch) {
  blocks::wait_for_prior_kernels();
  Acc* partials = scratch.partials_as<Acc>();  // used only when chunks > 1
  const std::int64_t run = p.run_length;
  const std::int64_t per_output = p.runs.size() * run;
  const std::int64_t items = p.outputs * chunks;
  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const std::int64_t output = item / chunks, chunk = item % chunks;
    const T* base = in + p.kept.offset(output);

    Acc acc = op.template identity<Acc>();
    if constexpr (Lattice) {
      if (p.runs.count == 0) {
        // One run of a stepped view (x[:, ::2]): element by element, in the grid-stride order
        // of the contiguous case below, four loads in flight.
        constexpr int U = 4;
        const std::int64_t count = chunks * blockDim.x, s = p.inner_stride;
        std::int64_t i = chunk * blockDim.x + threadIdx.x;
        for (; i + (U - 1) * count < run; i += U * count) {
          T x[U];
#pragma unroll
          for (int u = 0; u < U; ++u) x[u] = base[(i + u * count) * s];
#pragma unroll
          for (int u = 0; u < U; ++u) acc = op(acc, to_acc(x[u], i + u * count));
        }
        for (; i < run; i += count) acc = op(acc, to_acc(base[i * s], i));
      } else {
        // Several short runs (a [R1, K, R2] array over {0, 2}, a 4-D array over two
        // interleaved axes): a block on one run at a time would leave most of its threads
        // idle. Chunk c of the output is the c-th of `chunks` equal shares of its runs, read
        // through the run lattice.
        const index_range share = chunk_of(p.runs.size(), chunks, chunk);
        acc = fold_runs<row_loads_in_flight / 2>(base, p.runs, share.begin, share.end, run, p.inner_stride,
                                                 mode == runs_mode::vector_lattice, threadIdx.x, blockDim.x, acc,
                                                 op, to_acc);
      }
    } else if (p.runs.count == 0) {
      // One run: the output's blocks stride through it together, block c taking vectors
      // c * 512 + t, (c + chunks) * 512 + t, ..., the production reduce's grid-stride order.
      // At any moment they read one contiguous stretch, which DRAM serves best.
      acc = blocks::thread_reduce_vectorized<row_loads_in_flight, blocks::streaming_vector_load, blocks::vector_bytes,
                                             batch_moments>(
          base, run, chunk * blockDim.x + threadIdx.x, chunks * blockDim.x, op, acc, to_acc);
    } else if (mode == runs_mode::team_runs) {
      // Runs of a few hundred elements and more that do not all start 16-byte aligned, or of a
      // few thousand: teams of `team` threads take whole runs (chunk c the c-th share of
      // them), each read 16 bytes at a time from its first aligned vector.
      const index_range share = chunk_of(p.runs.size(), chunks, chunk);
      const int teams = blockDim.x / team, lane = threadIdx.x % team;
      for (std::int64_t j = share.begin + threadIdx.x / team; j < share.end; j += teams)
        acc = blocks::thread_reduce_vectorized<row_loads_in_flight / 2, blocks::streaming_vector_load,
                                               blocks::vector_bytes, batch_moments>(
            base + p.runs.offset(j), run, lane, team, op, acc, blocks::shift_index<ToAcc>{to_acc, j * run});
    } else {
      // Several long runs: block c takes the c-th of `chunks` equal pieces of their concatenation.
      const index_range piece = chunk_of(per_output, chunks, chunk);
      for (std::int64_t j = piece.begin / run; j * run < piece.end; ++j) {
        const std::int64_t lo = std::max(piece.begin, j * run), hi = std::min(piece.end, (j + 1) * run);
        acc = blocks::thread_reduce_vectorized<row_loads_in_flight, blocks::streaming_vector_load, blocks::vector_bytes,
                                             batch_moments>(
            base + p.runs.offset(j) + (lo - j * run), hi - lo, threadIdx.x, blockDim.x, op, acc,
            blocks::shift_index<ToAcc>{to_acc, lo});
      }
    }
    acc = blocks::block_reduce(acc, op);

    if (chunks == 1) {
      if (threadIdx.x == 0) out[p.out_order(output)] = acc;
      continue;
    }
    if (threadIdx.x == 0) partials[item] = acc;
    if (!blocks::block_arrives_last(scratch.counters + output, static_cast<unsigned int>(chunks))) continue;
    Acc total = op.template identity<Acc>();
    for (std::int64_t c = threadIdx.x; c < chunks; c += blockDim.x)
      total = op(total, blocks::load_from_other_blocks(partials + output * chunks + c));
    total = blocks::block_reduce(total, op);  // thread 0 has it once every load has returned
    if (threadIdx.x == 0) {
      blocks::count_group_finished(scratch.finished);
      out[p.out_order(output)] = total;
    }
  }
}

}  // namespace warpfold::axis
