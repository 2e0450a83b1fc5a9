// Checking an axis implementation's answers: the references of a case's input buffers, and
// fetching a device output for the check (the segment bench fetches its outputs here too).
// Host code on the CUDA runtime (no kernels).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "bench/axis_reference.hpp"
#include "bench/buffer_references.hpp"
#include "bench/pool.hpp"

namespace warpfold::bench {

// The references of one case, one per buffer of its pool (an f32 pool of the case's element
// count): see buffer_references. The pool must outlive it.
class axis_references {
 public:
  axis_references(input_pool& pool, const axis_case& c);

  const axis_reference& of(int buffer) { return references_.of(buffer); }
  check_outcome check(int buffer, const std::vector<double>& got) { return check_axis_outputs(of(buffer), got); }

 private:
  buffer_references<axis_reference> references_;
};

// `count` floats of device memory, copied to the host (waits for `stream`) and widened to double.
std::vector<double> fetch_float_outputs(const float* d_out, std::int64_t count, cudaStream_t stream);

}  // namespace warpfold::bench
