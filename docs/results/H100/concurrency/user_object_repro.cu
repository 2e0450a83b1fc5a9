// Plain CUDA, no warpfold: why captured calls no longer hold their scratch through a CUDA user
// object (device/scratch_pool.hpp).
//
// Six host threads each capture a graph of three small kernels and then, 200 times: launch
// eight kernels on four kinds of stream, replay their graph on a stream that all threads share
// (even rounds) or on one of their own (odd rounds), and wait. With `user-object`, each graph
// also holds a CUDA user object (whose destructor does nothing). On an H100 with driver
// 580.159.04 (CUDA 13.0), 2026-11-22, cudaGraphLaunch returned cudaErrorUnknown in 6 of 12
// runs with the user object and in 0 of 12 without it; every failure was a replay on the
// shared stream.
//
//   nvcc -O2 -arch=sm_90 -o user_object_repro user_object_repro.cu
//   ./user_object_repro             # exit 0: no error
//   ./user_object_repro user-object # exit 1 on the driver above, now and then
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

__global__ void add_up(const float* in, int n, float* out) {
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += in[i];
  atomicAdd(out, s);
}

std::atomic<int> errors{0};

void check(cudaError_t e, const char* what, int thread, int round) {
  if (e == cudaSuccess) return;
  ++errors;
  std::fprintf(stderr, "%s (thread %d, round %d): %s\n", what, thread, round, cudaGetErrorString(e));
}

void launch(const float* in, int n, float* out, cudaStream_t s) { add_up<<<n > 4096 ? 64 : 1, 256, 0, s>>>(in, n, out); }

void CUDART_CB does_nothing(void*) {}

}  // namespace

int main(int argc, char** argv) {
  const bool with_user_object = argc > 1 && std::strcmp(argv[1], "user-object") == 0;
  const int threads = 6, rounds = 200, batch = 8, n = 1 << 18;
  float* in = nullptr;
  check(cudaMalloc(&in, n * sizeof(float)), "cudaMalloc", -1, -1);
  check(cudaMemset(in, 0, n * sizeof(float)), "cudaMemset", -1, -1);
  cudaStream_t shared;
  check(cudaStreamCreate(&shared), "cudaStreamCreate", -1, -1);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      cudaStream_t own, second;
      check(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", t, -1);
      check(cudaStreamCreate(&second), "cudaStreamCreate", t, -1);
      float *out = nullptr, *host = nullptr;
      check(cudaMalloc(&out, 64 * sizeof(float)), "cudaMalloc", t, -1);
      check(cudaMallocHost(&host, 64 * sizeof(float)), "cudaMallocHost", t, -1);
      const cudaStream_t kinds[4] = {own, shared, cudaStreamLegacy, cudaStreamPerThread};
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      check(cudaStreamBeginCapture(own, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", t, -1);
      for (int k = 0; k < 3; ++k) launch(in, k ? 4096 : n, out + 40 + k, own);
      check(cudaStreamEndCapture(own, &graph), "cudaStreamEndCapture", t, -1);
      if (with_user_object) {
        cudaUserObject_t object;
        check(cudaUserObjectCreate(&object, nullptr, does_nothing, 1, cudaUserObjectNoDestructorSync), "cudaUserObjectCreate", t, -1);
        check(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove), "cudaGraphRetainUserObject", t, -1);
      }
      check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate", t, -1);
      for (int r = 0; r < rounds; ++r) {
        for (int b = 0; b < batch; ++b) {
          const cudaStream_t s = kinds[(t + r + b) % 4];
          check(cudaMemsetAsync(out + b, 0, sizeof(float), s), "cudaMemsetAsync", t, r);
          launch(in, (b & 1) ? n : 1000, out + b, s);
          check(cudaMemcpyAsync(host + b, out + b, sizeof(float), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync", t, r);
        }
        const cudaStream_t replay_on = r % 2 ? second : shared;
        check(cudaGraphLaunch(exec, replay_on), "cudaGraphLaunch", t, r);
        for (cudaStream_t s : {own, second, shared, cudaStreamLegacy, cudaStreamPerThread})
          check(cudaStreamSynchronize(s), "cudaStreamSynchronize", t, r);
      }
      check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy", t, -1);
      check(cudaGraphDestroy(graph), "cudaGraphDestroy", t, -1);
      check(cudaStreamDestroy(own), "cudaStreamDestroy", t, -1);
      check(cudaStreamDestroy(second), "cudaStreamDestroy", t, -1);
    });
  for (std::thread& t : pool) t.join();
  std::printf("%s: %d errors\n", with_user_object ? "with a user object" : "without", errors.load());
  return errors.load() == 0 ? 0 : 1;
}
