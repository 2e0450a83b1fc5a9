#include "bench/axis_check.hpp"

#include "warpfold/error.hpp"

namespace warpfold::bench {

namespace {

// The pool must hold the case's array: checked before any reference is computed from it.
const input_pool& pool_for(input_pool& pool, const axis_case& c) {
  if (pool.type() != dtype::f32 || pool.n() != c.shape.elements())
    throw invalid_argument("axis_references: the pool must hold " + std::to_string(c.shape.elements()) +
                           " f32 elements for " + describe(c));
  return pool;
}

}  // namespace

axis_references::axis_references(input_pool& pool, const axis_case& c)
    : references_(pool_for(pool, c), [c](const void* host_copy) {
        return compute_axis_reference(c, static_cast<const float*>(host_copy));
      }) {}

std::vector<double> fetch_float_outputs(const float* d_out, std::int64_t count, cudaStream_t stream) {
  std::vector<float> host(static_cast<std::size_t>(count));
  WARPFOLD_CUDA_CHECK(
      cudaMemcpyAsync(host.data(), d_out, host.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::vector<double>(host.begin(), host.end());
}

}  // namespace warpfold::bench
