// Plain CUDA, no warpfold: does compute-sanitizer's synccheck report "Divergent thread(s) in
// warp" for a kernel whose barriers every warp reaches converged, when grids of that one
// kernel run at the same time on different streams? It is the open question of
// README.md ("Open: synccheck and the many-array kernel under concurrent streams").
//
// The kernel has the barriers of warpfold's many-array kernel, reduced to their shape: blocks
// of 512 threads walk their share of the input in batches; each batch starts with
// __syncthreads_count over a per-thread predicate (whose count ends the loop), folds with lane
// loops of different lengths and shuffles, and ends with __syncthreads; then thread 0 stores
// the block's value, fences and takes a ticket, a __syncthreads publishes it, and the last
// block adds the values up. Each call has its own counter and values, so calls never share
// memory. Six host threads make 40 calls each: on streams of their own (default), or all on
// one stream (`one-stream`, one grid at a time). With `pdl`, every launch is a programmatic
// dependent launch, as warpfold's are (blocks/dependent_launch.cuh): the kernel first waits
// for the kernels before it in the stream (griddepcontrol.wait) and lets the next one start
// setting up once its loads are done (griddepcontrol.launch_dependents). With `graph`, each
// thread also captures three calls into a CUDA graph and replays it on a stream of its own
// between its direct calls. Every sum is checked.
//
//   nvcc -O3 -arch=sm_90 -o synccheck_repro synccheck_repro.cu
//   ./synccheck_repro && ./synccheck_repro one-stream           # exit 0: every sum right
//   compute-sanitizer --tool synccheck ./synccheck_repro [one-stream] [pdl] [graph]
// If synccheck reports the barriers only with concurrent grids, the report on the many-array
// kernel is the tool's; if it reports neither, the many-array kernel needs a closer look.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int block = 512;
constexpr int batch = block * 4;  // elements a block takes per round of its loop

__global__ void __launch_bounds__(block) fold_then_last_block_adds(const int* in, int n, long long* values,
                                                                   unsigned* arrivals, long long* out) {
  __shared__ long long warp_sums[block / 32];
  __shared__ bool is_last;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  asm volatile("griddepcontrol.wait;" ::: "memory");  // no effect unless launched as dependent
  long long mine = 0;
  for (int start = blockIdx.x * batch;; start += gridDim.x * batch) {
    const int count = __syncthreads_count(start + static_cast<int>(threadIdx.x) < n);
    if (count == 0) break;
    // Lanes walk runs of different lengths, then meet in shuffles.
    long long s = 0;
    for (int i = start + threadIdx.x; i < start + batch && i < n; i += block) s += in[i];
    for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
    if (lane == 0) mine += s;
    __syncthreads();
    if (count < block) break;
  }
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (lane == 0) warp_sums[warp] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long block_sum = 0;
    for (int w = 0; w < block / 32; ++w) block_sum += warp_sums[w];
    values[blockIdx.x] = block_sum;
    __threadfence();
    is_last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  if (threadIdx.x == 0) {
    __threadfence();
    long long total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += *(volatile long long*)(values + b);
    *out = total;
    *arrivals = 0;
  }
}

std::atomic<int> errors{0};

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  ++errors;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

