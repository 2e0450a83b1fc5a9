#include "bench/axis_check.hpp"

#include "warpfold/error.hpp"

namespace warpfold::bench {

axis_references::axis_references(input_pool& pool, const axis_case& c) : pool_(pool), case_(c) {
  if (pool.type() != dtype::f32 || pool.n() != c.shape.elements())
    throw invalid_argument("axis_references: the pool must hold " + std::to_string(c.shape.elements()) +
                           " f32 elements for " + describe(c));
}

const axis_reference& axis_references::of(int buffer) {
  const auto found = references_.find(buffer);
  if (found != references_.end()) return found->second;
  std::vector<float> copy(static_cast<std::size_t>(pool_.n()));
  WARPFOLD_CUDA_CHECK(
      cudaMemcpy(copy.data(), pool_.buffer(buffer), copy.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return references_.emplace(buffer, compute_axis_reference(case_, copy.data())).first->second;
}

std::vector<double> fetch_float_outputs(const float* d_out, std::int64_t count, cudaStream_t stream) {
  std::vector<float> host(static_cast<std::size_t>(count));
  WARPFOLD_CUDA_CHECK(
      cudaMemcpyAsync(host.data(), d_out, host.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::vector<double>(host.begin(), host.end());
}

}  // namespace warpfold::bench
