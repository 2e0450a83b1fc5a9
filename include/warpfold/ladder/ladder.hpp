// The reduction ladder, host side: the catalogue of steps and finishers, and the runner that
// launches any step with any finisher. Plain C++: include it from .cpp files. The kernels
// behind it live in the step*.cuh headers and runner.cuh; the project compiles them once, in
// src/ladder/, for int32, float and double.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::ladder {

enum class step : int {
  global_halving = 0,
  interleaved_divergent,
  interleaved_bank_conflicts,
  sequential_addressing,
  first_add_during_load,
  unroll_last_warp,
  complete_unroll,
  multiple_elements_per_thread,
  warp_shuffle,
  vector_loads,
};

// What happens to the per-block partial sums.
enum class finisher : int {
  host,           // copy partials to the host and add them there
  relaunch,       // launch the same step on the partials until one block remains
  second_kernel,  // one single-block kernel reduces the partials
  atomic,         // each block atomicAdds into the result (floats: not deterministic)
  last_block,     // one pass: the last block to finish, found with a counter, adds them
};

struct step_info {
  step id;
  std::string_view name;     // command-line name, e.g. "3-sequential"
  std::string_view summary;  // one line: what it changes
  bool grid_stride;          // a fixed-size grid with a grid-stride loop (and 64-bit indices)
};

struct finisher_info {
  finisher id;
  std::string_view name;
  std::string_view summary;
  bool deterministic_for_floats;
};

inline constexpr std::array<step_info, 10> steps = {{
    {step::global_halving, "0-global", "halve each block's slice in global memory (on a scratch copy), barrier between rounds", false},
    {step::interleaved_divergent, "1-interleaved", "shared memory, interleaved addressing with tid % (2s): divergent warps", false},
    {step::interleaved_bank_conflicts, "2-strided-index", "interleaved with index = 2*s*tid: no divergence, but bank conflicts", false},
    {step::sequential_addressing, "3-sequential", "sequential addressing s = block/2..1: conflict-free, half the threads idle at first", false},
    {step::first_add_during_load, "4-first-add", "each thread adds two elements while loading (bounds-checked): half the blocks", false},
    {step::unroll_last_warp, "5-unroll-warp", "last six rounds in one warp with __syncwarp(), no block barriers", false},
    {step::complete_unroll, "6-full-unroll", "block size as a template parameter: every round unrolled at compile time", false},
    {step::multiple_elements_per_thread, "7-multi-element", "one resident wave of blocks, grid-stride loop per thread (Brent)", true},
    {step::warp_shuffle, "8-warp-shuffle", "warp and block stages with __shfl_down_sync instead of a shared-memory tree", true},
    {step::vector_loads, "9-vector-loads", "16-byte loads in the grid-stride loop, any alignment and tail", true},
}};

inline constexpr std::array<finisher_info, 5> finishers = {{
    {finisher::host, "host", "copy the per-block partials to the host and add them there", true},
    {finisher::relaunch, "relaunch", "launch the same step on the partials until one block remains", true},
    {finisher::second_kernel, "second-kernel", "a second, single-block kernel adds the partials", true},
    {finisher::atomic, "atomic", "each block atomicAdds its partial into the result; float order varies run to run", false},
    {finisher::last_block, "last-block", "one pass: the last block to finish (a counter and a fence) adds the partials", true},
}};

inline const step_info& info(step s) { return steps[static_cast<int>(s)]; }
inline const finisher_info& info(finisher f) { return finishers[static_cast<int>(f)]; }

// By full name ("3-sequential") or by number ("3").
inline std::optional<step> parse_step(std::string_view name) {
  for (const step_info& s : steps)
    if (name == s.name || name == s.name.substr(0, s.name.find('-'))) return s.id;
  return std::nullopt;
}

inline std::optional<finisher> parse_finisher(std::string_view name) {
  for (const finisher_info& f : finishers)
    if (name == f.name) return f.id;
  return std::nullopt;
}

// Block sizes a step supports. Steps 0-4 take any power of two from 32 to 1024; step 5 needs
// at least 64 (its last warp reads partial[tid + 32]); steps 6-9 take the block size as a
// template parameter and are compiled for 128, 256 and 512 only, to keep the build short.
inline std::vector<int> supported_block_sizes(step s) {
  if (static_cast<int>(s) >= static_cast<int>(step::complete_unroll)) return {128, 256, 512};
  const int smallest = s == step::unroll_last_warp ? 64 : 32;
  std::vector<int> sizes;
  for (int b = smallest; b <= 1024; b *= 2) sizes.push_back(b);
  return sizes;
}

inline bool supports_block_size(step s, int block_size) {
  for (int b : supported_block_sizes(s))
    if (b == block_size) return true;
  return false;
}

inline constexpr int default_block_size = 256;

// Runs one step with one finisher. It owns its scratch memory, which grows on the first call
// at a given size, so repeated calls at the same size allocate nothing (the bench relies on
// it). Not thread-safe; one runner per stream.
//
// T is int32_t, float or double. The sum is taken in T: int32 sums wrap modulo 2^32.
template <typename T>
class runner {
 public:
  // Throws warpfold::invalid_argument for a block size the step does not support.
  runner(step s, finisher f, int block_size = default_block_size);
  ~runner();
  runner(const runner&) = delete;
  runner& operator=(const runner&) = delete;

  // Reduces d_in[0, n). d_in must be device memory; it is only read. With a device finisher
  // this only enqueues work on `stream`; with the host finisher it waits for the partials and
  // adds them before returning. Throws warpfold::invalid_argument for bad input (nothing is
  // launched then) and warpfold::cuda_error if CUDA fails.
  void run(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr);

  // The result of the last run(); waits for `stream`.
  T result(cudaStream_t stream = nullptr);

  // Number of kernel launches the last run() made (the bench reports it).
  int launches() const { return launches_; }

  step which_step() const { return step_; }
  finisher which_finisher() const { return finisher_; }
  int block_size() const { return block_size_; }

 private:
  struct buffers;  // device scratch, partials, result; defined in runner.cuh

  step step_;
  finisher finisher_;
  int block_size_;
  int launches_ = 0;
  int resident_blocks_ = 0;  // one wave of the grid-stride steps; cached on first use
  T host_result_{};
  buffers* buffers_ = nullptr;
};

// Convenience: one reduction, returned to the host.
template <typename T>
T reduce(step s, finisher f, const T* d_in, std::int64_t n, int block_size = default_block_size,
         cudaStream_t stream = nullptr) {
  runner<T> r(s, f, block_size);
  r.run(d_in, n, stream);
  return r.result(stream);
}

}  // namespace warpfold::ladder
