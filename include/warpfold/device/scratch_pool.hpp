// The library's own scratch memory (layout: device/scratch.hpp): one pool per device, and the
// one place that decides which launch may use which block. The rule it keeps: no two
// launches that can run at the same time ever share a block.
//
// - A direct call gets the block bound to its stream, keyed by the stream's unique id (so
//   cudaStreamPerThread and per-thread default streams, one handle for many streams, are told
//   apart). Launches on one stream run one after the other, so they may share it, from any
//   number of host threads. The first call on a stream takes a spare block or allocates one.
// - A call captured into a CUDA graph takes nothing from the pool: it allocates its scratch in
//   the graph itself (cudaMallocAsync and cudaFreeAsync in the capture become a graph memory
//   allocation node and free node; the counters are cleared by a memset node at every
//   replay). So each graph owns its scratch for as long as it exists: graphs replay
//   concurrently with each other, on any streams, and with direct calls on the stream they
//   were captured on, and outlive that stream; CUDA frees the memory with the graph.
//   What CUDA asks of graphs with memory nodes applies: one executable graph at a time per
//   captured graph, and moved (not copied) into a parent as a child graph. A caller who
//   cannot accept that passes a scratch_space, and the graph holds no memory node.
//   Why not a pool block held through a CUDA user object, as this file once did: on the
//   H100 driver 580.159.04 (CUDA 13.0), graphs holding a user object that several host
//   threads launched on one stream made cudaGraphLaunch fail now and then with
//   cudaErrorUnknown (5 to 7 runs in 12 of a plain CUDA program, none without the user object).
// - Memory does not grow with the number of streams ever used: once 16 blocks are bound to
//   streams, a new stream first reclaims the blocks of streams whose launches have all
//   finished. Each launch that used a block counts its units of work finished in the block's
//   launch word (device/scratch.hpp); a block is idle when that count equals the units it was
//   given and no arrivals are pending. Reading those words costs a copy and a wait on a private
//   stream, so it is done only then.
// - Growing is rare and synchronizes only the pool's private stream, in relaxed capture mode,
//   so that a first call works inside a capture in any mode.
// - release_cached_memory() frees every block that no pending launch is using, and trims the
//   memory that CUDA keeps for graphs.
//
// Cost on the hot path (a direct call on a stream that already has a big enough block): one
// capture-status query and one stream-id query (0.08 and 0.07 us on an H100), the pool's
// mutex and the block's launch-order mutex. Launches that need no scratch (one block, one
// cluster) never come here.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "warpfold/detail/buffer.hpp"
#include "warpfold/device/device_facts.hpp"
#include "warpfold/device/scratch.hpp"
#include "warpfold/error.hpp"

namespace warpfold {

// Caller-owned scratch, as CUB's temporary storage: device memory on the current device, of
// at least the bytes that the call's *_scratch_bytes function names, used by one call at a
// time (a call captured in a graph keeps using it at every replay). Its contents need not be
// initialized: the call clears the few bytes it needs with a memset on its stream.
struct scratch_space {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// What the library's scratch pool holds on one device (warpfold::cached_scratch_usage).
struct scratch_usage {
  std::size_t bytes = 0;              // device memory held, in all blocks
  std::size_t blocks = 0;
  std::size_t bound_to_streams = 0;   // blocks reserved for a stream's direct calls
};

namespace device {

// Lets this thread make the calls that a capture in global mode on another thread (or this
// one) would forbid, such as cudaMalloc; the pool needs them even inside a capture.
class relaxed_capture_mode {
 public:
  relaxed_capture_mode() { (void)cudaThreadExchangeStreamCaptureMode(&previous_); }
  ~relaxed_capture_mode() { (void)cudaThreadExchangeStreamCaptureMode(&previous_); }
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;

