// The same sum from a .cu file that compiles the kernels itself (header-only use).
#include <warpfold/warpfold.cuh>

#include <cstdio>

int main() {
  const int n = 4096;
  float* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) {
    std::printf("no GPU\n");
    return 0;
  }
  cudaMemset(d, 0, n * sizeof(float));
  try {
    std::printf("sum of zeros %g\n", warpfold::sum(d, n));
    return 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
