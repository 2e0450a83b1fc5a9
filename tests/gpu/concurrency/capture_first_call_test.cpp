// Capture works on the very first warpfold call of a process, with no warm-up call, in every
// capture mode: the library's first-use work (device queries, its scratch pool, the first
// block of scratch) must not break or invalidate the capture. Each test runs in a fresh
// process (a death test in the "threadsafe" style re-executes this binary), because any
// earlier test would have made that first call already.
#include <gtest/gtest.h>

#include <warpfold/axes.hpp>
#include <warpfold/reduce.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "concurrency_cases.hpp"

namespace {

using warpfold_test::gpu_test;

class CaptureFirstCall : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

#define FIRST_CALL_CHECK(condition)                                          \
  do {                                                                      \
    if (!(condition)) {                                                     \
      std::fprintf(stderr, "failed: %s (line %d)\n", #condition, __LINE__); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

// In the child: upload inputs with plain CUDA calls (no warpfold), capture a multi-block sum
// and a split axis reduction, replay three times, check, exit 0.
void capture_first_call(cudaStreamCaptureMode mode) {
  try {
    const std::int64_t n = (std::int64_t{1} << 20) + 3, rows = 3, length = (std::int64_t{1} << 18) + 1;
    const std::vector<float> x = concurrency_test::exact_floats(n, 5);
    double total = 0;
    for (float v : x) total += v;
    double rows_total[3] = {0, 0, 0};
    for (std::int64_t i = 0; i < rows * length; ++i) rows_total[i / length] += x[i];
    float* d_x = nullptr;
    float* d_out = nullptr;
    FIRST_CALL_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_x), n * sizeof(float)) == cudaSuccess);
    FIRST_CALL_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_out), 4 * sizeof(float)) == cudaSuccess);
    FIRST_CALL_CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cudaStream_t s;
    FIRST_CALL_CHECK(cudaStreamCreate(&s) == cudaSuccess);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    FIRST_CALL_CHECK(cudaStreamBeginCapture(s, mode) == cudaSuccess);
    warpfold::sum(d_x, n, d_out, s);
    warpfold::sum_axes(d_x, {rows, length}, {1}, d_out + 1, 3, s);
    FIRST_CALL_CHECK(cudaStreamEndCapture(s, &graph) == cudaSuccess);
    FIRST_CALL_CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    for (int replay = 0; replay < 3; ++replay) {
      FIRST_CALL_CHECK(cudaMemsetAsync(d_out, 0xA5, 4 * sizeof(float), s) == cudaSuccess);
      FIRST_CALL_CHECK(cudaGraphLaunch(exec, s) == cudaSuccess);
      float got[4];
      FIRST_CALL_CHECK(cudaMemcpyAsync(got, d_out, sizeof(got), cudaMemcpyDeviceToHost, s) == cudaSuccess);
      FIRST_CALL_CHECK(cudaStreamSynchronize(s) == cudaSuccess);
      FIRST_CALL_CHECK(got[0] == float(total));
      for (int r = 0; r < 3; ++r) FIRST_CALL_CHECK(got[1 + r] == float(rows_total[r]));
    }
    std::exit(0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "threw: %s\n", e.what());
    std::exit(1);
  }
}

TEST_F(CaptureFirstCall, Global) {
  EXPECT_EXIT(capture_first_call(cudaStreamCaptureModeGlobal), ::testing::ExitedWithCode(0), "");
}
TEST_F(CaptureFirstCall, ThreadLocal) {
  EXPECT_EXIT(capture_first_call(cudaStreamCaptureModeThreadLocal), ::testing::ExitedWithCode(0), "");
}
TEST_F(CaptureFirstCall, Relaxed) {
  EXPECT_EXIT(capture_first_call(cudaStreamCaptureModeRelaxed), ::testing::ExitedWithCode(0), "");
}

}  // namespace
