// A caller built with --default-stream per-thread (which defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM; CMake defines it for this file alone): stream 0 then
// means the calling thread's own default stream, and warpfold must use that stream although
// its precompiled kernels were built in the legacy mode (stream.hpp).
// Only plain CUDA calls and warpfold's API here: the test helpers are built in the legacy mode.
#include <gtest/gtest.h>

#include <warpfold/axes.hpp>
#include <warpfold/reduce.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "warpfold_test/graph_nodes.hpp"
#include "concurrency_cases.hpp"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "this file must be compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM defined"
#endif

namespace {

using warpfold_test::gpu_test;

class PerThreadDefaultStream : public gpu_test {};

struct input {
  float* data = nullptr;
  std::int64_t n = 0;
  float total = 0;
};

input upload_exact(std::int64_t n, std::uint64_t seed) {
  const std::vector<float> x = concurrency_test::exact_floats(n, seed);
  double total = 0;
  for (float v : x) total += v;
  input in{nullptr, n, float(total)};
  WARPFOLD_TEST_CUDA(cudaMalloc(reinterpret_cast<void**>(&in.data), n * sizeof(float)));
  WARPFOLD_TEST_CUDA(cudaMemcpy(in.data, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return in;
}

// Capturing this thread's default stream: a warpfold call on stream 0 joins the capture. Had
// the library taken 0 for the legacy stream, the call would have broken the capture.
TEST_F(PerThreadDefaultStream, StreamZeroJoinsACaptureOfThisThreadsStream) {
  const input in = upload_exact((std::int64_t{1} << 20) + 5, 11);
  float* d_out = nullptr;
  WARPFOLD_TEST_CUDA(cudaMalloc(reinterpret_cast<void**>(&d_out), 2 * sizeof(float)));
  cudaGraph_t graph;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal));
  warpfold::sum(in.data, in.n, d_out, 0);
  warpfold::sum_axes(in.data, {1, in.n}, {1}, d_out + 1, 1, 0);
  ASSERT_EQ(cudaStreamEndCapture(cudaStreamPerThread, &graph), cudaSuccess);
  EXPECT_EQ(warpfold_test::kernel_nodes(graph).size(), 2u);
  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, 0));
  float got[2];
  WARPFOLD_TEST_CUDA(cudaMemcpy(got, d_out, sizeof(got), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got[0], in.total);
  EXPECT_EQ(got[1], in.total);
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  WARPFOLD_TEST_CUDA(cudaFree(d_out));
  WARPFOLD_TEST_CUDA(cudaFree(in.data));
}

// Threads on their own default streams, asynchronous and blocking calls mixed.
TEST_F(PerThreadDefaultStream, ThreadsOnTheirOwnDefaultStreams) {
  const int threads = 4, calls = 100;
  std::atomic<int> wrong{0}, errors{0};
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      try {
        const input in = upload_exact((std::int64_t{1} << 19) + 3 * t, 20 + t);
        float* d_out = nullptr;
        WARPFOLD_TEST_CUDA(cudaMalloc(reinterpret_cast<void**>(&d_out), calls * sizeof(float)));
        for (int i = 0; i < calls; ++i) {
          warpfold::sum(in.data, in.n, d_out + i, 0);
          if (i % 10 == 0) wrong += warpfold::sum(in.data, in.n) != in.total;
        }
        std::vector<float> got(calls);
        WARPFOLD_TEST_CUDA(cudaMemcpy(got.data(), d_out, calls * sizeof(float), cudaMemcpyDeviceToHost));
        for (float g : got) wrong += g != in.total;
        WARPFOLD_TEST_CUDA(cudaFree(d_out));
        WARPFOLD_TEST_CUDA(cudaFree(in.data));
      } catch (const std::exception&) {
        ++errors;
      }
    });
  for (std::thread& t : running) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}

}  // namespace
