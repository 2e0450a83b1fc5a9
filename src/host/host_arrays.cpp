// warpfold::reduce_host (host_arrays.hpp): checks, the split over GPUs, and the combine of the
// chunks' partial results. The streaming itself is in chunk_stream.cpp.
#include "warpfold/host_arrays.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "chunk_stream.hpp"
#include "staging.hpp"
#include "warpfold/detail/op_type_list.hpp"
#include "warpfold/error.hpp"
#include "warpfold/reduce.hpp"
#include "warpfold/validate.hpp"

namespace warpfold {
namespace {

// 16 MiB, with 13 copy threads below (H100 machines of 16 cores, 2026-11-24). How the host
// copies varies a lot from one machine to the next: on one, a 64 GiB array streamed at a
// median of 52.0 GB/s with 16 MiB chunks against 47.0 with 8 and 46.5 with 32; on another,
// `warpfold bench --host --chunk-mib 8,16,32 --copy-threads 13,15`
// (docs/results/H100/host_sweep.csv) gave 29.9-38.9 GB/s for every setting, 32 MiB and 13
// threads best. A smaller ring of staged data stays in the host's cache until the copy engine
// reads it, where the host lets it.
constexpr std::size_t default_chunk_bytes = std::size_t{16} << 20;
constexpr std::size_t min_chunk_bytes = std::size_t{64} << 10;
// A copy thread's share of a chunk is at least this: below it, starting the thread costs more
// than it saves (only small arrays get fewer threads: 16 MiB chunks take up to 16).
constexpr std::size_t min_bytes_per_copy_thread = std::size_t{1} << 20;
constexpr int max_copy_threads = 16;

// Restores the calling thread's current device.
class current_device_guard {
 public:
  current_device_guard() { WARPFOLD_CUDA_CHECK(cudaGetDevice(&device_)); }
  ~current_device_guard() { (void)cudaSetDevice(device_); }
  int device() const { return device_; }

 private:
  int device_ = 0;
};

std::vector<int> checked_devices(const host_options& options, int current) {
  std::vector<int> devices = options.devices;
  if (devices.empty()) devices.push_back(current);
  int count = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDeviceCount(&count));
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || devices[i] >= count)
      throw invalid_argument("warpfold::reduce_host: device " + std::to_string(devices[i]) + " does not exist (" +
                             std::to_string(count) + " CUDA devices)");
    if (std::find(devices.begin(), devices.begin() + i, devices[i]) != devices.begin() + i)
      throw invalid_argument("warpfold::reduce_host: device " + std::to_string(devices[i]) + " is listed twice");
  }
  return devices;
}

// Pinned memory is sent as it is. Only the first and the last byte are looked at: a pageable
// page in between still copies correctly, through the driver's own staging, only slower.
bool is_pinned(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

void require_host_input(const void* p, std::int64_t n) {
  if (n < 0) throw invalid_argument("warpfold::reduce_host: size n = " + std::to_string(n) + " is negative");
  if (n > 0 && p == nullptr) throw invalid_argument("warpfold::reduce_host: input pointer is null but n = " + std::to_string(n));
  if (n == 0) return;
  const detail::pointer_facts facts = detail::facts_of_pointer(p);
  if (facts.device_memory || facts.managed)
    throw invalid_argument("warpfold::reduce_host: the input is device memory (of device " + std::to_string(facts.device) +
                           "); reduce it with warpfold::sum and the other device calls");
}

}  // namespace

