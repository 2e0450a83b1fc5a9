#include "bench/timing.hpp"

#include <vector>

#include "bench/cuda_events.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

// Compares the answer of the implementation's last call (on buffer `index`) with the
// reference. Returns false, with the reason in result.error, on a wrong answer.
bool check_last(implementation& impl, input_pool& pool, int index, cudaStream_t stream, timed_result& result) {
  const result_value got = impl.fetch(stream);
  const check_outcome outcome = check_result(impl.kind(), pool.reference(index), got);
  ++result.checks;
  if (!outcome.ok) {
    result.ok = false;
    result.error = "wrong answer on buffer " + std::to_string(index) + ": " + outcome.detail;
  }
  return outcome.ok;
}

}  // namespace

std::optional<int> count_launches_by_capture(implementation& impl, const void* d_in, std::int64_t n,
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

timed_result time_implementation(implementation& impl, input_pool& pool, const timing_options& options,
                                 cudaStream_t stream) {
  timed_result result;
  const std::int64_t n = pool.n();
  event_timer timer;

  int last = pool.next_index();
  impl.prepare(pool.buffer(last), n, stream);
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!check_last(impl, pool, last, stream, result)) return result;

  result.launches = impl.launches_per_call();
  if (!result.launches && impl.capturable())
    result.launches = count_launches_by_capture(impl, pool.buffer(last), n, stream);

  for (int w = 0; w < options.warmup_calls; ++w) {
    last = pool.next_index();
    impl.enqueue(pool.buffer(last), n, stream);
    if (!check_last(impl, pool, last, stream, result)) return result;
  }

  auto time_batch = [&](std::int64_t calls) {
    timer.start(stream);
    for (std::int64_t c = 0; c < calls; ++c) {
      last = pool.next_index();
      impl.enqueue(pool.buffer(last), n, stream);
    }
    timer.stop(stream);
    return timer.elapsed_us();
  };

  // Calibration: one call, then a first batch to refine the per-call estimate (a single call
  // pays the full launch latency; calls in a batch overlap it).
  std::int64_t batch = batch_calls(time_batch(1), options.min_batch_us, options.max_batch);
  if (batch > 1) batch = batch_calls(time_batch(batch) / batch, options.min_batch_us, options.max_batch);
  if (!check_last(impl, pool, last, stream, result)) return result;
  result.batch = batch;

  std::vector<double> per_call;
  for (int t = 0; t < options.trials; ++t) {
    per_call.push_back(time_batch(batch) / static_cast<double>(batch));
    if (!check_last(impl, pool, last, stream, result)) return result;
  }
  result.per_call_us = summarize(per_call);

  const int verify = options.verify_buffers < pool.buffers() ? options.verify_buffers : pool.buffers();
  for (int v = 0; v < verify; ++v) {
    const int index = static_cast<int>(static_cast<std::int64_t>(v) * pool.buffers() / verify);
    impl.enqueue(pool.buffer(index), n, stream);
    if (!check_last(impl, pool, index, stream, result)) return result;
  }
  return result;
}

}  // namespace warpfold::bench
