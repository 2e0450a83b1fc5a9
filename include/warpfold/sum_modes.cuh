// Definitions of the reproducible and exact sums (declared in sum_modes.hpp). Compiled once per
// element type in src/sum_modes/.
#pragma once

#include <cstdint>

#include "warpfold/sum_modes.hpp"
#include "warpfold/sum_modes/launch.cuh"
#include "warpfold/warpfold.cuh"

namespace warpfold {

template <typename T>
std::size_t sum_exact_scratch_bytes(std::int64_t n) {
  detail::check_float_sum<T>();
  using policy = device::reduce_policy;
  if (n <= 0 || n * std::int64_t(sizeof(T)) <= policy::single_block_max_bytes) return 0;  // one block
  return device::scratch_bytes_for(
      {1, 0, policy::max_grid * (sum_modes::superaccumulator_format<T>::digits + 1) * std::int64_t(sizeof(long long))});
}

namespace detail {

// The checks and the launch that both modes share; `launch` is the mode's grid layer.
template <typename T, typename Launch>
void float_sum_into(const char* api, Launch launch, const T* d_in, std::int64_t n, float_sum_t<T>* d_out,
                    cudaStream_t stream, const scratch_space* scratch) {
  const int device = device::current_device();
  require_async_memory(d_in, n, d_out, scratch, api, device);
  device::launcher l(device, stream, scratch);
  launch(d_in, n, d_out, l);
}

template <typename T, typename Launch>
float_sum_t<T> float_sum_to_host(const char* api, Launch launch, const T* d_in, std::int64_t n, cudaStream_t stream) {
  const int device = device::current_device();
  require_device_input(d_in, n, api, device);
  return run_to_host<float_sum_t<T>>(stream, api, [&](float_sum_t<T>* slot) {
    device::launcher l(device, stream, nullptr);
    launch(d_in, n, slot, l);
  });
}

template <typename T>
void sum_reproducible_into(const T* d_in, std::int64_t n, float_sum_t<T>* d_out, cudaStream_t stream, const scratch_space* scratch) {
  float_sum_into("warpfold::sum_reproducible", sum_modes::launch_reproducible<T, float_sum_t<T>>, d_in, n, d_out, stream, scratch);
}
template <typename T>
float_sum_t<T> sum_reproducible_to_host(const T* d_in, std::int64_t n, cudaStream_t stream) {
  return float_sum_to_host("warpfold::sum_reproducible", sum_modes::launch_reproducible<T, float_sum_t<T>>, d_in, n, stream);
}
template <typename T>
void sum_exact_into(const T* d_in, std::int64_t n, float_sum_t<T>* d_out, cudaStream_t stream, const scratch_space* scratch) {
  float_sum_into("warpfold::sum_exact", sum_modes::launch_exact<T, float_sum_t<T>>, d_in, n, d_out, stream, scratch);
}
template <typename T>
float_sum_t<T> sum_exact_to_host(const T* d_in, std::int64_t n, cudaStream_t stream) {
  return float_sum_to_host("warpfold::sum_exact", sum_modes::launch_exact<T, float_sum_t<T>>, d_in, n, stream);
}

}  // namespace detail
}  // namespace warpfold
