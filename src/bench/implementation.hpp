// The implementation registry: everything `warpfold bench` can time, behind one interface.
// An implementation, made for one dtype, is prepared once for a size (all scratch memory is
// allocated then, never inside a timed region), enqueues one reduction of a device buffer on
// a stream, and fetches the result of its last reduction to the host.
//
// To add an implementation: write a class deriving from `implementation` (see impl_cub.cu or
// impl_warpfold.cpp for small examples), and add an impl_entry for it in registry.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/dtype.hpp"
#include "warpfold/ladder/ladder.hpp"

namespace warpfold::bench {

// What the timing loop (timing.hpp) needs of anything it times: preparing, and enqueueing one
// call. How an answer is fetched and checked is up to the kind of reduction: one value here,
// one value per output for the axis bench (axis_implementation.hpp).
class timed_reduction {
 public:
  virtual ~timed_reduction() = default;

  // Allocates whatever one reduction of n elements needs, and may run one reduction of
  // d_sample (n elements) to do so. Called once before any timing.
  virtual void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) = 0;

  // Enqueues one reduction of d_in[0, n) on `stream`. Allocates nothing (after prepare).
  virtual void enqueue(const void* d_in, std::int64_t n, cudaStream_t stream) = 0;

  // Kernel launches one call makes, when the implementation knows them.
  virtual std::optional<int> launches_per_call() const { return std::nullopt; }

  // True when one call is only stream work (no host synchronization), so that the bench can
  // count its launches by capturing one call into a CUDA graph.
  virtual bool capturable() const { return false; }
};

// A full reduction: n elements to one value.
class implementation : public timed_reduction {
 public:
  // How its answer relates to the exact sum (decides how the bench checks it).
  virtual result_kind kind() const = 0;

  // The result of the last enqueue(), on the host; waits for `stream`.
  virtual result_value fetch(cudaStream_t stream) = 0;
};

struct impl_entry {
  std::string name;      // "3-sequential", "cub", "thrust", "warpfold"
  std::string family;    // "ladder", "baseline", "production"
  std::string finisher;  // ladder entries: the finisher's name; empty otherwise
  std::string summary;   // one line for `warpfold list` and the table's title
  std::vector<dtype> dtypes;
  std::function<std::unique_ptr<implementation>(dtype)> make;

  bool supports(dtype t) const;
};

struct registry_options {
  std::vector<ladder::finisher> finishers{ladder::finisher::last_block};
  int block_size = ladder::default_block_size;
};

// Every implementation: the ladder steps (each with each requested finisher; steps that do
// not support the block size are left out), then the baselines, then the production API.
// Building the registry touches no GPU.
std::vector<impl_entry> make_registry(const registry_options& options = {});

// Factories, one per file, so that CUB and Thrust are each compiled in one translation unit.
std::unique_ptr<implementation> make_ladder(ladder::step s, ladder::finisher f, int block_size, dtype t);
std::unique_ptr<implementation> make_cub(dtype t);
std::unique_ptr<implementation> make_thrust(dtype t);

// The production API (impl_warpfold.cpp) adds its entries here; it adds none when the bench is
// built without it (WARPFOLD_BENCH_PRODUCTION off).
void add_production_entries(std::vector<impl_entry>& entries);

}  // namespace warpfold::bench
