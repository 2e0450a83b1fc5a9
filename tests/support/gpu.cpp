// Device detection for the tests: asked once, cached, and explained when there is no device.
#include "warpfold_test/gpu.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace warpfold_test {
namespace {

struct device_state {
  bool available = false;
  std::string reason;
};

const device_state& state() {
  static const device_state s = [] {
    device_state d;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      d.reason = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
      (void)cudaGetLastError();  // do not leave the error behind for the next call
    } else if (count == 0) {
      d.reason = "cudaGetDeviceCount found 0 devices";
    } else {
      d.available = true;
    }
    return d;
  }();
  return s;
}

}  // namespace

bool gpu_available() { return state().available; }

const std::string& gpu_unavailable_reason() { return state().reason; }

std::string gpu_description() {
  int device = 0;
  WARPFOLD_TEST_CUDA(cudaGetDevice(&device));
  cudaDeviceProp p{};
  WARPFOLD_TEST_CUDA(cudaGetDeviceProperties(&p, device));
  int runtime = 0, driver = 0;
  WARPFOLD_TEST_CUDA(cudaRuntimeGetVersion(&runtime));
  WARPFOLD_TEST_CUDA(cudaDriverGetVersion(&driver));
  char line[512];
  std::snprintf(line, sizeof line, "device %d: %s, sm_%d%d, %d SMs, %.1f GiB; CUDA runtime %d.%d, driver %d.%d",
                device, p.name, p.major, p.minor, p.multiProcessorCount,
                static_cast<double>(p.totalGlobalMem) / (1u << 30), runtime / 1000, runtime % 1000 / 10,
                driver / 1000, driver % 1000 / 10);
  return line;
}

std::string no_gpu_line() {
  return "warpfold: no CUDA device (" + gpu_unavailable_reason() + "); GPU tests skipped";
}

void check_cuda(cudaError_t status, const char* expression, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw std::runtime_error(std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ") from " +
                           expression + " at " + file + ":" + std::to_string(line));
}

}  // namespace warpfold_test
