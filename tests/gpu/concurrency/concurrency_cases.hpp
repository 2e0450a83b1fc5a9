// The reductions that the concurrency tests run over and over: every kind of call that uses
// scratch memory differently (none, one cluster, a one-pass finish, split axis outputs,
// segments, lists of many arrays with and without a plan kernel), on inputs whose results are
// exact, so a result that another call disturbed cannot hide inside a tolerance. Built once
// per binary; every input is read-only and shared by every thread.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <warpfold/many.hpp>

#include "warpfold_test/warpfold_test.hpp"

namespace concurrency_test {

// One call: its name, how to enqueue its asynchronous form into `d_out` (out_bytes of device
// memory), how to run its blocking form, how to read its output as numbers, and the exact
// numbers it must give.
struct reduction_case {
  std::string name;
  std::size_t out_bytes = 0;
  std::function<void(void* d_out, cudaStream_t stream)> enqueue;
  std::function<std::vector<double>(cudaStream_t stream)> blocking;
  std::function<std::vector<double>(const void* out)> decode;
  std::vector<double> expected;
  bool needs_scratch = false;  // its launch uses the library's scratch (a multi-block finish)
};

// Every case, inputs uploaded on first use.
const std::vector<reduction_case>& all_cases();

// The cases that leave partials in scratch memory.
std::vector<const reduction_case*> scratch_cases();

// The inputs are still what was uploaded.
::testing::AssertionResult inputs_unchanged();

// Floats k / 256 with k in [-3, 3]: every partial sum of up to 2^22 of them is exact in float.
std::vector<float> exact_floats(std::int64_t n, std::uint64_t seed);

// Lists of many arrays over one input x (its host copy; d_x on the device): consecutive
// pieces of the given sizes, and each listed array's exact sum (entries may repeat), then the
// sum of all of them, as the *_many calls give them.
std::vector<warpfold::array_ref<float>> pieces_of(const float* d_x, const std::vector<std::int64_t>& sizes);
std::vector<double> sums_of(const std::vector<warpfold::array_ref<float>>& list, const float* d_x, const std::vector<float>& x);

// Device output slots for `count` results of up to `bytes` each, and their host copies, in
// page-locked memory so that the copies are asynchronous.
class result_slots {
 public:
  result_slots(std::size_t count, std::size_t bytes);
  ~result_slots();
  result_slots(const result_slots&) = delete;
  result_slots& operator=(const result_slots&) = delete;

  void* device(std::size_t i) const { return device_ + i * bytes_; }
  const void* host(std::size_t i) const { return host_ + i * bytes_; }
  // Poisons slot i, then (after the caller's enqueue) copies it to the host, on `stream`.
  void poison(std::size_t i, cudaStream_t stream) const;
  void fetch(std::size_t i, cudaStream_t stream) const;

 private:
  unsigned char* device_ = nullptr;
  unsigned char* host_ = nullptr;
  std::size_t bytes_;
};

// The largest out_bytes of any case.
std::size_t largest_output();

// "" when `got` matches `c.expected` exactly, else what differs.
std::string mismatch(const reduction_case& c, const std::vector<double>& got);

}  // namespace concurrency_test
