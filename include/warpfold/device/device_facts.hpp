// What the dispatchers need to know about a device, asked once per device and remembered:
// a query costs more than a launch's arithmetic, and the answers never change.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <mutex>

#include "warpfold/error.hpp"

namespace warpfold::device {

// Devices past this ordinal are not supported (an invalid_argument says so).
inline constexpr int max_devices = 64;

struct device_facts {
  int device = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;  // resident threads per SM (2048 on an H100)
};

// The current device, whose kernels and scratch a call uses.
inline int current_device() {
  int device = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

inline const device_facts& facts_of(int device) {
  if (device < 0 || device >= max_devices)
    throw invalid_argument("warpfold: device " + std::to_string(device) + " is beyond the " + std::to_string(max_devices) +
                           " devices warpfold supports");
  static std::array<std::atomic<bool>, max_devices> known{};
  static std::array<device_facts, max_devices> facts{};
  if (known[device].load(std::memory_order_acquire)) return facts[device];
  static std::mutex guard;
  std::lock_guard<std::mutex> lock(guard);
  if (!known[device].load(std::memory_order_relaxed)) {
    device_facts f;
    f.device = device;
    WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&f.sm_count, cudaDevAttrMultiProcessorCount, device));
    WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&f.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    facts[device] = f;
    known[device].store(true, std::memory_order_release);
  }
  return facts[device];
}

}  // namespace warpfold::device
