// CUDA graphs as real programs use them: captured on one stream and replayed on others,
// concurrently with each other and with direct calls, after the capture stream is gone, with
// branches inside one graph, in every capture mode. A captured call's scratch is memory of its
// graph (a graph memory node).
#include <gtest/gtest.h>

#include <warpfold/axes.hpp>
#include <warpfold/reduce.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "warpfold_test/graph_nodes.hpp"
#include "concurrency_cases.hpp"

namespace {

using namespace concurrency_test;
using warpfold_test::device_input;
using warpfold_test::gpu_test;
using warpfold_test::make_values;
using warpfold_test::quick_mode;
using warpfold_test::seed_for;

class Graphs : public gpu_test {};

struct captured {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~captured() {
    if (exec != nullptr) (void)cudaGraphExecDestroy(exec);
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
  }
};

template <typename Body>
void capture(captured& into, cudaStream_t stream, cudaStreamCaptureMode mode, Body body) {
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream, mode));
  body();
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream, &into.graph));
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&into.exec, into.graph, 0));
}

cudaStream_t new_stream() {
  cudaStream_t s;
  WARPFOLD_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

// Replays `exec` `times` times on `stream`; before each, the graph's output slot is poisoned,
// after each it is copied to slot i of `results`.
void replay_and_collect(cudaGraphExec_t exec, cudaStream_t stream, void* d_out, std::size_t bytes, int times,
                        const result_slots& results) {
  for (int i = 0; i < times; ++i) {
    WARPFOLD_TEST_CUDA(cudaMemsetAsync(d_out, 0xA5, bytes, stream));
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
    WARPFOLD_TEST_CUDA(cudaMemcpyAsync(results.device(i), d_out, bytes, cudaMemcpyDeviceToDevice, stream));
    results.fetch(i, stream);
  }
}

int wrong_results(const reduction_case& c, const result_slots& results, int times) {
  int wrong = 0;
  for (int i = 0; i < times; ++i) wrong += !mismatch(c, c.decode(results.host(i))).empty();
  return wrong;
}

// Two graphs captured on one stream, each one sum of its own 2^24-element array, replayed
// concurrently on two other streams, 300 times each: torch's pattern of one capture stream
// and replays on whatever stream is current.
TEST_F(Graphs, TwoGraphsCapturedOnOneStreamReplayConcurrentlyOnOtherStreams) {
  const std::int64_t n = std::int64_t{1} << (quick_mode() ? 18 : 24);
  const int times = quick_mode() ? 10 : 300;
  std::vector<std::unique_ptr<device_input<std::int32_t>>> arrays;
  std::vector<reduction_case> cases(2);
  warpfold_test::device_array<std::int64_t> outs(2);
  for (int a = 0; a < 2; ++a) {
    const std::vector<std::int32_t> values = make_values<std::int32_t>(n + a * 1001, seed_for("two-graphs", a));
    std::int64_t total = 0;
    for (std::int32_t v : values) total += v;
    arrays.push_back(std::make_unique<device_input<std::int32_t>>(values));
    cases[a].name = "graph " + std::to_string(a);
    cases[a].decode = [](const void* out) { return std::vector<double>{double(*static_cast<const std::int64_t*>(out))}; };
    cases[a].expected = {double(total)};
  }
  const cudaStream_t capture_stream = new_stream(), first = new_stream(), second = new_stream();
  captured graphs[2];
  for (int a = 0; a < 2; ++a)
    capture(graphs[a], capture_stream, cudaStreamCaptureModeGlobal, [&] {
      warpfold::sum(arrays[a]->data(), arrays[a]->size(), outs.data() + a, capture_stream);
    });
  result_slots results_a(times, 8), results_b(times, 8);
  replay_and_collect(graphs[0].exec, first, outs.data(), 8, times, results_a);
  replay_and_collect(graphs[1].exec, second, outs.data() + 1, 8, times, results_b);
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(first));
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(second));
  EXPECT_EQ(wrong_results(cases[0], results_a, times) + wrong_results(cases[1], results_b, times), 0)
      << "of " << 2 * times << " replays";
  for (cudaStream_t s : {capture_stream, first, second}) WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
}

