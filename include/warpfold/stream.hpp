// Which stream 0 means. CUDA resolves a null stream by how the calling code was compiled: the
// legacy default stream, or, with nvcc --default-stream per-thread (which defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM), the calling thread's own default stream. warpfold's
// precompiled kernels (warpfold_kernels) are built in the legacy mode, so every public entry
// point resolves a null stream in the caller's code first, through a template parameter that
// defaults to the caller's mode: the two modes are two instantiations, never one function
// with two meanings. The result is never null (cudaStreamLegacy or cudaStreamPerThread name
// the stream explicitly), so no code behind the public API depends on how it was compiled.
#pragma once

#include <cuda_runtime_api.h>

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define WARPFOLD_PER_THREAD_DEFAULT_STREAM true
#else
#define WARPFOLD_PER_THREAD_DEFAULT_STREAM false
#endif

namespace warpfold::detail {

template <bool PerThread>
inline cudaStream_t callers_stream(cudaStream_t stream) {
  if (stream != nullptr) return stream;
  if constexpr (PerThread) {
    return cudaStreamPerThread;
  } else {
    return cudaStreamLegacy;
  }
}

}  // namespace warpfold::detail
