// Tuning for the production reduce, as data. The benchmark prints the policy it ran.
#pragma once

#include <cstdint>

namespace warpfold::device {

struct reduce_policy {
  // The kernel is compiled for blocks of up to 1024 threads and launched in one of four shapes
  // (device/dispatch.cuh): one block, one cluster, a wave of mid-size blocks, or the streaming shape.
  static constexpr int max_block_size = 1024;

  // Small and mid inputs: 512-thread blocks, up to one full resident wave. Measured on an H200
  // (2026-11-22, f32, back-to-back calls against 256 threads): 512 threads win at 2^14 (3.4 vs
  // 3.9 us) and 2^22 (8.7 vs 9.3 us).
  static constexpr int block_size = 512;

  // Large inputs: 1024-thread blocks, two per SM, the shape of the fastest streaming-read
  // kernel. H100, 2026-11-22, f32 sum: 3123 GB/s at 2^28 and 3135 GB/s at 2^30, against 3086
  // and 3097 GB/s for a full wave of 512-thread blocks (CUB: 3078 and 3097).
  static constexpr int large_block_size = 1024;
  static constexpr int large_blocks_per_sm = 2;
  static constexpr std::int64_t large_input_bytes = std::int64_t{32} << 20;

  // 16-byte loads issued back to back by each thread before it adds them: 64 bytes in flight
  // per thread per iteration, which covers DRAM latency at full occupancy (8 measured no better).
  // var_mean and argmin/argmax of halves hold one 1024-thread block per SM (56 and 36
  // registers), so half the loads in flight of the sum, and none while they fold. Not what
  // keeps them at 96-97% of the ceiling at 2^28: at 2^30 they stream at it (about 1% behind
  // the sum), and the gap (1.5-3.5 us from 2^24 to 2^28, H200, 2026-11-28) is a fixed cost.
  // Their loads staged in shared memory instead (cp.async, two batches of four ahead, 192 KB a
  // block; branch experiment/staged-loads) made them 14-31% slower from 2^24 to 2^30, in the
  // same run (docs/results/H200/staging_2026-11-28).
  static constexpr int loads_in_flight = 4;
  // A block is only worth launching for at least this many 16-byte vectors per thread;
  // below that, fewer blocks with more work each beat many blocks that mostly wait.
  static constexpr int min_vectors_per_thread = 4;
  // Inputs up to this many bytes are reduced by one block: no partials, no counter, no fence.
  // One block reads 64 KB in two rounds of loads; at 128 KB (four rounds) several blocks win:
  // H100, 2026-11-22, f64 sums back to back: 6.1 us for 128 KB in one block, 5.1 us for
  // 512 KB in many.
  static constexpr std::int64_t single_block_max_bytes = 64 * 1024;

  // Above that and up to cluster_max_bytes, on sm_90 and later: one thread-block cluster of up
  // to 16 blocks of 512 threads, each reading up to 32 KB in one round of loads, whose partials
  // meet in block 0's shared memory (blocks/cluster_finish.cuh). H100, 2026-11-22, GPU time
  // per call (graph replay, cold f32 input), 256 KB / 512 KB: 2.35 / 2.51 us, against 2.82 /
  // 2.97 us for clusters of 1024-thread blocks and 3.31 / 3.35 us for 512-thread blocks with
  // the one-pass finish. 16 is above the portable cluster size of 8: where a GPU cannot run 16,
  // clusters stop at 8 blocks (256 KB) and larger inputs take the mid path, as do older GPUs.
  static constexpr int cluster_block_size = 512;
  static constexpr int cluster_max_blocks = 16;
  static constexpr std::int64_t cluster_block_bytes = std::int64_t{cluster_block_size} * loads_in_flight * 16;
  static constexpr std::int64_t cluster_max_bytes = cluster_max_blocks * cluster_block_bytes;

  // No grid is wider than this (a GPU would need 4096 resident blocks to reach it), which
  // bounds the partials a caller's scratch must hold (reduce.hpp: reduce_scratch_bytes).
  static constexpr std::int64_t max_grid = 4096;
};

}  // namespace warpfold::device
