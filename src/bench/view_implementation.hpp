// What `warpfold bench --axis --random` times: a sum over some axes of a strided view, behind
// the timing loop's interface (timed_reduction), with every output fetched for the check.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "bench/axis_random.hpp"
#include "bench/implementation.hpp"

namespace warpfold::bench {

class view_implementation : public timed_reduction {
 public:
  // Every output of the last enqueue(), on the host and widened to double; waits for `stream`.
  virtual std::vector<double> fetch_outputs(cudaStream_t stream) = 0;
  // Bytes of one output element (float for float sums, int64 for i32 sums).
  virtual int output_bytes() const = 0;
};

// warpfold::sum_axes over the case's view (impl_view_warpfold.cpp).
std::unique_ptr<view_implementation> make_view_warpfold(const view_case& c);

}  // namespace warpfold::bench
