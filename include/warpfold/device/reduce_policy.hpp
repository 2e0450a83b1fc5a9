// Tuning for the production reduce, as data. The benchmark prints the policy it ran.
#pragma once

#include <cstdint>

namespace warpfold::device {

struct reduce_policy {
  // Measured on an H200 (2026-11-22, f32, back-to-back calls against 256 threads): 512 threads
  // tie at large n and win at 2^14 (3.4 vs 3.9 us) and 2^22 (8.7 vs 9.3 us).
  static constexpr int block_size = 512;
  // 16-byte loads issued back to back by each thread before it adds them: 64 bytes in flight
  // per thread per iteration, which covers DRAM latency at full occupancy.
  static constexpr int loads_in_flight = 4;
  // A block is only worth launching for at least this many 16-byte vectors per thread;
  // below that, fewer blocks with more work each beat many blocks that mostly wait.
  static constexpr int min_vectors_per_thread = 4;
  // Inputs up to this many bytes are reduced by one block: no partials, no counter, no fence.
  // 128 KB (2^15 floats) was the best of 32/128/256 KB on the H200 run above.
  static constexpr std::int64_t single_block_max_bytes = 128 * 1024;
};

}  // namespace warpfold::device
