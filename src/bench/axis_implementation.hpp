// What `warpfold bench --axis` times: float sums along one dim of a 2-D array, behind the
// timing loop's interface (timed_reduction), with every output fetched for the check. An
// implementation is made for one case (shape and dim) and, like the full reductions, allocates
// its output and scratch in prepare(), never inside a timed region.
//
// To add one: derive from float_outputs_implementation (see impl_axis_warpfold.cpp) and add
// an axis_impl_entry for it in make_axis_registry (registry.cpp). The segment bench's
// implementations (segment_implementation.hpp) use the same interface.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/axis_cases.hpp"
#include "bench/implementation.hpp"
#include "warpfold/detail/buffer.hpp"

namespace warpfold::bench {

class axis_implementation : public timed_reduction {
 public:
  // Every output of the last enqueue(), on the host and widened to double; waits for `stream`.
  virtual std::vector<double> fetch_outputs(cudaStream_t stream) = 0;
};

// The frame that the axis and segment implementations share: `outputs` floats of device
// memory, allocated in prepare(), which then makes one call (so that anything a first call
// sets up, like the library binding scratch to the stream, is done before timing);
// fetch_outputs() copies them back. A call is stream work only, so its launches are counted
// by capturing it. A derived class enqueues its reduction into out().
class float_outputs_implementation : public axis_implementation {
 public:
  explicit float_outputs_implementation(std::int64_t outputs) : outputs_(outputs) {}

  void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) override;
  std::vector<double> fetch_outputs(cudaStream_t stream) override;
  bool capturable() const override { return true; }

 protected:
  // Allocates whatever else a call needs (CUB's temp storage), sized on d_sample; prepare()
  // calls it once, before the first call.
  virtual void allocate_scratch(const float* d_sample, cudaStream_t stream);
  float* out() const { return out_.get(); }
  std::int64_t outputs() const { return outputs_; }

 private:
  std::int64_t outputs_;
  warpfold::detail::device_buffer<float> out_;
};

struct axis_impl_entry {
  std::string name;     // "warpfold", "cub"
  std::string family;   // "production", "baseline", "sum-modes" (run only when named)
  std::string summary;  // one line for `warpfold list`
  bool rows_only = false;  // only dim 1 of a 2-D array (a segmented reduce over contiguous rows)
  std::function<std::unique_ptr<axis_implementation>(const axis_case&)> make;

  bool supports(const axis_case& c) const { return !rows_only || c.dim == 1; }
};

// Every axis implementation, in the order of the table: the production API, then CUB.
// Building it touches no GPU.
std::vector<axis_impl_entry> make_axis_registry();

// cub::DeviceSegmentedReduce::Sum over the rows (impl_cub_segmented.cu, CUB's one file for it).
std::unique_ptr<axis_implementation> make_axis_cub(const axis_case& c);

// warpfold::sum_axes (impl_axis_warpfold.cpp); adds nothing when the bench is built without
// the production API (WARPFOLD_BENCH_PRODUCTION off).
void add_axis_production_entries(std::vector<axis_impl_entry>& entries);

}  // namespace warpfold::bench
