// Where the blocking forms' kernels write their results: page-locked host memory mapped into
// every device, one buffer per host thread, grown on demand. A thread runs one blocking call
// at a time, so two calls never share a result, whatever streams they use; and the kernel
// stores straight into it, so a blocking call is one launch and one wait, with no copy.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "warpfold/detail/buffer.hpp"
#include "warpfold/device/scratch_pool.hpp"
#include "warpfold/error.hpp"

namespace warpfold::device {

// A blocking call waits for its own result, which a stream being captured never produces.
inline void require_not_capturing(cudaStream_t stream, const std::string& api) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  WARPFOLD_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  if (status != cudaStreamCaptureStatusNone)
    throw invalid_argument(api + ": the blocking form cannot run on a stream that is being captured into a CUDA graph "
                                 "(it waits for its result); use the form that writes to device memory");
}

inline void* thread_result_buffer(std::size_t bytes) {
  thread_local detail::mapped_buffer<unsigned char> buffer;
  if (bytes > buffer.capacity()) {
    relaxed_capture_mode relaxed;  // another thread may be capturing in global mode
    buffer.reserve(bytes);
  }
  return buffer.get();
}

}  // namespace warpfold::device
