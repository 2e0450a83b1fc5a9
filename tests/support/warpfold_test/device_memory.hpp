// Device memory for tests: an owning array, and copies to and from it. Allocations are exact
// (count * sizeof(T) bytes, nothing rounded up), so compute-sanitizer's memcheck reports a
// kernel that reads even one byte past the end of an input.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "warpfold_test/gpu.hpp"

namespace warpfold_test {

template <typename T>
class device_array {
 public:
  device_array() = default;
  explicit device_array(std::size_t count) : count_(count) {
    if (count > 0) WARPFOLD_TEST_CUDA(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~device_array() {
    if (data_ != nullptr) (void)cudaFree(data_);
  }
  device_array(device_array&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  device_array& operator=(device_array&& other) noexcept {
    std::swap(data_, other.data_);  // `other` frees what this held
    std::swap(count_, other.count_);
    return *this;
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Page-locked host memory: staging for chunked copies of inputs too large to keep twice.
template <typename T>
class pinned_array {
 public:
  explicit pinned_array(std::size_t count) : count_(count) {
    if (count > 0) WARPFOLD_TEST_CUDA(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~pinned_array() {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
  }
  pinned_array(const pinned_array&) = delete;
  pinned_array& operator=(const pinned_array&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// The setup copies and fills run on the legacy default stream, which the tests' non-blocking
// streams do not wait for; a cudaMemcpy from pageable memory may return before its data
// lands, and a cudaMemset or a device-to-device copy returns at once. So each waits for the
// device: without that, a fill could land after the kernel that it was meant to precede (on
// an H200 shared with another process, a sentinel fill overwrote 32 outputs of a copy).
template <typename T>
void copy_to_device(T* device, const T* host, std::size_t count) {
  if (count > 0) WARPFOLD_TEST_CUDA(cudaMemcpy(device, host, count * sizeof(T), cudaMemcpyHostToDevice));
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
}

// `bytes` bytes of `byte` from `device` on, finished before anything that follows.
inline void fill_device_bytes(void* device, int byte, std::size_t bytes) {
  WARPFOLD_TEST_CUDA(cudaMemset(device, byte, bytes));
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
}

template <typename T>
void copy_to_host(T* host, const T* device, std::size_t count) {
  if (count > 0) WARPFOLD_TEST_CUDA(cudaMemcpy(host, device, count * sizeof(T), cudaMemcpyDeviceToHost));
}

template <typename T>
device_array<T> upload(const T* host, std::size_t count) {
  device_array<T> device(count);
  copy_to_device(device.data(), host, count);
  return device;
}

template <typename T>
device_array<T> upload(const std::vector<T>& host) {
  return upload(host.data(), host.size());
}

template <typename T>
std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  copy_to_host(host.data(), device, count);
  return host;
}

// Bytes that differ between two device ranges of equal length, compared on the device (16
// bytes per load; see compare.cu). first_difference is a byte offset, or -1 if none differs.
struct byte_comparison {
  std::int64_t differing_words = 0;  // 16-byte words (and tail bytes) that differ
  std::int64_t first_difference = -1;
};
byte_comparison compare_device_bytes(const void* a, const void* b, std::size_t bytes);

}  // namespace warpfold_test