namespace detail {

template <typename Op, typename T>
reduce_result_t<Op, T> reduce_host_array(const T* h_in, std::int64_t n, const host_options& options) {
  using R = reduce_result_t<Op, T>;
  require_host_input(h_in, n);
  const std::size_t chunk_bytes = options.chunk_bytes == 0 ? default_chunk_bytes : options.chunk_bytes;
  if (chunk_bytes < min_chunk_bytes || chunk_bytes % 16 != 0)
    throw invalid_argument("warpfold::reduce_host: chunk_bytes = " + std::to_string(chunk_bytes) +
                           " must be a multiple of 16 and at least 64 KiB");
  if (options.copy_threads < 0) throw invalid_argument("warpfold::reduce_host: copy_threads is negative");
  const current_device_guard guard;
  const std::vector<int> devices = checked_devices(options, guard.device());
  R result = Op::template identity<R>();
  if (n == 0) return result;

  const std::int64_t chunk_elements = static_cast<std::int64_t>(chunk_bytes / sizeof(T));
  const std::int64_t chunks = (n + chunk_elements - 1) / chunk_elements;
  const std::int64_t gpus = std::min<std::int64_t>(static_cast<std::int64_t>(devices.size()), chunks);
  const bool pinned = is_pinned(h_in) && is_pinned(h_in + (n - 1));
  int threads = options.copy_threads;
  if (threads == 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // Three cores per GPU stay free: its coordinator (which spins while it waits) and the
    // driver's threads. The copy threads must not crowd them out. One thread copies about
    // 8 GB/s, and the link takes 55 GB/s.
    threads = std::clamp((cores - 3 * static_cast<int>(gpus)) / static_cast<int>(gpus), 1, max_copy_threads);
  }
  const std::size_t run_bytes = std::min<std::size_t>(chunk_bytes, static_cast<std::size_t>(n) * sizeof(T));
  threads = std::max(1, std::min<int>(threads, static_cast<int>(run_bytes / min_bytes_per_copy_thread)));

  std::vector<R> partials(static_cast<std::size_t>(chunks));
  // GPU g takes chunks [g C / G, (g + 1) C / G).
  auto first_chunk = [&](std::int64_t g) { return g * chunks / gpus; };
  auto run_on = [&](std::int64_t g) {
    const int device = devices[static_cast<std::size_t>(g)];
    WARPFOLD_CUDA_CHECK(cudaSetDevice(device));
    const std::int64_t begin = first_chunk(g), end = first_chunk(g + 1);
    host::staging_handle s = host::take_staging(device, chunk_bytes);
    R* d_results = reinterpret_cast<R*>(s->results.reserve(static_cast<std::size_t>(end - begin) * sizeof(R)));
    host::chunk_run run;
    run.first = reinterpret_cast<const unsigned char*>(h_in + begin * chunk_elements);
    run.chunks = end - begin;
    run.chunk_bytes = chunk_bytes;
    run.last_bytes = static_cast<std::size_t>(std::min(n, end * chunk_elements) - (end - 1) * chunk_elements) * sizeof(T);
    run.pinned_input = pinned;
    run.copy_threads = threads;
    run.reduce_chunk = [&](const void* d_chunk, std::size_t bytes, std::int64_t k, cudaStream_t stream) {
      reduce_into<Op, T>(static_cast<const T*>(d_chunk), static_cast<std::int64_t>(bytes / sizeof(T)), d_results + k, stream,
                         nullptr);
    };
    try {
      host::stream_chunks(*s, run);
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(partials.data() + begin, d_results, static_cast<std::size_t>(end - begin) * sizeof(R),
                                          cudaMemcpyDeviceToHost, s->reduce_stream));
      WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(s->reduce_stream));
    } catch (...) {
      // Nothing may still read the caller's memory, or the set's, once the call has returned.
      (void)cudaStreamSynchronize(s->copy_stream);
      (void)cudaStreamSynchronize(s->reduce_stream);
      (void)cudaGetLastError();
      throw;
    }
  };
  if (gpus == 1) {
    run_on(0);
  } else {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(gpus));
    std::vector<std::thread> workers;
    for (std::int64_t g = 0; g < gpus; ++g)
      workers.emplace_back([&, g] {
        try {
          run_on(g);
        } catch (...) {
          errors[static_cast<std::size_t>(g)] = std::current_exception();
        }
      });
    for (std::thread& t : workers) t.join();
    for (const std::exception_ptr& e : errors)
      if (e != nullptr) std::rethrow_exception(e);
  }

  // Chunk order, whatever the GPUs: the result does not depend on how many there were.
  const Op op{};
  for (std::int64_t k = 0; k < chunks; ++k) {
    R partial = partials[static_cast<std::size_t>(k)];
    if constexpr (is_arg_op_v<Op>) {
      if (partial.index >= 0) partial.index += k * chunk_elements;
    }
    result = op(result, partial);
  }
  return result;
}

}  // namespace detail

#define WARPFOLD_INSTANTIATE_HOST_OP(Op, T) \
  template reduce_result_t<Op, T> detail::reduce_host_array<Op, T>(const T*, std::int64_t, const host_options&);
WARPFOLD_FOR_EACH_OP_AND_TYPE(WARPFOLD_INSTANTIATE_HOST_OP)

}  // namespace warpfold