 private:
  cudaStreamCaptureMode previous_ = cudaStreamCaptureModeRelaxed;
};

class scratch_pool;

struct scratch_block {
  enum class owner { none, stream };
  scratch_pool* pool = nullptr;
  unsigned char* base = nullptr;
  std::size_t bytes = 0;
  std::size_t zero_end = 0;         // bytes [8, zero_end) are zero whenever no launch runs
  // Units of work given this block since its launch word was zero. Changed under the pool's
  // lock or, to take back a launch that failed, under launch_order.
  std::atomic<std::uint64_t> issued{0};
  // Held from a direct launch's acquire until it is enqueued: launches that share a block (one
  // stream, several threads) reach the GPU in the order of their counts (blocks/finish.cuh).
  std::mutex launch_order;
  bool idle = true;                 // known to have no launch running or pending
  owner held_by = owner::none;
  unsigned long long stream_id = 0;
};

// One launch's use of a block. launched() once the kernel is enqueued; otherwise the
// destructor hands the use back. A captured call's lease instead frees its graph-owned
// memory on the capturing stream, after the kernel (or without it, if the launch failed).
class scratch_lease {
 public:
  scratch_lease() = default;
  static scratch_lease freed_after_launch(scratch_view view, void* graph_memory, cudaStream_t stream) {
    scratch_lease l(view);
    l.graph_memory_ = graph_memory;
    l.graph_stream_ = stream;
    return l;
  }
  explicit scratch_lease(scratch_view view, scratch_block* counted = nullptr, std::int64_t units = 0,
                         std::unique_lock<std::mutex> order = {})
      : view_(view), counted_(counted), units_(units), order_(std::move(order)) {}
  scratch_lease(scratch_lease&& other) noexcept
      : view_(other.view_),
        counted_(std::exchange(other.counted_, nullptr)),
        units_(other.units_),
        graph_memory_(std::exchange(other.graph_memory_, nullptr)),
        graph_stream_(other.graph_stream_),
        order_(std::move(other.order_)) {}
  scratch_lease& operator=(scratch_lease&&) = delete;
  scratch_lease(const scratch_lease&) = delete;
  ~scratch_lease() {
    if (counted_ != nullptr) counted_->issued -= static_cast<std::uint64_t>(units_);  // still in order
    if (graph_memory_ != nullptr) (void)cudaFreeAsync(graph_memory_, graph_stream_);  // a failed capture ends anyway
  }

  const scratch_view& view() const { return view_; }
  void launched() {
    counted_ = nullptr;
    if (graph_memory_ != nullptr) WARPFOLD_CUDA_CHECK(cudaFreeAsync(std::exchange(graph_memory_, nullptr), graph_stream_));
    if (order_.owns_lock()) order_.unlock();
  }

 private:
  scratch_view view_{};
  scratch_block* counted_ = nullptr;  // the block whose `issued` this launch added to
  std::int64_t units_ = 0;
  void* graph_memory_ = nullptr;  // a captured call's scratch, freed by the graph after the kernel
  cudaStream_t graph_stream_ = nullptr;
  std::unique_lock<std::mutex> order_;  // released after the members above are done with
};

class scratch_pool {
 public:
  // Blocks bound to streams before a new stream first tries to reclaim idle ones.
  static constexpr std::size_t bound_blocks_before_reclaim = 16;
  // Blocks come in powers of two from this size up, so a spare fits many requests.
  static constexpr std::size_t smallest_block = 4096;

  explicit scratch_pool(int device) : device_(device) {}
  ~scratch_pool() {
    for (auto& b : blocks_) (void)cudaFree(b->base);  // a destructor must not throw
    if (private_stream_ != nullptr) (void)cudaStreamDestroy(private_stream_);
  }
  scratch_pool(const scratch_pool&) = delete;
  scratch_pool& operator=(const scratch_pool&) = delete;

