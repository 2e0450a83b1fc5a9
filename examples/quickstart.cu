// The README's example: the production API in a few lines. Built with the project, so the
// README cannot drift from code that compiles (a test checks the two are identical).
#include <warpfold/warpfold.cuh>

#include <cstdio>
#include <vector>

int main() try {
  std::vector<float> host(1 << 20);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i % 1000) * 0.001f;

  float* d_in = nullptr;
  cudaMalloc(&d_in, host.size() * sizeof(float));
  cudaMemcpy(d_in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  const std::int64_t n = static_cast<std::int64_t>(host.size());

  // Blocking: the result comes back to the host.
  float total = warpfold::sum(d_in, n);
  float largest = warpfold::max(d_in, n);
  warpfold::value_index<float> smallest = warpfold::argmin(d_in, n);  // first index of the minimum

  // Asynchronous: one kernel on `stream`, the result stays in device memory.
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float* d_total = nullptr;
  cudaMalloc(&d_total, sizeof(float));
  warpfold::sum(d_in, n, d_total, stream);
  cudaStreamSynchronize(stream);

  std::printf("sum %.1f  max %.3f  argmin %lld (value %.3f)\n", total, largest,
              static_cast<long long>(smallest.index), smallest.value);

  // Bad input is an exception with a message, never a crash or a silent wrong answer.
  try {
    warpfold::sum(host.data(), n);  // a host pointer
  } catch (const warpfold::invalid_argument& e) {
    std::printf("rejected: %s\n", e.what());
  }
  cudaFree(d_total);
  cudaFree(d_in);
  cudaStreamDestroy(stream);
  return 0;
} catch (const warpfold::error& e) {
  std::fprintf(stderr, "warpfold: %s\n", e.what());
  return 1;
}
