// The production reduction API, host side: declarations only, so that plain C++ can call it.
// The definitions are in <warpfold/warpfold.cuh> (include that from a .cu file to instantiate
// them for your own types and ops); the project compiles every supported op x type once in
// src/reduce/.
//
// Two forms of every op:
// - blocking:     auto s = warpfold::sum(d_in, n);                  // result on the host
// - asynchronous: warpfold::sum(d_in, n, d_out, stream);            // result in device memory
// The asynchronous form only enqueues one kernel: it can be captured in a CUDA graph, on the
// very first call, in any capture mode.
//
// Concurrency: any number of host threads may call any of these at the same time, on the same
// or different streams (the legacy default stream, cudaStreamPerThread and per-thread default
// streams included) and devices; each call gets its own result. A captured call keeps its own
// scratch memory for the life of its graph, so graphs replay concurrently on any streams.
// Scratch memory comes from the library's pool (device/scratch_pool.hpp) unless the call
// passes its own (scratch_space, sized by reduce_scratch_bytes).
//
// Each reduction is one kernel launch. Float results are bitwise identical run to run on the
// same GPU: the combine order is fixed and no float atomics are used.
// Errors: warpfold::invalid_argument for a negative n, a null pointer with n > 0, a host
// pointer, memory of another device than the current one, or caller scratch that is too small
// (nothing is launched or written); warpfold::cuda_error when CUDA fails, out of memory
// included.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "warpfold/accumulator.hpp"
#include "warpfold/device/reduce_policy.hpp"
#include "warpfold/device/scratch.hpp"
#include "warpfold/device/scratch_pool.hpp"
#include "warpfold/error.hpp"
#include "warpfold/ops.hpp"
#include "warpfold/stream.hpp"

namespace warpfold {
namespace detail {

// Defined in warpfold.cuh and compiled for every op x type in src/reduce/. `stream` is
// already resolved (stream.hpp); a null `scratch` means the library's pool.
template <typename Op, typename T>
void reduce_into(const T* d_in, std::int64_t n, reduce_result_t<Op, T>* d_out, cudaStream_t stream,
                 const scratch_space* scratch);
template <typename Op, typename T>
reduce_result_t<Op, T> reduce_to_host(const T* d_in, std::int64_t n, cudaStream_t stream);

inline const scratch_space* callers_scratch(const scratch_space& s) { return s.data == nullptr && s.bytes == 0 ? nullptr : &s; }

}  // namespace detail

// The most scratch a reduction of n elements of `element_bytes` may need, whose partial
// results take `partial_bytes` each (0: it needs none; inputs of up to 64 KB never do).
inline std::size_t reduce_scratch_bytes(std::int64_t n, std::size_t element_bytes, std::size_t partial_bytes) {
  using policy = device::reduce_policy;
  if (n <= 0 || n * std::int64_t(element_bytes) <= policy::single_block_max_bytes) return 0;
  return device::scratch_bytes_for({1, 0, policy::max_grid * std::int64_t(partial_bytes)});
}
template <typename Op, typename T>
std::size_t reduce_scratch_bytes(std::int64_t n) {
  return reduce_scratch_bytes(n, sizeof(T), sizeof(reduce_result_t<Op, T>));
}

// The generic entry points. Op is one of warpfold::op; see warpfold.cuh for your own functor.
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce_async(const T* d_in, std::int64_t n, reduce_result_t<Op, T>* d_out, cudaStream_t stream,
                  const scratch_space& scratch = {}) {
  check_op_fits<Op, T>();
  detail::reduce_into<Op, T>(d_in, n, d_out, detail::callers_stream<PerThread>(stream), detail::callers_scratch(scratch));
}
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
reduce_result_t<Op, T> reduce_blocking(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  check_op_fits<Op, T>();
  return detail::reduce_to_host<Op, T>(d_in, n, detail::callers_stream<PerThread>(stream));
}

// One name per op: sum, prod, min, max, bit_and, bit_or, bit_xor, argmin, argmax.
// argmin/argmax return the first index of the smallest (largest) value, with that value; on
// an empty input the index is -1 and the value is the op's identity (+inf / -inf, or the
// type's max / lowest).
#define WARPFOLD_DECLARE_OP(name)                                                                                     \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                         \
  reduce_result_t<op::name, T> name(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {                  \
    return reduce_blocking<op::name, T, PerThread>(d_in, n, stream);                                                 \
  }                                                                                                                  \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                         \
  void name(const T* d_in, std::int64_t n, reduce_result_t<op::name, T>* d_out, cudaStream_t stream,                 \
            const scratch_space& scratch = {}) {                                                                     \
    reduce_async<op::name, T, PerThread>(d_in, n, d_out, stream, scratch);                                           \
  }
WARPFOLD_DECLARE_OP(sum)
WARPFOLD_DECLARE_OP(prod)
WARPFOLD_DECLARE_OP(min)
WARPFOLD_DECLARE_OP(max)
WARPFOLD_DECLARE_OP(bit_and)
WARPFOLD_DECLARE_OP(bit_or)
WARPFOLD_DECLARE_OP(bit_xor)
WARPFOLD_DECLARE_OP(argmin)
WARPFOLD_DECLARE_OP(argmax)
#undef WARPFOLD_DECLARE_OP

}  // namespace warpfold

// The reproducible and exact float sums.
#include "warpfold/sum_modes.hpp"
// Norms, dot, mean and variance, counts.
#include "warpfold/statistics.hpp"
// The same statistics of many arrays in one launch.
#include "warpfold/many.hpp"