  // Scratch for one launch of request `r` on `stream`, a stream of this pool's device (the
  // current device).
  scratch_lease acquire(const scratch_request& r, cudaStream_t stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    WARPFOLD_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status));
    if (status == cudaStreamCaptureStatusInvalidated)
      throw invalid_argument("warpfold: the stream's capture was invalidated by an earlier error; end it first");
    if (status == cudaStreamCaptureStatusActive) return in_graph(r, stream);
    unsigned long long id = 0;
    WARPFOLD_CUDA_CHECK(cudaStreamGetId(stream, &id));
    return for_stream(r, stream, id);
  }

  // Frees every block that no pending launch uses.
  void release_idle() {
    std::lock_guard<std::mutex> lock(guard_);
    relaxed_capture_mode relaxed;
    refresh_idle(candidates([](const scratch_block&) { return true; }));
    free_idle();
  }

  scratch_usage usage() {
    std::lock_guard<std::mutex> lock(guard_);
    scratch_usage u;
    for (const auto& b : blocks_) {
      u.bytes += b->bytes;
      ++u.blocks;
      u.bound_to_streams += b->held_by == scratch_block::owner::stream;
    }
    return u;
  }

  // A captured call's scratch, allocated by the graph at each replay and freed after the
  // kernel (graph memory nodes). Replays reuse the same addresses but not the same contents,
  // so a memset node clears the counters every time; the partials need no clearing.
  static scratch_lease in_graph(const scratch_request& r, cudaStream_t stream) {
    void* p = nullptr;
    const cudaError_t status = cudaMallocAsync(&p, scratch_bytes_for(r), stream);
    if (status != cudaSuccess)
      throw cuda_error(status, std::string("warpfold: could not add scratch memory to the graph being captured (") +
                                   cudaGetErrorString(status) + ")");
    scratch_lease lease = scratch_lease::freed_after_launch(scratch_view_of(p, r), p, stream);
    WARPFOLD_CUDA_CHECK(cudaMemsetAsync(p, 0, scratch_zero_end(r), stream));
    return lease;
  }

 private:
  using owner = scratch_block::owner;

  static std::size_t block_size_for(std::size_t need) {
    std::size_t bytes = smallest_block;
    while (bytes < need) bytes *= 2;
    return bytes;
  }

  scratch_lease for_stream(const scratch_request& r, cudaStream_t stream, unsigned long long id) {
    const std::size_t need = scratch_bytes_for(r);
    std::lock_guard<std::mutex> lock(guard_);
    scratch_block* b = nullptr;
    auto bound = by_stream_.find(id);
    if (bound != by_stream_.end()) {
      b = bound->second;
      if (b->bytes < need) {  // outgrown: keep it as a spare, bind a bigger one
        unbind(b);
        b = nullptr;
      }
    }
    if (b == nullptr) {
      b = spare_or_new(need);
      b->held_by = owner::stream;
      b->stream_id = id;
      by_stream_[id] = b;
    }
    std::unique_lock<std::mutex> order(b->launch_order);  // waits for a launch of another thread
    if (b->zero_end < scratch_zero_end(r)) {  // earlier partials lie where these counters go
      WARPFOLD_CUDA_CHECK(cudaMemsetAsync(b->base + 8, 0, scratch_zero_end(r) - 8, stream));
    }
    return lease(b, r, std::move(order));
  }

  // Records what a launch of `r` leaves behind in the block: garbage where its partials go.
  static void note_use(scratch_block* b, const scratch_request& r) {
    b->idle = false;
    b->zero_end = std::max(b->zero_end, scratch_zero_end(r));
    if (r.partial_bytes > 0) b->zero_end = std::min(b->zero_end, scratch_partials_offset(r));
  }

  // Counts a direct launch's units, which it records finished (blocks/finish.cuh).
  static scratch_lease lease(scratch_block* b, const scratch_request& r, std::unique_lock<std::mutex> order) {
    note_use(b, r);
    b->issued += static_cast<std::uint64_t>(r.finish_units);
    const auto finished_after = static_cast<unsigned int>(b->issued.load());
    return scratch_lease(scratch_view_of(b->base, r, finished_after), b, r.finish_units, std::move(order));
  }

