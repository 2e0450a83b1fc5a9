#include "staging.hpp"

#include <mutex>
#include <vector>

#include "warpfold/error.hpp"
#include "warpfold/host_arrays.hpp"

namespace warpfold::host {

staging_set::staging_set(int device_, std::size_t chunk_bytes_) : device(device_), chunk_bytes(chunk_bytes_) {
  try {
    for (int s = 0; s < staging_slots; ++s) {
      pinned[s].reserve(chunk_bytes);
      on_device[s].reserve(chunk_bytes);
      WARPFOLD_CUDA_CHECK(cudaEventCreateWithFlags(&copied[s], cudaEventDisableTiming));
      WARPFOLD_CUDA_CHECK(cudaEventCreateWithFlags(&reduced[s], cudaEventDisableTiming));
    }
    WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
    WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&reduce_stream, cudaStreamNonBlocking));
  } catch (...) {
    release_handles();  // the buffers free themselves
    throw;
  }
}

staging_set::~staging_set() { release_handles(); }

void staging_set::release_handles() noexcept {
  // Errors here (a device already reset) are ignored: this runs in destructors.
  for (int s = 0; s < staging_slots; ++s) {
    if (copied[s] != nullptr) (void)cudaEventDestroy(copied[s]);
    if (reduced[s] != nullptr) (void)cudaEventDestroy(reduced[s]);
    copied[s] = reduced[s] = nullptr;
  }
  if (copy_stream != nullptr) (void)cudaStreamDestroy(copy_stream);
  if (reduce_stream != nullptr) (void)cudaStreamDestroy(reduce_stream);
  copy_stream = reduce_stream = nullptr;
}

namespace {

// Spare sets, freed at exit (errors then ignored, as in the scratch pool) or on request.
struct staging_pool {
  std::mutex mutex;
  std::vector<staging_set*> spare;
  ~staging_pool() {
    for (staging_set* s : spare) delete s;
  }
};
staging_pool& pool() {
  static staging_pool p;
  return p;
}

}  // namespace

void staging_returner::operator()(staging_set* s) const {
  staging_pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.spare.push_back(s);
}

staging_handle take_staging(int device, std::size_t chunk_bytes) {
  {
    staging_pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (auto it = p.spare.begin(); it != p.spare.end(); ++it)
      if ((*it)->device == device && (*it)->chunk_bytes == chunk_bytes) {
        staging_set* s = *it;
        p.spare.erase(it);
        return staging_handle(s);
      }
  }
  return staging_handle(new staging_set(device, chunk_bytes));
}

void release_spare_staging() {
  std::vector<staging_set*> sets;
  {
    staging_pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    sets.swap(p.spare);
  }
  for (staging_set* s : sets) {
    (void)cudaStreamSynchronize(s->copy_stream);
    (void)cudaStreamSynchronize(s->reduce_stream);
    delete s;
  }
}

}  // namespace warpfold::host

void warpfold::release_host_staging() { host::release_spare_staging(); }
