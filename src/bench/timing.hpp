// The timing loop: how one implementation is measured on one pool of inputs.
//
// 1. prepare(): the implementation allocates its scratch and runs once (result checked).
// 2. warm-up: a few calls, each checked.
// 3. calibration: the time of one call decides the batch, the number of back-to-back calls
//    that takes at least min_batch_us (1 ms by default), so that small sizes are timed as a
//    stream of calls, not as one launch against the event resolution.
// 4. trials: each trial records an event, enqueues one batch of calls over the rotating
//    buffers, records another, and divides the elapsed time by the batch. Nothing is
//    allocated and nothing is copied to the host inside a batch (except what the
//    implementation itself does per call, like thrust::reduce's return value). After each
//    trial the answer of its last call is checked against the host reference.
// 5. verification: up to verify_buffers buffers, spread over the pool, are reduced once more
//    and checked.
// The first wrong answer ends the measurement: it is reported as FAILED, never as a time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bench/implementation.hpp"
#include "bench/pool.hpp"
#include "bench/statistics.hpp"

namespace warpfold::bench {

struct timing_options {
  int trials = 9;
  int warmup_calls = 3;
  double min_batch_us = 1000.0;
  std::int64_t max_batch = 1 << 14;
  int verify_buffers = 4;
};

struct timed_result {
  bool ok = true;
  std::string error;            // the failed check, when !ok
  summary per_call_us;          // median, min, max over the trials
  std::int64_t batch = 0;       // calls per trial
  std::optional<int> launches;  // kernel launches per call, if known
  int checks = 0;               // results compared with the reference
};

timed_result time_implementation(implementation& impl, input_pool& pool, const timing_options& options,
                                 cudaStream_t stream);

// Kernel launches one call of `impl` makes, counted by capturing one call into a CUDA graph.
// nullopt when the call cannot be captured. The stream must not be the legacy default stream.
std::optional<int> count_launches_by_capture(implementation& impl, const void* d_in, std::int64_t n,
                                             cudaStream_t stream);

}  // namespace warpfold::bench