  void unbind(scratch_block* b) {
    by_stream_.erase(b->stream_id);
    b->held_by = owner::none;
  }

  scratch_block* smallest_spare(std::size_t need) {
    scratch_block* best = nullptr;
    for (auto& b : blocks_)
      if (b->held_by == owner::none && b->idle && b->bytes >= need && (best == nullptr || b->bytes < best->bytes)) best = b.get();
    return best;
  }

  scratch_block* spare_or_new(std::size_t need) {
    if (scratch_block* b = smallest_spare(need)) return b;
    relaxed_capture_mode relaxed;
    if (by_stream_.size() >= bound_blocks_before_reclaim) {
      refresh_idle(candidates([](const scratch_block&) { return true; }));
      if (scratch_block* b = smallest_spare(need)) return b;
    }
    return allocate(need);
  }

  scratch_block* allocate(std::size_t need) {
    const std::size_t bytes = block_size_for(need);
    const cudaStream_t clearing = private_stream();
    void* p = nullptr;
    cudaError_t status = cudaMalloc(&p, bytes);
    if (status == cudaErrorMemoryAllocation) {  // give back what nothing uses, once
      (void)cudaGetLastError();
      refresh_idle(candidates([](const scratch_block&) { return true; }));
      free_idle();
      status = cudaMalloc(&p, bytes);
    }
    if (status != cudaSuccess) {
      (void)cudaGetLastError();  // an allocation failure is not sticky: the next call may succeed
      throw cuda_error(status, "warpfold: out of device memory while allocating " + std::to_string(bytes) +
                                   " bytes of scratch on device " + std::to_string(device_) + " (" +
                                   cudaGetErrorString(status) + "); free some memory and call again");
    }
    auto b = std::make_unique<scratch_block>();
    b->pool = this;
    b->base = static_cast<unsigned char*>(p);
    b->bytes = bytes;
    cudaError_t cleared = cudaMemsetAsync(p, 0, bytes, clearing);
    if (cleared == cudaSuccess) cleared = cudaStreamSynchronize(clearing);
    if (cleared != cudaSuccess) {
      (void)cudaFree(p);
      detail::throw_cuda_error(cleared, "clearing new scratch", __FILE__, __LINE__);
    }
    b->zero_end = bytes;
    blocks_.push_back(std::move(b));
    return blocks_.back().get();
  }

  template <typename Keep>
  std::vector<scratch_block*> candidates(Keep keep) {
    std::vector<scratch_block*> list;
    for (auto& b : blocks_)
      if (!b->idle && keep(*b)) list.push_back(b.get());
    return list;
  }

  // Reads the launch word of each block in `list` and marks those whose launches have all
  // finished as idle (every unit given counted finished, no arrivals pending); blocks bound to
  // a stream become spares (that stream will bind anew).
  void refresh_idle(const std::vector<scratch_block*>& list) {
    if (list.empty()) return;
    unsigned long long* words = launch_words_.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i)
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(words + i, list[i]->base + scratch_launch_word_offset, sizeof(unsigned long long),
                                          cudaMemcpyDeviceToHost, private_stream()));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(private_stream()));
    for (std::size_t i = 0; i < list.size(); ++i) {
      scratch_block* b = list[i];
      const bool all_finished = std::uint32_t(words[i] >> 32) == std::uint32_t(b->issued.load()) && std::uint32_t(words[i]) == 0;
      if (!all_finished) continue;
      b->idle = true;
      if (b->held_by == owner::stream) unbind(b);
    }
  }

  void free_idle() {
    auto unused = [](const std::unique_ptr<scratch_block>& b) { return b->held_by == owner::none && b->idle; };
    for (auto& b : blocks_)
      if (unused(b)) (void)cudaFree(b->base);
    blocks_.erase(std::remove_if(blocks_.begin(), blocks_.end(), unused), blocks_.end());
  }

  cudaStream_t private_stream() {
    if (private_stream_ == nullptr) WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&private_stream_, cudaStreamNonBlocking));
    return private_stream_;
  }

  int device_;
  std::mutex guard_;
  std::vector<std::unique_ptr<scratch_block>> blocks_;
  std::unordered_map<unsigned long long, scratch_block*> by_stream_;
  cudaStream_t private_stream_ = nullptr;
  detail::pinned_buffer<unsigned long long> launch_words_;
};

