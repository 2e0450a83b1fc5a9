// The production reduction API, host side: declarations only, so that plain C++ can call it.
// The definitions are in <warpfold/warpfold.cuh> (include that from a .cu file to instantiate
// them for your own types and ops); the project compiles every supported op x type once in
// src/reduce/.
//
// Two forms of every op:
// - blocking:     auto s = warpfold::sum(d_in, n);                  // result on the host
// - asynchronous: warpfold::sum(d_in, n, d_out, stream);            // result in device memory
// The asynchronous form allocates and synchronizes only on the first call for a given
// device and stream (to create that stream's workspace); after that it only enqueues one
// kernel, so it can be captured in a CUDA graph.
//
// Each reduction is one kernel launch. Float results are bitwise identical run to run on the
// same GPU: the combine order is fixed and no float atomics are used.
// Errors: warpfold::invalid_argument for a negative n, a null pointer with n > 0, or a host
// pointer (nothing is launched or written); warpfold::cuda_error when CUDA fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "warpfold/accumulator.hpp"
#include "warpfold/error.hpp"
#include "warpfold/ops.hpp"

namespace warpfold {

// The generic entry points. Op is one of warpfold::op or any functor; see warpfold.cuh.
template <typename Op, typename T, typename Acc = accumulator_t<Op, T>>
void reduce_async(const T* d_in, std::int64_t n, Acc* d_out, cudaStream_t stream);
template <typename Op, typename T, typename Acc = accumulator_t<Op, T>>
Acc reduce_blocking(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr);

template <typename Op, typename T>
void arg_reduce_async(const T* d_in, std::int64_t n, arg_result_t<T>* d_out, cudaStream_t stream);
template <typename Op, typename T>
arg_result_t<T> arg_reduce_blocking(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr);

#define WARPFOLD_DECLARE_OP(name)                                                                   \
  template <typename T>                                                                            \
  accumulator_t<op::name, T> name(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {  \
    check_op_fits<op::name, T>();                                                                  \
    return reduce_blocking<op::name, T>(d_in, n, stream);                                          \
  }                                                                                                \
  template <typename T>                                                                            \
  void name(const T* d_in, std::int64_t n, accumulator_t<op::name, T>* d_out, cudaStream_t stream) { \
    check_op_fits<op::name, T>();                                                                  \
    reduce_async<op::name, T>(d_in, n, d_out, stream);                                             \
  }
WARPFOLD_DECLARE_OP(sum)
WARPFOLD_DECLARE_OP(prod)
WARPFOLD_DECLARE_OP(min)
WARPFOLD_DECLARE_OP(max)
WARPFOLD_DECLARE_OP(bit_and)
WARPFOLD_DECLARE_OP(bit_or)
WARPFOLD_DECLARE_OP(bit_xor)
#undef WARPFOLD_DECLARE_OP

// First index of the smallest (largest) value, with that value. On an empty input the
// index is -1 and the value is the op's identity (+inf / -inf, or the type's max / lowest).
template <typename T>
arg_result_t<T> argmin(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return arg_reduce_blocking<op::argmin, T>(d_in, n, stream);
}
template <typename T>
void argmin(const T* d_in, std::int64_t n, arg_result_t<T>* d_out, cudaStream_t stream) {
  arg_reduce_async<op::argmin, T>(d_in, n, d_out, stream);
}
template <typename T>
arg_result_t<T> argmax(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return arg_reduce_blocking<op::argmax, T>(d_in, n, stream);
}
template <typename T>
void argmax(const T* d_in, std::int64_t n, arg_result_t<T>* d_out, cudaStream_t stream) {
  arg_reduce_async<op::argmax, T>(d_in, n, d_out, stream);
}

}  // namespace warpfold
