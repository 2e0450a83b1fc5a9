#include "bench/timing.hpp"

#include <utility>
#include <vector>

#include "bench/cuda_events.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {

std::optional<int> count_launches_by_capture(timed_reduction& impl, const void* d_in, std::int64_t n,
                                             cudaStream_t stream) {
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  bool enqueued = true;
  try {
    impl.enqueue(d_in, n, stream);
  } catch (...) {
    enqueued = false;  // whatever it was, the capture must still be ended below
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  (void)cudaGetLastError();  // a failed capture leaves a non-sticky error behind
  std::optional<int> launches;
  if (enqueued && ended == cudaSuccess && graph != nullptr) {
    std::size_t count = 0;
    if (cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess) {
      std::vector<cudaGraphNode_t> nodes(count);
      if (count == 0 || cudaGraphGetNodes(graph, nodes.data(), &count) == cudaSuccess) {
        int kernels = 0;
        for (cudaGraphNode_t node : nodes) {
          cudaGraphNodeType type{};
          if (cudaGraphNodeGetType(node, &type) == cudaSuccess && type == cudaGraphNodeTypeKernel) ++kernels;
        }
        launches = kernels;
      }
    }
  }
  if (graph != nullptr) (void)cudaGraphDestroy(graph);
  (void)cudaGetLastError();
  return launches;
}

timing_session::timing_session(implementation& impl, input_pool& pool, const timing_options& options,
                               cudaStream_t stream)
    : timing_session(
          impl, pool,
          [&impl, &pool, stream](int buffer) {
            return check_result(impl.kind(), pool.reference(buffer), impl.fetch(stream));
          },
          options, stream) {}

timing_session::timing_session(timed_reduction& impl, input_pool& pool, answer_check check,
                               const timing_options& options, cudaStream_t stream)
    : impl_(impl), pool_(pool), check_(std::move(check)), options_(options), stream_(stream) {}

// Checks the answer of the implementation's last call (on buffer last_). Returns false, with
// the reason in result_.error, on a wrong answer.
bool timing_session::check_last() {
  const check_outcome outcome = check_(last_);
  ++result_.checks;
  if (!outcome.ok) {
    result_.ok = false;
    result_.error = "wrong answer on buffer " + std::to_string(last_) + ": " + outcome.detail;
  }
  return outcome.ok;
}

double timing_session::time_batch(std::int64_t calls) {
  timer_.start(stream_);
  for (std::int64_t c = 0; c < calls; ++c) {
    last_ = pool_.next_index();
    impl_.enqueue(pool_.buffer(last_), pool_.n(), stream_);
  }
  timer_.stop(stream_);
  return timer_.elapsed_us();
}

bool timing_session::start() {
  if (!result_.ok) return false;
  const std::int64_t n = pool_.n();
  last_ = pool_.next_index();
  impl_.prepare(pool_.buffer(last_), n, stream_);
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (!check_last()) return false;

  result_.launches = impl_.launches_per_call();
  if (!result_.launches && impl_.capturable())
    result_.launches = count_launches_by_capture(impl_, pool_.buffer(last_), n, stream_);

  for (int w = 0; w < options_.warmup_calls; ++w) {
    last_ = pool_.next_index();
    impl_.enqueue(pool_.buffer(last_), n, stream_);
    if (!check_last()) return false;
  }

  // Calibration: one call, then a first batch to refine the per-call estimate (a single call
  // pays the full launch latency; calls in a batch overlap it).
  std::int64_t batch = batch_calls(time_batch(1), options_.min_batch_us, options_.max_batch);
  if (batch > 1) batch = batch_calls(time_batch(batch) / batch, options_.min_batch_us, options_.max_batch);
  if (!check_last()) return false;
  result_.batch = batch;
  return true;
}

bool timing_session::trial() {
  if (!result_.ok) return false;
  // The same batch once untimed, then timed. Between trials the host checks an answer (for
  // the axis cases, up to 16 M outputs), and the GPU idles long enough to lower its clocks; a
  // batch timed straight after is partly run at the lower clocks. The untimed batch is
  // enqueued ahead of the timer's start event, so the timed one finds the GPU busy and warm.
  for (std::int64_t c = 0; c < result_.batch; ++c) {
    last_ = pool_.next_index();
    impl_.enqueue(pool_.buffer(last_), pool_.n(), stream_);
  }
  per_call_.push_back(time_batch(result_.batch) / static_cast<double>(result_.batch));
  return check_last();
}

bool timing_session::finish() {
  if (!result_.ok) return false;
  result_.per_call_us = summarize(per_call_);

  const int verify = options_.verify_buffers < pool_.buffers() ? options_.verify_buffers : pool_.buffers();
  for (int v = 0; v < verify; ++v) {
    last_ = static_cast<int>(static_cast<std::int64_t>(v) * pool_.buffers() / verify);
    impl_.enqueue(pool_.buffer(last_), pool_.n(), stream_);
    if (!check_last()) return false;
  }
  return true;
}

}  // namespace warpfold::bench
