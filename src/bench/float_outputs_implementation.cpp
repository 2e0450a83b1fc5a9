// The frame of the axis and segment implementations (axis_implementation.hpp): their device
// output, the first call in prepare(), and the copy back for the check.
#include "bench/axis_check.hpp"
#include "bench/axis_implementation.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {

void float_outputs_implementation::prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) {
  out_.reserve(static_cast<std::size_t>(outputs_ > 0 ? outputs_ : 1));
  allocate_scratch(static_cast<const float*>(d_sample), stream);
  enqueue(d_sample, n, stream);
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::vector<double> float_outputs_implementation::fetch_outputs(cudaStream_t stream) {
  return fetch_float_outputs(out_.get(), outputs_, stream);
}

void float_outputs_implementation::allocate_scratch(const float*, cudaStream_t) {}

}  // namespace warpfold::bench
