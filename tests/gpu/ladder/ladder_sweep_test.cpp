// The main sweep: every step x finisher x type (int32, float, double) at every standard size,
// against the CPU reference. Integers must match exactly (int32 wraps modulo 2^32), floats
// within warpfold_test::sum_tolerance, and the input must be byte-for-byte unchanged after
// every call. Also: determinism, reuse of one runner across inputs, and user streams.
#include <cstring>

#include "ladder_test_util.hpp"

namespace ladder_test {
namespace {

using warpfold_test::gpu_test;
using warpfold_test::gpu_test_with_param;
using warpfold_test::size_param_name;

// ---- every step x finisher x type x size ----

// The input has no guards here: it fills its allocation exactly, so a read past either end
// is outside the allocation and compute-sanitizer's memcheck reports it. (n = 0 gets one
// poison element, so a kernel that reads an empty input returns a poisoned sum.)
class LadderSweep : public gpu_test_with_param<std::int64_t> {};

template <typename T>
void sweep(std::int64_t n) {
  const prepared_input<T> p("ladder-sweep", n, sweep_mode<T>);
  run_every_step_and_finisher(p);
  EXPECT_TRUE(p.input.unchanged_on_host());
}

TEST_P(LadderSweep, Int32) { sweep<std::int32_t>(GetParam()); }
TEST_P(LadderSweep, Float) { sweep<float>(GetParam()); }
TEST_P(LadderSweep, Double) { sweep<double>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sizes, LadderSweep, ::testing::ValuesIn(warpfold_test::standard_sizes()), size_param_name{});

// Moderate int32 values too: sums that do not wrap, so a kernel that only works modulo 2^32
// by accident (say, summing in float) cannot hide behind the wrap.
TEST_P(LadderSweep, Int32Moderate) {
  const prepared_input<std::int32_t> p("ladder-sweep-moderate", GetParam(), value_mode::moderate);
  run_every_step_and_finisher(p);
}

// ---- determinism ----

// Finishers that claim determinism (all but atomic) give bitwise-identical float results on
// repeated runs, with the same runner and with a fresh one.
class LadderDeterminism : public gpu_test {};

template <typename T>
void check_determinism() {
  const std::vector<std::int64_t> sizes = warpfold_test::quick_mode() ? std::vector<std::int64_t>{65521}
                                                                      : std::vector<std::int64_t>{65521, 1000003};
  for (std::int64_t n : sizes) {
    const prepared_input<T> p("ladder-determinism", n, value_mode::moderate);
    for (step s : all_steps()) {
      for (finisher f : all_finishers()) {
        if (!warpfold::ladder::info(f).deterministic_for_floats) continue;
        SCOPED_TRACE(describe<T>(s, f, warpfold::ladder::default_block_size, n));
        runner<T> r(s, f);
        r.run(p.input.data(), n);
        const T first = r.result();
        EXPECT_TRUE(p.expected.matches(first));
        for (int repeat = 0; repeat < 3; ++repeat) {
          runner<T> fresh(s, f);
          runner<T>& which = repeat == 1 ? fresh : r;
          which.run(p.input.data(), n);
          const T again = which.result();
          EXPECT_EQ(std::memcmp(&first, &again, sizeof(T)), 0)
              << "repeat " << repeat << (repeat == 1 ? " (fresh runner)" : " (same runner)") << ": "
              << warpfold_test::format_value(again) << " differs from the first run's "
              << warpfold_test::format_value(first);
        }
      }
    }
  }
}

TEST_F(LadderDeterminism, FloatBitwiseRepeatable) { check_determinism<float>(); }
TEST_F(LadderDeterminism, DoubleBitwiseRepeatable) { check_determinism<double>(); }

// ---- one runner, many inputs ----

// A runner reused across inputs and sizes: scratch buffers grow (small, then large) and are
// reused (large, then small), and the last-block finisher's arrival counter must be back at
// zero after each run. The inputs differ at the same size, so a run that leaves a stale
// result (a counter that did not reset means no block thinks it is last, and the result
// buffer keeps the previous sum) fails.
class LadderReuse : public gpu_test {};

template <typename T>
void check_reuse() {
  const std::int64_t big = warpfold_test::quick_mode() ? 65521 : 1000003;
  const prepared_input<T> a("ladder-reuse-a", big, sweep_mode<T>);
  const prepared_input<T> b("ladder-reuse-b", big, sweep_mode<T>);
  const prepared_input<T> c("ladder-reuse-c", 1009, sweep_mode<T>);
  const prepared_input<T> empty("ladder-reuse-empty", 0, sweep_mode<T>);
  const std::vector<const prepared_input<T>*> sequence = {&c, &a, &b, &c, &empty, &a, &a, &b};
  failure_budget budget;
  for (step s : all_steps()) {
    for (finisher f : all_finishers()) {
      runner<T> r(s, f);
      for (std::size_t k = 0; k < sequence.size(); ++k) {
        SCOPED_TRACE(describe<T>(s, f, r.block_size(), sequence[k]->input.size()) + ", run " + std::to_string(k + 1) +
                     " of " + std::to_string(sequence.size()) + " with one runner");
        if (!run_and_check(r, *sequence[k]) && budget.spend()) return;
      }
    }
  }
}

TEST_F(LadderReuse, Int32) { check_reuse<std::int32_t>(); }
TEST_F(LadderReuse, Float) { check_reuse<float>(); }
TEST_F(LadderReuse, Double) { check_reuse<double>(); }

// The brief's own case, spelled out: last-block, twice in a row on the same runner.
TEST_F(LadderReuse, LastBlockCounterResetsBetweenRuns) {
  const prepared_input<std::int32_t> a("ladder-counter-a", 65521, value_mode::full_range);
  const prepared_input<std::int32_t> b("ladder-counter-b", 65521, value_mode::full_range);
  for (step s : all_steps()) {
    SCOPED_TRACE(describe<std::int32_t>(s, finisher::last_block, warpfold::ladder::default_block_size, 65521));
    runner<std::int32_t> r(s, finisher::last_block);
    EXPECT_TRUE(run_and_check(r, a)) << "first run";
    EXPECT_TRUE(run_and_check(r, b)) << "second run (different data, same size)";
    EXPECT_TRUE(run_and_check(r, a)) << "third run";
  }
}

// ---- streams ----

// Work enqueued on a user stream (non-blocking, so it does not synchronize with stream 0)
// and read back with result(stream).
class LadderStreams : public gpu_test {};

template <typename T>
void check_stream() {
  cudaStream_t stream = nullptr;
  WARPFOLD_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::int64_t n = warpfold_test::quick_mode() ? 65521 : 1000003;
  const prepared_input<T> p("ladder-stream", n, sweep_mode<T>);
  for (step s : all_steps()) {
    for (finisher f : all_finishers()) {
      SCOPED_TRACE(describe<T>(s, f, warpfold::ladder::default_block_size, n) + ", on a non-blocking stream");
      runner<T> r(s, f);
      run_and_check(r, p, stream);
    }
  }
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(LadderStreams, Int32) { check_stream<std::int32_t>(); }
TEST_F(LadderStreams, Float) { check_stream<float>(); }
TEST_F(LadderStreams, Double) { check_stream<double>(); }

}  // namespace
}  // namespace ladder_test
