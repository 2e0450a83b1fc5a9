// Many host threads calling at once, on the same and on different streams: the legacy default
// stream, cudaStreamPerThread, a stream they all share and streams of their own, with direct
// calls, blocking calls and graph replays mixed. Every result is checked exactly.
#include <gtest/gtest.h>

#include <warpfold/axes.hpp>
#include <warpfold/reduce.hpp>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "concurrency_cases.hpp"

namespace {

using namespace concurrency_test;
using warpfold_test::device_input;
using warpfold_test::gpu_test;
using warpfold_test::make_values;
using warpfold_test::quick_mode;
using warpfold_test::seed_for;

class Threads : public gpu_test {};

// Failures found on worker threads, reported by the test's own thread.
class failures {
 public:
  void add(const std::string& what) {
    std::lock_guard<std::mutex> lock(guard_);
    ++count_;
    if (first_.size() < 10) first_.push_back(what);
  }
  ::testing::AssertionResult none() const {
    if (count_ == 0) return ::testing::AssertionSuccess();
    ::testing::AssertionResult r = ::testing::AssertionFailure();
    r << count_ << " wrong results or errors; the first:";
    for (const std::string& f : first_) r << "\n  " << f;
    return r;
  }

 private:
  std::mutex guard_;
  int count_ = 0;
  std::vector<std::string> first_;
};

template <typename Body>
void run_threads(int count, failures& found, Body body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t)
    threads.emplace_back([&, t] {
      try {
        body(t);
      } catch (const std::exception& e) {
        found.add("thread " + std::to_string(t) + " threw: " + e.what());
      }
    });
  for (std::thread& t : threads) t.join();
}

// Two threads, 500 blocking sums each on the default stream, each of its own array: the
// blocking forms once shared one result slot per stream.
TEST_F(Threads, BlockingSumsFromTwoThreadsOnTheDefaultStream) {
  const std::int64_t n = std::int64_t{1} << (quick_mode() ? 16 : 20);
  const int calls = quick_mode() ? 20 : 500;
  std::vector<std::unique_ptr<device_input<std::int32_t>>> arrays;
  std::vector<std::int64_t> totals;
  for (int t = 0; t < 2; ++t) {
    const std::vector<std::int32_t> values = make_values<std::int32_t>(n, seed_for("two-threads", t));
    std::int64_t total = 0;
    for (std::int32_t v : values) total += v;
    arrays.push_back(std::make_unique<device_input<std::int32_t>>(values));
    totals.push_back(total);
  }
  ASSERT_NE(totals[0], totals[1]);
  failures found;
  run_threads(2, found, [&](int t) {
    for (int i = 0; i < calls; ++i) {
      const std::int64_t got = warpfold::sum(arrays[t]->data(), n);
      if (got != totals[t])
        found.add("thread " + std::to_string(t) + " call " + std::to_string(i) + ": " + std::to_string(got) + ", expected " +
                  std::to_string(totals[t]));
    }
  });
  EXPECT_TRUE(found.none());
}

// The blocking axis and segment forms once shared one device output per stream.
TEST_F(Threads, BlockingAxisCallsFromFourThreadsOnOneStream) {
  cudaStream_t shared;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&shared));
  const std::vector<reduction_case>& cases = all_cases();
  const int rounds = quick_mode() ? 3 : 25;
  failures found;
  run_threads(4, found, [&](int t) {
    for (int r = 0; r < rounds; ++r)
      for (std::size_t k = 0; k < cases.size(); ++k) {
        const reduction_case& c = cases[(k + t) % cases.size()];
        const std::string wrong = mismatch(c, c.blocking(shared));
        if (!wrong.empty()) found.add("thread " + std::to_string(t) + ": " + wrong);
      }
  });
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(shared));
  EXPECT_TRUE(found.none());
  EXPECT_TRUE(inputs_unchanged());
}

// The full mix. Each thread, in rounds: a batch of asynchronous calls spread over four kinds
// of stream, each into its own output slot, checked once the batch is done; a blocking call;
// and a replay of a graph it captured at the start, on a stream of its own or the shared one.
TEST_F(Threads, EveryKindOfCallFromManyThreadsOnEveryKindOfStream) {
  const std::vector<reduction_case>& cases = all_cases();
  const int threads = 6, batch = 8, rounds = quick_mode() ? 3 : 40;
  cudaStream_t shared;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&shared));
  failures found;
  std::atomic<int> checked{0};
  run_threads(threads, found, [&](int t) {
    cudaStream_t own, second;
    WARPFOLD_TEST_CUDA(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    WARPFOLD_TEST_CUDA(cudaStreamCreate(&second));
    const cudaStream_t kinds[4] = {own, shared, cudaStreamLegacy, cudaStreamPerThread};
    result_slots slots(batch + 3, largest_output());

    // A graph of three calls that use scratch, captured on `own` before any direct call there.
    const std::vector<const reduction_case*> in_graph = scratch_cases();
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(own, cudaStreamCaptureModeThreadLocal));
    for (int g = 0; g < 3; ++g) in_graph[(t + g) % in_graph.size()]->enqueue(slots.device(batch + g), own);
    WARPFOLD_TEST_CUDA(cudaStreamEndCapture(own, &graph));
    WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));

    for (int r = 0; r < rounds; ++r) {
      const reduction_case* used[batch];
      for (int b = 0; b < batch; ++b) {
        const reduction_case& c = cases[(t * 131 + r * 17 + b * 7) % cases.size()];
        const cudaStream_t s = kinds[(t + r + b) % 4];
        slots.poison(b, s);
        c.enqueue(slots.device(b), s);
        slots.fetch(b, s);
        used[b] = &c;
      }
      const cudaStream_t replay_on = r % 2 ? second : shared;
      for (int g = 0; g < 3; ++g) slots.poison(batch + g, replay_on);
      WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, replay_on));
      for (int g = 0; g < 3; ++g) slots.fetch(batch + g, replay_on);

      const reduction_case& blocking = cases[(t + r) % cases.size()];
      const std::string wrong_blocking = mismatch(blocking, blocking.blocking(kinds[r % 4]));
      if (!wrong_blocking.empty()) found.add("blocking, thread " + std::to_string(t) + ": " + wrong_blocking);

      for (cudaStream_t s : {own, second, shared, cudaStreamLegacy, cudaStreamPerThread}) WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
      for (int b = 0; b < batch; ++b) {
        const std::string wrong = mismatch(*used[b], used[b]->decode(slots.host(b)));
        if (!wrong.empty()) found.add("thread " + std::to_string(t) + " round " + std::to_string(r) + ": " + wrong);
      }
      for (int g = 0; g < 3; ++g) {
        const reduction_case& c = *in_graph[(t + g) % in_graph.size()];
        const std::string wrong = mismatch(c, c.decode(slots.host(batch + g)));
        if (!wrong.empty()) found.add("graph replay, thread " + std::to_string(t) + ": " + wrong);
      }
      checked += batch + 4;
    }
    WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
    WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
    WARPFOLD_TEST_CUDA(cudaStreamDestroy(own));
    WARPFOLD_TEST_CUDA(cudaStreamDestroy(second));
  });
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(shared));
  EXPECT_TRUE(found.none());
  EXPECT_EQ(checked.load(), threads * rounds * (batch + 4));
  EXPECT_TRUE(inputs_unchanged());
}

}  // namespace
