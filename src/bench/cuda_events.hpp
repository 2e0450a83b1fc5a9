// A pair of CUDA events around a stretch of stream work: the bench's only clock.
#pragma once

#include <cuda_runtime_api.h>

#include "warpfold/error.hpp"

namespace warpfold::bench {

class event_timer {
 public:
  event_timer() {
    WARPFOLD_CUDA_CHECK(cudaEventCreate(&start_));
    try {
      WARPFOLD_CUDA_CHECK(cudaEventCreate(&stop_));
    } catch (...) {
      (void)cudaEventDestroy(start_);
      throw;
    }
  }
  ~event_timer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  void start(cudaStream_t stream) { WARPFOLD_CUDA_CHECK(cudaEventRecord(start_, stream)); }
  void stop(cudaStream_t stream) { WARPFOLD_CUDA_CHECK(cudaEventRecord(stop_, stream)); }

  // Waits for the stop event; microseconds between the two.
  double elapsed_us() {
    WARPFOLD_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    WARPFOLD_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return 1000.0 * ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace warpfold::bench