// Every case that uses scratch, each in a graph of its own captured on a stream of its own;
// the capture streams are destroyed; then all graphs replay at once on four other streams.
TEST_F(Graphs, ManyGraphsOutliveTheirCaptureStreamsAndReplayTogether) {
  const std::vector<const reduction_case*> cases = scratch_cases();
  const int rounds = quick_mode() ? 3 : 30;
  std::vector<captured> graphs(cases.size());
  result_slots outs(cases.size(), largest_output());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const cudaStream_t s = new_stream();
    capture(graphs[k], s, cudaStreamCaptureModeThreadLocal, [&] { cases[k]->enqueue(outs.device(k), s); });
    WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
  }
  cudaStream_t replay[4];
  for (cudaStream_t& s : replay) s = new_stream();
  int wrong = 0;
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const cudaStream_t s = replay[(k + r) % 4];
      outs.poison(k, s);
      WARPFOLD_TEST_CUDA(cudaGraphLaunch(graphs[k].exec, s));
      outs.fetch(k, s);
    }
    for (cudaStream_t s : replay) WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const std::string m = mismatch(*cases[k], cases[k]->decode(outs.host(k)));
      if (!m.empty()) ADD_FAILURE() << "round " << r << ": " << m;
      wrong += !m.empty();
    }
  }
  EXPECT_EQ(wrong, 0);
  for (cudaStream_t s : replay) WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
}

// A graph replayed on one stream while direct calls of the same case run on the stream it
// was captured on.
TEST_F(Graphs, ReplaysRunConcurrentlyWithDirectCallsOnTheCaptureStream) {
  const int times = quick_mode() ? 5 : 100;
  for (const reduction_case* c : scratch_cases()) {
    SCOPED_TRACE(c->name);
    const cudaStream_t capture_stream = new_stream(), other = new_stream();
    result_slots graph_out(1, c->out_bytes), direct(times, c->out_bytes), replayed(times, c->out_bytes);
    captured g;
    capture(g, capture_stream, cudaStreamCaptureModeGlobal, [&] { c->enqueue(graph_out.device(0), capture_stream); });
    for (int i = 0; i < times; ++i) {
      direct.poison(i, capture_stream);
      c->enqueue(direct.device(i), capture_stream);
      direct.fetch(i, capture_stream);
      graph_out.poison(0, other);
      WARPFOLD_TEST_CUDA(cudaGraphLaunch(g.exec, other));
      WARPFOLD_TEST_CUDA(cudaMemcpyAsync(replayed.device(i), graph_out.device(0), c->out_bytes, cudaMemcpyDeviceToDevice, other));
      replayed.fetch(i, other);
    }
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(capture_stream));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(other));
    EXPECT_EQ(wrong_results(*c, direct, times), 0) << "direct calls";
    EXPECT_EQ(wrong_results(*c, replayed, times), 0) << "replays";
    for (cudaStream_t s : {capture_stream, other}) WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
  }
}

// Two calls on two branches of one graph (a fork and a join inside the capture) run at the
// same time at every replay, so each owns its scratch.
TEST_F(Graphs, CallsOnParallelBranchesOfOneGraph) {
  const std::vector<const reduction_case*> cases = scratch_cases();
  const cudaStream_t main = new_stream(), branch = new_stream();
  cudaEvent_t fork, join;
  WARPFOLD_TEST_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  WARPFOLD_TEST_CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  result_slots outs(cases.size(), largest_output());
  captured g;
  capture(g, main, cudaStreamCaptureModeGlobal, [&] {
    WARPFOLD_TEST_CUDA(cudaEventRecord(fork, main));
    WARPFOLD_TEST_CUDA(cudaStreamWaitEvent(branch, fork, 0));
    for (std::size_t k = 0; k < cases.size(); ++k) cases[k]->enqueue(outs.device(k), k % 2 ? branch : main);
    WARPFOLD_TEST_CUDA(cudaEventRecord(join, branch));
    WARPFOLD_TEST_CUDA(cudaStreamWaitEvent(main, join, 0));
  });
  for (int r = 0; r < (quick_mode() ? 2 : 20); ++r) {
    for (std::size_t k = 0; k < cases.size(); ++k) outs.poison(k, main);
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(g.exec, main));
    for (std::size_t k = 0; k < cases.size(); ++k) outs.fetch(k, main);
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(main));
    for (std::size_t k = 0; k < cases.size(); ++k) EXPECT_EQ(mismatch(*cases[k], cases[k]->decode(outs.host(k))), "");
  }
  WARPFOLD_TEST_CUDA(cudaEventDestroy(fork));
  WARPFOLD_TEST_CUDA(cudaEventDestroy(join));
  for (cudaStream_t s : {main, branch}) WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
}

