// The timing loop: how one implementation is measured on one pool of inputs.
//
// 1. prepare(): the implementation allocates its scratch and runs once (result checked).
// 2. warm-up: a few calls, each checked.
// 3. calibration: the time of one call decides the batch, the number of back-to-back calls
//    that takes at least min_batch_us (1 ms by default), so that small sizes are timed as a
//    stream of calls, not as one launch against the event resolution.
// 4. trials: each trial enqueues one batch untimed (so the GPU is busy and at its clocks
//    again after the host's last check), then records an event, enqueues one batch of calls
//    over the rotating buffers, records another, and divides the elapsed time by the batch. Nothing is
//    allocated and nothing is copied to the host inside a batch (except what the
//    implementation itself does per call, like thrust::reduce's return value). After each
//    trial the answer of its last call is checked against the host reference.
// 5. verification: up to verify_buffers buffers, spread over the pool, are reduced once more
//    and checked.
// The first wrong answer ends the measurement: it is reported as FAILED, never as a time.
// What "checked" means comes with the session: a full reduction's one value against the
// pool's reference (the default), or every output of an axis reduction (axis_references).
//
// timing_session runs these stages one at a time, so that the bench can interleave the trials
// of all implementations at one point (see interleaved_schedule in statistics.hpp): steps 1-3
// for each, then one trial of each in turn, then step 5 for each.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/implementation.hpp"
#include "bench/cuda_events.hpp"
#include "bench/pool.hpp"
#include "bench/reference.hpp"
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

// Fetches the answer of the last call, which reduced buffer `buffer` of the pool, and checks it.
using answer_check = std::function<check_outcome(int buffer)>;

// One implementation's measurement, stage by stage. Each stage returns false once a check has
// failed (result().error says which); the later stages then do nothing and return false.
// Exceptions (CUDA errors) pass through. The implementation and the pool must outlive it.
class timing_session {
 public:
  // Checks impl.fetch() against the pool's reference of the buffer.
  timing_session(implementation& impl, input_pool& pool, const timing_options& options, cudaStream_t stream);
  // Checks with `check`.
  timing_session(timed_reduction& impl, input_pool& pool, answer_check check, const timing_options& options,
                 cudaStream_t stream);

  bool start();   // prepare, count launches, warm up, calibrate the batch (steps 1-3)
  bool trial();   // one untimed then one timed batch, its last answer checked (step 4)
  bool finish();  // summarize the trials, then verify (step 5)

  // Complete after finish() returned true; before that, or after a failure, per_call_us is unset.
  const timed_result& result() const { return result_; }

 private:
  bool check_last();
  double time_batch(std::int64_t calls);

  timed_reduction& impl_;
  input_pool& pool_;
  answer_check check_;
  timing_options options_;
  cudaStream_t stream_;
  event_timer timer_;
  int last_ = -1;                  // the buffer of the last enqueued call
  std::vector<double> per_call_;   // one time per trial
  timed_result result_;
};

// Kernel launches one call of `impl` makes, counted by capturing one call into a CUDA graph.
// nullopt when the call cannot be captured. The stream must not be the legacy default stream.
std::optional<int> count_launches_by_capture(timed_reduction& impl, const void* d_in, std::int64_t n,
                                             cudaStream_t stream);

}  // namespace warpfold::bench
