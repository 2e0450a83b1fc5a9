// Sums 1..n with the installed library from plain C++; prints the sum, or the error.
#include <warpfold/axes.hpp>
#include <warpfold/reduce.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  const int n = 100000;
  std::vector<int> values(n);
  for (int i = 0; i < n; ++i) values[i] = i + 1;
  int* d = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&d), n * sizeof(int)) != cudaSuccess) {
    std::printf("no GPU: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;  // built and linked: what this check is about on a machine without a GPU
  }
  cudaMemcpy(d, values.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  try {
    const std::int64_t total = warpfold::sum(d, n);
    const std::vector<std::int64_t> halves = warpfold::sum_axes(d, {2, n / 2}, {1});
    std::printf("sum %lld, halves %lld %lld\n", (long long)total, (long long)halves[0], (long long)halves[1]);
    return total == 5000050000LL && halves[0] + halves[1] == total ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
