// The arithmetic behind every number the bench prints: trial statistics, bandwidth, shares
// of the ceiling, speedups, how many buffers and calls a timed batch needs, and the order in
// which the trials run. Plain C++.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace warpfold::bench {

// Median, min and max of a set of trial times. The median of an even count is the mean of
// the middle two. Throws warpfold::invalid_argument for an empty set.
struct summary {
  double median = 0;
  double min = 0;
  double max = 0;
};
summary summarize(std::vector<double> samples);

// Bytes moved per second, in GB/s (10^9 bytes), for `bytes` moved in `time_us` microseconds.
// Returns 0 for a non-positive time.
double gbps(double bytes, double time_us);

// value as a percentage of ceiling; 0 when the ceiling is not positive.
double percent_of(double value, double ceiling);

// Speedups down a column of times (the ladder table): step speedup is the previous
// successful row's time over this row's, cumulative is the first successful row's time over
// this row's. A row without a time (it FAILED) has neither, and the next row compares with
// the last row that has one.
struct speedup {
  std::optional<double> step;
  std::optional<double> cumulative;
};
std::vector<speedup> speedups(const std::vector<std::optional<double>>& times);

// Rotation: how many input buffers of `buffer_bytes` make a working set of at least
// factor x the L2 size, and never fewer than 2 (so consecutive calls never reread one buffer).
int rotation_buffers(std::int64_t buffer_bytes, std::int64_t l2_bytes, int factor = 4);

// Back-to-back batches: how many calls make a batch last at least `min_batch_us`, given the
// time of one call; at least 1 and at most max_calls.
std::int64_t batch_calls(double per_call_us, double min_batch_us, std::int64_t max_calls);

// The order of the timed trials at one (type, size) point: round robin over the
// implementations, {0, 0}, {1, 0}, ..., {implementations - 1, 0}, {0, 1}, ... Interleaved,
// a disturbance of the machine lasting a few batches (seen on a VM: 10-20 ms) lands on one
// trial of several implementations, which their medians absorb, instead of on most trials of
// one implementation, which moves its median. Empty when either count is not positive.
struct trial_slot {
  int impl = 0;   // index into the point's implementations
  int trial = 0;  // 0-based
  bool operator==(const trial_slot& other) const { return impl == other.impl && trial == other.trial; }
};
std::vector<trial_slot> interleaved_schedule(int implementations, int trials);

// Bytes a buffer of n elements takes when buffers are placed back to back at 256-byte
// boundaries (cudaMalloc's alignment), so that every buffer is aligned like a fresh allocation.
std::int64_t aligned_buffer_bytes(std::int64_t n, int element_bytes);

}  // namespace warpfold::bench
