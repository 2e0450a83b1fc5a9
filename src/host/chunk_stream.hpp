// Streams a run of chunks of a host array through one GPU (host_arrays.hpp): the host threads
// copy chunks into a ring of pinned slots while the copy engine sends the chunk before and the
// GPU reduces the one before that.
//
// Who waits for whom:
// - The copy threads take the chunks in order, once the coordinator has let a chunk in (its
//   slot is free), and claim its pieces one at a time until none is left. They make no CUDA
//   calls: with a dozen of them waiting on events, the coordinator's own calls queued behind
//   theirs.
// - The coordinator (the calling thread) waits until every piece of chunk k is copied,
//   enqueues the chunk's copy to the GPU and its reduction, then waits for the copy
//   engine to finish the chunk before (whose slot is next to be refilled) and lets chunk
//   k - 1 + slots in. A copy into a device buffer waits for the reduction of the chunk that
//   used it before, on the GPU (an event), so nobody waits on a reduction.
// The copy threads may run ahead of the link by up to slots - 1 chunks; they stop, and the
// error reaches the caller, as soon as any step fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "staging.hpp"

namespace warpfold::host {

struct chunk_run {
  const unsigned char* first;  // the run's first byte in host memory
  std::int64_t chunks = 0;
  std::size_t chunk_bytes = 0;  // every chunk but the last
  std::size_t last_bytes = 0;
  bool pinned_input = false;   // send straight from `first`, no copy threads
  int copy_threads = 1;
  // Enqueues the reduction of chunk k (of `bytes`, at d_chunk on the GPU) on `stream`.
  std::function<void(const void* d_chunk, std::size_t bytes, std::int64_t k, cudaStream_t stream)> reduce_chunk;
};

// Enqueues the whole run on `s`; returns once every reduction is enqueued (the caller waits on
// s.reduce_stream). Throws what any step threw.
void stream_chunks(staging_set& s, const chunk_run& run);

}  // namespace warpfold::host
