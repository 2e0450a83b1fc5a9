// Owning buffers for device and pinned host memory that grow on demand and never shrink, so
// a reused runner or thread buffer allocates only the first time it sees a size.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "warpfold/error.hpp"

namespace warpfold::detail {

struct device_allocator {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    WARPFOLD_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) { (void)cudaFree(p); }  // a destructor must not throw
};

struct pinned_host_allocator {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    WARPFOLD_CUDA_CHECK(cudaMallocHost(&p, bytes));
    return p;
  }
  static void release(void* p) { (void)cudaFreeHost(p); }
};

// Page-locked and mapped into every device's address space (the same address there, as on
// every platform CUDA supports today): kernels may store to it directly.
struct mapped_host_allocator {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    WARPFOLD_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    return p;
  }
  static void release(void* p) { (void)cudaFreeHost(p); }
};

template <typename T, typename Allocator>
class growable_buffer {
 public:
  growable_buffer() = default;
  ~growable_buffer() { reset(); }
  growable_buffer(const growable_buffer&) = delete;
  growable_buffer& operator=(const growable_buffer&) = delete;
  growable_buffer(growable_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

  // Makes room for `count` elements; the old contents are not kept.
  T* reserve(std::size_t count) {
    if (count > capacity_) {
      reset();
      data_ = static_cast<T*>(Allocator::allocate(count * sizeof(T)));
      capacity_ = count;
    }
    return data_;
  }
  void reset() {
    if (data_ != nullptr) Allocator::release(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
  T* get() const { return data_; }
  std::size_t capacity() const { return capacity_; }

 private:
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

template <typename T>
using device_buffer = growable_buffer<T, device_allocator>;
template <typename T>
using pinned_buffer = growable_buffer<T, pinned_host_allocator>;
template <typename T>
using mapped_buffer = growable_buffer<T, mapped_host_allocator>;

}  // namespace warpfold::detail