// Every capture mode, every case (the first call of a process is tested in
// capture_first_call_test.cpp).
TEST_F(Graphs, EveryCaptureModeCapturesEveryCase) {
  for (cudaStreamCaptureMode mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed}) {
    SCOPED_TRACE(::testing::Message() << "capture mode " << int(mode));
    const cudaStream_t s = new_stream();
    const std::vector<reduction_case>& cases = all_cases();
    result_slots outs(cases.size(), largest_output());
    captured g;
    capture(g, s, mode, [&] {
      for (std::size_t k = 0; k < cases.size(); ++k) cases[k].enqueue(outs.device(k), s);
    });
    for (std::size_t k = 0; k < cases.size(); ++k) outs.poison(k, s);
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(g.exec, s));
    for (std::size_t k = 0; k < cases.size(); ++k) outs.fetch(k, s);
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
    for (std::size_t k = 0; k < cases.size(); ++k) EXPECT_EQ(mismatch(cases[k], cases[k].decode(outs.host(k))), "");
    WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
  }
}

// A blocking call waits for its result, which a capture never produces: it is refused with a
// clear error before anything is enqueued, and the capture goes on.
TEST_F(Graphs, BlockingCallsInsideACaptureAreRefusedAndTheCaptureSurvives) {
  const reduction_case& c = *scratch_cases().front();
  const cudaStream_t s = new_stream();
  result_slots outs(1, c.out_bytes);
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  try {
    (void)c.blocking(s);
    ADD_FAILURE() << "a blocking call inside a capture was accepted";
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("captured"), std::string::npos) << e.what();
  }
  c.enqueue(outs.device(0), s);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess) << "the capture was invalidated";
  captured g;
  g.graph = graph;
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&g.exec, g.graph, 0));
  WARPFOLD_TEST_CUDA(cudaGraphLaunch(g.exec, s));
  outs.fetch(0, s);
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
  EXPECT_EQ(mismatch(c, c.decode(outs.host(0))), "");
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
}

// Graph memory (bytes that CUDA holds for graph memory nodes on `device`) once it settles:
// CUDA frees a destroyed graph's memory soon after, not at once.
std::uint64_t graph_memory_settles_at_or_below(int device, std::uint64_t bytes) {
  std::uint64_t used = 0;
  for (int wait = 0; wait < 200; ++wait) {
    WARPFOLD_TEST_CUDA(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrUsedMemCurrent, &used));
    if (used <= bytes) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return used;
}

// A captured call takes nothing from the library's pool: its graph allocates the scratch,
// and CUDA frees it with the graph.
TEST_F(Graphs, CapturedCallsOwnTheirScratchThroughTheGraph) {
  int device = 0;
  WARPFOLD_TEST_CUDA(cudaGetDevice(&device));
  warpfold::release_cached_memory();  // also trims what earlier tests' graphs left cached
  std::uint64_t graph_bytes_before = 0;
  WARPFOLD_TEST_CUDA(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrUsedMemCurrent, &graph_bytes_before));
  const cudaStream_t s = new_stream();
  const std::vector<const reduction_case*> cases = scratch_cases();
  result_slots outs(cases.size(), largest_output());
  const warpfold::scratch_usage pool_before = warpfold::cached_scratch_usage(device);
  {
    captured g;
    capture(g, s, cudaStreamCaptureModeGlobal, [&] {
      for (std::size_t k = 0; k < cases.size(); ++k) cases[k]->enqueue(outs.device(k), s);
    });
    EXPECT_EQ(warpfold_test::graph_nodes_of_type(g.graph, cudaGraphNodeTypeMemAlloc).size(), cases.size());
    EXPECT_EQ(warpfold_test::graph_nodes_of_type(g.graph, cudaGraphNodeTypeMemFree).size(), cases.size());
    const warpfold::scratch_usage pool_after = warpfold::cached_scratch_usage(device);
    EXPECT_EQ(pool_after.blocks, pool_before.blocks);
    EXPECT_EQ(pool_after.bytes, pool_before.bytes);
    for (int replay = 0; replay < 3; ++replay) {
      for (std::size_t k = 0; k < cases.size(); ++k) outs.poison(k, s);
      WARPFOLD_TEST_CUDA(cudaGraphLaunch(g.exec, s));
      for (std::size_t k = 0; k < cases.size(); ++k) outs.fetch(k, s);
      WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
      for (std::size_t k = 0; k < cases.size(); ++k)
        EXPECT_EQ(mismatch(*cases[k], cases[k]->decode(outs.host(k))), "") << "replay " << replay;
    }
  }
  warpfold::release_cached_memory();
  EXPECT_LE(graph_memory_settles_at_or_below(device, graph_bytes_before), graph_bytes_before);
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
}

}  // namespace
