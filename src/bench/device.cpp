#include "bench/device.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <fstream>
#include <sstream>

namespace warpfold::bench {
namespace {

// The kernel driver's release ("580.65.06"). /proc/driver/nvidia/version has it on Linux; NVML
// is the fallback, loaded at run time so that the binary does not need libnvidia-ml to start
// (`warpfold list` must run on machines without a driver).
std::string kernel_driver_version() {
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string line;
  if (proc && std::getline(proc, line)) {
    std::istringstream words(line);
    std::string word;
    while (words >> word)
      if (!word.empty() && word[0] >= '0' && word[0] <= '9' && word.find('.') != std::string::npos) return word;
  }
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (nvml == nullptr) return "unknown";
  using init_fn = int (*)();
  using version_fn = int (*)(char*, unsigned);
  auto init = reinterpret_cast<init_fn>(dlsym(nvml, "nvmlInit_v2"));
  auto version = reinterpret_cast<version_fn>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<init_fn>(dlsym(nvml, "nvmlShutdown"));
  std::string result = "unknown";
  if (init && version && shutdown && init() == 0) {
    char text[96] = {};
    if (version(text, sizeof text) == 0) result = text;
    shutdown();
  }
  dlclose(nvml);
  return result;
}

}  // namespace

void require_device(int ordinal) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw no_device_error(std::string("no CUDA GPU found (cudaGetDeviceCount: ") + cudaGetErrorName(status) + ", " +
                          cudaGetErrorString(status) + ")");
  }
  if (count == 0) throw no_device_error("no CUDA GPU found (the driver reports 0 devices)");
  if (ordinal < 0 || ordinal >= count)
    throw no_device_error("no CUDA device " + std::to_string(ordinal) + " (this machine has " + std::to_string(count) +
                          ", numbered from 0)");
}

device_description open_device(int ordinal) {
  require_device(ordinal);
  WARPFOLD_CUDA_CHECK(cudaSetDevice(ordinal));
  cudaDeviceProp props{};
  WARPFOLD_CUDA_CHECK(cudaGetDeviceProperties(&props, ordinal));
  device_description d;
  d.ordinal = ordinal;
  d.name = props.name;
  d.sm_count = props.multiProcessorCount;
  d.cc_major = props.major;
  d.cc_minor = props.minor;
  int l2 = 0;
  WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ordinal));
  d.l2_bytes = l2;
  d.memory_bytes = static_cast<std::int64_t>(props.totalGlobalMem);
  WARPFOLD_CUDA_CHECK(cudaDriverGetVersion(&d.cuda_driver_version));
  WARPFOLD_CUDA_CHECK(cudaRuntimeGetVersion(&d.cuda_runtime_version));
  d.driver_version = kernel_driver_version();
  return d;
}

std::int64_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPFOLD_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<std::int64_t>(free_bytes);
}

}  // namespace warpfold::bench
