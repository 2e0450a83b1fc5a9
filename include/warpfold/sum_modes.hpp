// Two more ways to sum floats, beside warpfold::sum (whose bits are fixed on one GPU, but may
// change with the GPU's SM count, since that sets the grid and so the order of additions):
//
// - sum_reproducible: the same bits on every GPU, grid and input address, for the same values
//   in the same order. The order is written down in sum_modes/reproducible_order.hpp; the
//   tests check the GPU against a CPU implementation of it.
// - sum_exact: the exact sum of the elements, rounded once to the result type (to nearest,
//   ties to even). So it is also the same on every GPU, and independent of the order of the
//   elements. IEEE rules for the rest: any NaN, or both +inf and -inf, give NaN; otherwise an
//   infinity among the elements gives that infinity; a finite sum beyond the result type's
//   range gives +-inf; an exact zero is +0, or -0 when every element is -0 (n >= 1).
//
// Element types: __half, __nv_bfloat16, float, double. The result is float for the first
// three (as for warpfold::sum: float holds every half and bfloat16 sum far better) and double
// for double. Both forms as for the other ops: blocking, or asynchronous into device memory
// (one kernel, capturable in a CUDA graph), with the same argument checks (reduce.hpp).
//
//   float r = warpfold::sum_reproducible(d_in, n);
//   warpfold::sum_exact(d_in, n, d_out, stream);
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "warpfold/accumulator.hpp"
#include "warpfold/device/reduce_policy.hpp"
#include "warpfold/device/scratch.hpp"
#include "warpfold/device/scratch_pool.hpp"
#include "warpfold/stream.hpp"
#include "warpfold/sum_modes/reproducible_order.hpp"

namespace warpfold {

template <typename T>
inline constexpr bool is_summable_float_v =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, float> || std::is_same_v<T, double>;

// float for half, bfloat16 and float; double for double.
template <typename T>
using float_sum_t = accumulator_t<op::sum, T>;

namespace detail {

template <typename T>
constexpr void check_float_sum() {
  static_assert(is_summable_float_v<T>,
                "warpfold::sum_reproducible and sum_exact take __half, __nv_bfloat16, float or double elements");
}

// Defined in sum_modes.cuh and compiled once per type in src/sum_modes/.
template <typename T>
void sum_reproducible_into(const T* d_in, std::int64_t n, float_sum_t<T>* d_out, cudaStream_t stream, const scratch_space* scratch);
template <typename T>
float_sum_t<T> sum_reproducible_to_host(const T* d_in, std::int64_t n, cudaStream_t stream);
template <typename T>
void sum_exact_into(const T* d_in, std::int64_t n, float_sum_t<T>* d_out, cudaStream_t stream, const scratch_space* scratch);
template <typename T>
float_sum_t<T> sum_exact_to_host(const T* d_in, std::int64_t n, cudaStream_t stream);

}  // namespace detail

// The most caller scratch either call may need for n elements.
template <typename T>
std::size_t sum_reproducible_scratch_bytes(std::int64_t n) {
  detail::check_float_sum<T>();
  const std::int64_t partials = sum_modes::reproducible_partials<T>(n);
  if (n <= 0 || partials == 0) return 0;  // one block, sums in shared memory
  return device::scratch_bytes_for({1, 0, partials * std::int64_t(sizeof(float_sum_t<T>))});
}
template <typename T>
std::size_t sum_exact_scratch_bytes(std::int64_t n);  // sum_modes.cuh (it knows the superaccumulator's size)

template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
float_sum_t<T> sum_reproducible(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  detail::check_float_sum<T>();
  return detail::sum_reproducible_to_host<T>(d_in, n, detail::callers_stream<PerThread>(stream));
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void sum_reproducible(const T* d_in, std::int64_t n, float_sum_t<T>* d_out, cudaStream_t stream, const scratch_space& scratch = {}) {
  detail::check_float_sum<T>();
  detail::sum_reproducible_into<T>(d_in, n, d_out, detail::callers_stream<PerThread>(stream),
                                   scratch.data == nullptr && scratch.bytes == 0 ? nullptr : &scratch);
}

template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
float_sum_t<T> sum_exact(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  detail::check_float_sum<T>();
  return detail::sum_exact_to_host<T>(d_in, n, detail::callers_stream<PerThread>(stream));
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void sum_exact(const T* d_in, std::int64_t n, float_sum_t<T>* d_out, cudaStream_t stream, const scratch_space& scratch = {}) {
  detail::check_float_sum<T>();
  detail::sum_exact_into<T>(d_in, n, d_out, detail::callers_stream<PerThread>(stream),
                            scratch.data == nullptr && scratch.bytes == 0 ? nullptr : &scratch);
}

}  // namespace warpfold
