#include "bench/pool.hpp"

#include "bench/gpu.hpp"
#include "bench/statistics.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {

std::int64_t input_pool::bytes_needed(dtype type, std::int64_t n, std::int64_t l2_bytes) {
  const std::int64_t stride = aligned_buffer_bytes(n, element_bytes(type));
  return stride * rotation_buffers(stride, l2_bytes, rotation_factor);
}

input_pool::input_pool(dtype type, std::int64_t n, std::int64_t l2_bytes, std::uint64_t seed, cudaStream_t stream,
                       value_spread spread)
    : type_(type), n_(n) {
  if (n <= 0) throw invalid_argument("input_pool: n must be positive");
  stride_bytes_ = aligned_buffer_bytes(n, element_bytes(type));
  buffers_ = rotation_buffers(stride_bytes_, l2_bytes, rotation_factor);
  const std::int64_t total = stride_bytes_ * buffers_;
  WARPFOLD_CUDA_CHECK(cudaMalloc(&base_, static_cast<std::size_t>(total)));
  try {
    // One fill over the whole allocation: buffer i's values come from indices i*stride + j,
    // so every buffer differs. (The padding between buffers is filled too and never read.)
    fill_varied(type, base_, total / element_bytes(type), seed, stream, spread);
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  } catch (...) {
    (void)cudaFree(base_);
    throw;
  }
}

input_pool::~input_pool() { (void)cudaFree(base_); }

const void* input_pool::buffer(int index) const {
  if (index < 0 || index >= buffers_) throw invalid_argument("input_pool: buffer index out of range");
  return static_cast<const unsigned char*>(base_) + static_cast<std::int64_t>(index) * stride_bytes_;
}

int input_pool::next_index() {
  const int index = cursor_;
  cursor_ = (cursor_ + 1) % buffers_;
  return index;
}

std::vector<unsigned char> input_pool::host_copy(int index) const {
  std::vector<unsigned char> copy(static_cast<std::size_t>(buffer_bytes()));
  WARPFOLD_CUDA_CHECK(cudaMemcpy(copy.data(), buffer(index), copy.size(), cudaMemcpyDeviceToHost));
  return copy;
}

const host_reference& input_pool::reference(int index) {
  const auto found = references_.find(index);
  if (found != references_.end()) return found->second;
  return references_.emplace(index, compute_reference(type_, host_copy(index).data(), n_)).first->second;
}

}  // namespace warpfold::bench
