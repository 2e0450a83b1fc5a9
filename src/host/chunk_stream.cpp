#include "chunk_stream.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "warpfold/error.hpp"

namespace warpfold::host {

namespace {

// A chunk is copied in pieces that the copy threads claim one at a time, so a thread that the
// scheduler sets aside holds up one piece, not a fixed share of the chunk: with fixed shares,
// a 64 GiB array streamed at 28.6 to 44 GB/s over nine calls on a busy host (H100 machine,
// 2026-11-24), every chunk waiting for its slowest thread.
constexpr std::size_t piece_bytes = std::size_t{512} << 10;

// The state the coordinator and the copy threads share. Pieces are claimed and counted with
// atomics; the rest (a chunk let in, a chunk complete: once per chunk, about half a
// millisecond apart) under one mutex and one condition.
struct handover {
  std::mutex mutex;
  std::condition_variable changed;
  // Per slot: the chunk in it (high 32 bits) and its next unclaimed piece (low 32 bits), so that
  // a thread still looking at an earlier chunk of the slot can never claim a piece of a later one.
  std::array<std::atomic<std::uint64_t>, staging_slots> claims{};
  std::array<std::atomic<std::int64_t>, staging_slots> pieces_done{};
  std::int64_t let_in = 0;  // chunks [0, let_in) may be copied into their slots
  bool stop = false;
  std::exception_ptr error;
  std::atomic<bool> failed{false};  // error is set: what the spinning coordinator looks at

  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (error == nullptr) error = e;
      stop = true;
    }
    failed = true;
    changed.notify_all();
  }
};

std::size_t bytes_of(const chunk_run& run, std::int64_t k) { return k + 1 < run.chunks ? run.chunk_bytes : run.last_bytes; }
std::int64_t pieces_of(std::size_t bytes) { return static_cast<std::int64_t>((bytes + piece_bytes - 1) / piece_bytes); }

// A copy thread: every chunk in order, as many of its pieces as it can claim.
void copy_pieces(staging_set& s, const chunk_run& run, handover& h) {
  try {
    for (std::int64_t k = 0; k < run.chunks; ++k) {
      const int slot = static_cast<int>(k % staging_slots);
      {
        std::unique_lock<std::mutex> lock(h.mutex);
        h.changed.wait(lock, [&] { return h.stop || h.let_in > k; });
        if (h.stop) return;
      }
      const std::size_t bytes = bytes_of(run, k);
      const std::int64_t pieces = pieces_of(bytes);
      for (;;) {
        std::uint64_t claim = h.claims[slot].load();
        std::int64_t p = 0;
        do {
          p = static_cast<std::int64_t>(claim & 0xffffffffu);
          if ((claim >> 32) != static_cast<std::uint64_t>(k) || p >= pieces) break;
        } while (!h.claims[slot].compare_exchange_weak(claim, claim + 1));
        if ((claim >> 32) != static_cast<std::uint64_t>(k) || p >= pieces) break;  // nothing left of chunk k
        const std::size_t begin = static_cast<std::size_t>(p) * piece_bytes, length = std::min(piece_bytes, bytes - begin);
        std::memcpy(s.pinned[slot].get() + begin, run.first + static_cast<std::size_t>(k) * run.chunk_bytes + begin, length);
        ++h.pieces_done[slot];  // the coordinator watches it
      }
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
  // Lets chunks [0, chunks) in; those not yet let in start with no piece claimed or done.
  auto let_in = [&](std::int64_t chunks) {
    {
      std::lock_guard<std::mutex> lock(h.mutex);
      for (std::int64_t k = h.let_in; k < chunks; ++k) {
        h.claims[k % staging_slots] = static_cast<std::uint64_t>(k) << 32;
        h.pieces_done[k % staging_slots] = 0;
      }
      h.let_in = chunks;
    }
    h.changed.notify_all();
  };
  try {
    let_in(std::min<std::int64_t>(staging_slots, run.chunks));
    for (int w = 0; w < threads; ++w) copiers.emplace_back(copy_pieces, std::ref(s), std::cref(run), std::ref(h));
    for (std::int64_t k = 0; k < run.chunks; ++k) {
      const int slot = static_cast<int>(k % staging_slots);
      const std::size_t bytes = bytes_of(run, k);
      const void* source = run.first + static_cast<std::size_t>(k) * run.chunk_bytes;
      if (threads > 0) {
        // Spin (yielding) rather than sleep: the coordinator has a core of its own, and a
        // wake-up from a sleep waited for a scheduler slice behind the busy copy threads.
        while (h.pieces_done[slot].load() != pieces_of(bytes)) {
          if (h.failed.load()) {
            std::lock_guard<std::mutex> lock(h.mutex);
            std::rethrow_exception(h.error);
          }
          std::this_thread::yield();
        }
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
