#include "chunk_stream.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "warpfold/error.hpp"

namespace warpfold::host {

namespace {

// The state the coordinator and the copy threads share, under one mutex: handovers happen once
// per chunk (about a millisecond apart), so one lock and one condition are enough.
struct handover {
  std::mutex mutex;
  std::condition_variable changed;
  std::array<int, staging_slots> shares_done{};  // copy threads done with the chunk in each slot
  std::int64_t let_in = 0;                       // chunks [0, let_in) may be copied into their slots
  bool stop = false;
  std::exception_ptr error;

  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (error == nullptr) error = e;
      stop = true;
    }
    changed.notify_all();
  }
};

std::size_t bytes_of(const chunk_run& run, std::int64_t k) { return k + 1 < run.chunks ? run.chunk_bytes : run.last_bytes; }

void copy_share(staging_set& s, const chunk_run& run, handover& h, int w) {
  try {
    const int threads = run.copy_threads;
    for (std::int64_t k = 0; k < run.chunks; ++k) {
      const int slot = static_cast<int>(k % staging_slots);
      {
        std::unique_lock<std::mutex> lock(h.mutex);
        h.changed.wait(lock, [&] { return h.stop || h.let_in > k; });
        if (h.stop) return;
      }
      const std::size_t bytes = bytes_of(run, k);
      // Shares on 4 KiB boundaries: no two threads write the same page or cache line.
      auto share_start = [&](int i) { return bytes * static_cast<std::size_t>(i) / threads / 4096 * 4096; };
      const std::size_t begin = share_start(w), end = w + 1 == threads ? bytes : share_start(w + 1);
      if (end > begin)
        std::memcpy(s.pinned[slot].get() + begin, run.first + static_cast<std::size_t>(k) * run.chunk_bytes + begin, end - begin);
      {
        std::lock_guard<std::mutex> lock(h.mutex);
        ++h.shares_done[slot];
      }
      h.changed.notify_all();
    }
  } catch (...) {
    h.fail(std::current_exception());
  }
}

}  // namespace

void stream_chunks(staging_set& s, const chunk_run& run) {
  handover h;
  const int threads = run.pinned_input ? 0 : run.copy_threads;
  std::vector<std::thread> copiers;
  auto stop_copiers = [&] {
    {
      std::lock_guard<std::mutex> lock(h.mutex);
      h.stop = true;
    }
    h.changed.notify_all();
    for (std::thread& t : copiers) t.join();
    copiers.clear();
  };
  auto let_in = [&](std::int64_t chunks) {
    {
      std::lock_guard<std::mutex> lock(h.mutex);
      h.let_in = chunks;
    }
    h.changed.notify_all();
  };
  try {
    let_in(std::min<std::int64_t>(staging_slots, run.chunks));
    for (int w = 0; w < threads; ++w) copiers.emplace_back(copy_share, std::ref(s), std::cref(run), std::ref(h), w);
    for (std::int64_t k = 0; k < run.chunks; ++k) {
      const int slot = static_cast<int>(k % staging_slots);
      const std::size_t bytes = bytes_of(run, k);
      const void* source = run.first + static_cast<std::size_t>(k) * run.chunk_bytes;
      if (threads > 0) {
        std::unique_lock<std::mutex> lock(h.mutex);
        h.changed.wait(lock, [&] { return h.stop || h.shares_done[slot] == threads; });
        if (h.error != nullptr) std::rethrow_exception(h.error);
        h.shares_done[slot] = 0;
        source = s.pinned[slot].get();
      }
      WARPFOLD_CUDA_CHECK(cudaStreamWaitEvent(s.copy_stream, s.reduced[slot], 0));  // the device buffer is free
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(s.on_device[slot].get(), source, bytes, cudaMemcpyHostToDevice, s.copy_stream));
      WARPFOLD_CUDA_CHECK(cudaEventRecord(s.copied[slot], s.copy_stream));
      WARPFOLD_CUDA_CHECK(cudaStreamWaitEvent(s.reduce_stream, s.copied[slot], 0));
      run.reduce_chunk(s.on_device[slot].get(), bytes, k, s.reduce_stream);
      WARPFOLD_CUDA_CHECK(cudaEventRecord(s.reduced[slot], s.reduce_stream));
      // The next chunk to let in, k - 1 + slots, goes where chunk k - 1 was: once the link
      // has read it (it is sending it now, with chunk k queued behind).
      if (threads > 0 && k >= 1 && k - 1 + staging_slots < run.chunks) {
        WARPFOLD_CUDA_CHECK(cudaEventSynchronize(s.copied[(k - 1) % staging_slots]));
        let_in(k + staging_slots);
      }
    }
  } catch (...) {
    stop_copiers();
    throw;
  }
  stop_copiers();
  if (h.error != nullptr) std::rethrow_exception(h.error);
}

}  // namespace warpfold::host