// The pool of `device`, created on first use. Pools live until the program ends; their
// destructors free the blocks.
class scratch_pools {
 public:
  static scratch_pool& of(int device) {
    scratch_pools& all = instance();
    (void)facts_of(device);  // checks the ordinal
    scratch_pool* pool = all.pools_[device].load(std::memory_order_acquire);
    if (pool != nullptr) return *pool;
    std::lock_guard<std::mutex> lock(all.guard_);
    pool = all.pools_[device].load(std::memory_order_relaxed);
    if (pool == nullptr) {
      pool = new scratch_pool(device);
      all.pools_[device].store(pool, std::memory_order_release);
    }
    return *pool;
  }

  // Each pool that exists, with its device current while `visit` runs.
  template <typename Visit>
  static void each(Visit visit) {
    scratch_pools& all = instance();
    int current = 0;
    WARPFOLD_CUDA_CHECK(cudaGetDevice(&current));
    for (int d = 0; d < max_devices; ++d) {
      scratch_pool* pool = all.pools_[d].load(std::memory_order_acquire);
      if (pool == nullptr) continue;
      WARPFOLD_CUDA_CHECK(cudaSetDevice(d));
      try {
        visit(d, *pool);
      } catch (...) {
        (void)cudaSetDevice(current);
        throw;
      }
    }
    WARPFOLD_CUDA_CHECK(cudaSetDevice(current));
  }

  static scratch_pool* existing(int device) {
    return device >= 0 && device < max_devices ? instance().pools_[device].load(std::memory_order_acquire) : nullptr;
  }

 private:
  static scratch_pools& instance() {
    static scratch_pools all;
    return all;
  }
  ~scratch_pools() {
    for (auto& p : pools_) delete p.load();
  }
  std::mutex guard_;
  std::array<std::atomic<scratch_pool*>, max_devices> pools_{};
};

// Scratch for one launch of request `r` on `stream` (of the current device `device`): none when
// the launch needs none, the caller's when given (its counters cleared on the stream), else
// the pool's.
inline scratch_lease scratch_for(const scratch_request& r, int device, cudaStream_t stream, const scratch_space* caller) {
  if (!r.needed()) return {};
  if (caller != nullptr) {
    const std::size_t need = scratch_bytes_for(r);
    if (caller->bytes < need)
      throw invalid_argument("warpfold: the caller's scratch holds " + std::to_string(caller->bytes) +
                             " bytes, but this call needs " + std::to_string(need));
    WARPFOLD_CUDA_CHECK(cudaMemsetAsync(caller->data, 0, scratch_zero_end(r), stream));
    return scratch_lease(scratch_view_of(caller->data, r));
  }
  return scratch_pools::of(device).acquire(r, stream);
}

}  // namespace device

// Frees every block of the library's scratch memory that no stream's pending launch is using,
// on every device. Blocks of streams whose work has finished are freed too; their next call
// allocates again. Also trims the memory that CUDA caches for graph memory nodes (captured
// calls' scratch; CUDA keeps what live graphs use). Call it when memory is short, for example
// before a large allocation of your own. Do not call it while a stream of this thread is
// being captured.
inline void release_cached_memory() {
  device::scratch_pools::each([](int device, device::scratch_pool& pool) {
    pool.release_idle();
    WARPFOLD_CUDA_CHECK(cudaDeviceGraphMemTrim(device));
  });
}

// What the pool of `device` holds now.
inline scratch_usage cached_scratch_usage(int device) {
  device::scratch_pool* pool = device::scratch_pools::existing(device);
  return pool != nullptr ? pool->usage() : scratch_usage{};
}

}  // namespace warpfold