bool has_argument(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const bool one_stream = has_argument(argc, argv, "one-stream");
  const bool dependent = has_argument(argc, argv, "pdl");
  const bool use_graph = has_argument(argc, argv, "graph");
  int device = 0, sms = 0;
  if (!ok(cudaGetDevice(&device), "cudaGetDevice") ||
      !ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute"))
    return 1;
  const int grid = 2 * sms, n = 3 * grid * batch + 777;  // three rounds and a partial one
  std::vector<int> host(n);
  long long expected = 0;
  for (int i = 0; i < n; ++i) expected += host[i] = (i * 7919) % 1000 - 500;
  int* in = nullptr;
  if (!ok(cudaMalloc(&in, n * sizeof(int)), "cudaMalloc") ||
      !ok(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy"))
    return 1;
  cudaStream_t shared;
  if (!ok(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking), "cudaStreamCreate")) return 1;

  constexpr int threads = 6, calls = 40;
  std::atomic<int> wrong{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      cudaStream_t s = shared;
      if (!one_stream && !ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate")) return;
      long long *values = nullptr, *out = nullptr;
      unsigned* arrivals = nullptr;
      ok(cudaMalloc(&values, grid * sizeof(long long)), "cudaMalloc");
      ok(cudaMalloc(&out, calls * sizeof(long long)), "cudaMalloc");
      ok(cudaMalloc(&arrivals, sizeof(unsigned)), "cudaMalloc");
      ok(cudaMemsetAsync(arrivals, 0, sizeof(unsigned), s), "cudaMemsetAsync");
      auto launch = [&](cudaStream_t on, long long* partials, unsigned* counter, long long* result) {
        if (dependent) {
          cudaLaunchConfig_t config{};
          config.gridDim = dim3(grid);
          config.blockDim = dim3(block);
          config.stream = on;
          cudaLaunchAttribute attribute{};
          attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
          attribute.val.programmaticStreamSerializationAllowed = 1;
          config.attrs = &attribute;
          config.numAttrs = 1;
          ok(cudaLaunchKernelEx(&config, fold_then_last_block_adds, static_cast<const int*>(in), n, partials, counter,
                                result),
             "cudaLaunchKernelEx");
        } else {
          fold_then_last_block_adds<<<grid, block, 0, on>>>(in, n, partials, counter, result);
          ok(cudaGetLastError(), "launch");
        }
      };
      // With `graph`: three calls captured into a graph (buffers of their own), replayed on a
      // stream of their own between the direct calls.
      long long *graph_values = nullptr, *graph_out = nullptr;
      unsigned* graph_arrivals = nullptr;
      cudaStream_t capture = nullptr, replay = nullptr;
      cudaGraphExec_t exec = nullptr;
      if (use_graph) {
        ok(cudaMalloc(&graph_values, grid * sizeof(long long)), "cudaMalloc");
        ok(cudaMalloc(&graph_out, 3 * sizeof(long long)), "cudaMalloc");
        ok(cudaMalloc(&graph_arrivals, sizeof(unsigned)), "cudaMalloc");
        ok(cudaMemset(graph_arrivals, 0, sizeof(unsigned)), "cudaMemset");
        ok(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking), "cudaStreamCreate");
        ok(cudaStreamCreateWithFlags(&replay, cudaStreamNonBlocking), "cudaStreamCreate");
        cudaGraph_t g = nullptr;
        ok(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        for (int k = 0; k < 3; ++k) launch(capture, graph_values, graph_arrivals, graph_out + k);
        ok(cudaStreamEndCapture(capture, &g), "cudaStreamEndCapture");
        ok(cudaGraphInstantiate(&exec, g, 0), "cudaGraphInstantiate");
        cudaGraphDestroy(g);
      }
      for (int c = 0; c < calls; ++c) {
        launch(s, values, arrivals, out + c);
        if (use_graph && c % 4 == 0) ok(cudaGraphLaunch(exec, replay), "cudaGraphLaunch");
      }
      if (use_graph) {
        long long last[3] = {};
        ok(cudaMemcpyAsync(last, graph_out, sizeof(last), cudaMemcpyDeviceToHost, replay), "cudaMemcpyAsync");
        ok(cudaStreamSynchronize(replay), "cudaStreamSynchronize");
        for (long long g : last) wrong += g != expected;
        cudaGraphExecDestroy(exec);
        cudaStreamDestroy(capture);
        cudaStreamDestroy(replay);
        cudaFree(graph_values);
        cudaFree(graph_out);
        cudaFree(graph_arrivals);
      }
      std::vector<long long> got(calls);
      ok(cudaMemcpyAsync(got.data(), out, calls * sizeof(long long), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
      ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
      for (long long g : got) wrong += g != expected;
      cudaFree(values);
      cudaFree(out);
      cudaFree(arrivals);
      if (s != shared) cudaStreamDestroy(s);
    });
  for (std::thread& w : workers) w.join();
  std::printf("%s%s%s: %d calls, %d wrong sums, %d CUDA errors\n", one_stream ? "one stream" : "a stream per thread",
              dependent ? ", dependent launches" : "", use_graph ? ", graph replays" : "", threads * calls, wrong.load(), errors.load());
  return wrong == 0 && errors == 0 ? 0 : 1;
}
