// Reductions of an array sharded over GPUs: each rank (a process or a thread per GPU, as in
// torch.distributed) holds a shard in device memory and an NCCL communicator that the caller
// made (ncclCommInitRank through MPI or torch.distributed, or ncclCommInitAll). Every rank calls
// the same op, type and root; each reduces its shard with the production kernel, and the
// ranks' partial results are combined through NCCL.
//
//   // on every rank, with its own shard, communicator and stream:
//   warpfold::sum_sharded(d_shard, n, d_total, comm, stream);      // the total on every rank
//   float total = warpfold::sum_sharded(d_shard, n, comm);         // blocking, on the host
//
// How the combine works, and why. Each rank's partial result goes into its output, then:
// - sums and products, and min and max of integers: NCCL's all-reduce of that one value, in
//   place (ncclReduce to a root). The combine is exactly one all-reduce of the result's size.
// - the rest (argmin/argmax with global indices, the bitwise ops, min and max of floats, where
//   a NaN must win as in warpfold::min, and of 16-bit integers, which NCCL lacks): each rank's
//   result, with its shard's size, is gathered to every rank (one ncclAllGather of 48 bytes a
//   rank), and every rank combines them itself, in rank order, in one GPU thread. The same
//   bits on every rank; two small kernels more than an all-reduce.
// Library linking: warpfold::sharded (built when NCCL is found), beside warpfold::kernels.
// Every rank passes an output: with a root, the root's gets the result and each other rank's
// holds that rank's own partial result.
//
// argmin/argmax return the index into the whole array: by default rank r's shard is taken to
// start where rank r - 1's ends (shards in rank order, any sizes, empty ones included);
// shard_options::first_index names the start instead.
//
// Errors, thrown before anything is enqueued (warpfold::invalid_argument): the checks of
// reduce.hpp on the shard and the output, a communicator of another device than the current
// one, a root that is not a rank. As with any NCCL collective, every rank must make the same
// call (op, type, root): ranks that disagree on a gathered op are seen when the records
// arrive (the output keeps the rank's own partial, and the blocking form throws); where the
// ops take different collectives, NCCL cannot tell, and the ranks wait on each other forever.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>

#include "warpfold/accumulator.hpp"
#include "warpfold/sum_modes.hpp"
#include "warpfold/error.hpp"
#include "warpfold/ops.hpp"
#include "warpfold/stream.hpp"

namespace warpfold {

struct shard_options {
  // Global index of this shard's first element, for argmin/argmax; -1: where the previous
  // rank's shard ends.
  std::int64_t first_index = -1;
  // -1: every rank gets the result; r: only rank r (the others' outputs get their own partials).
  int root = -1;
};

namespace detail {
// Defined in src/sharded/sharded.cu for every op x type of reduce.hpp. `stream` is resolved.
template <typename Op, typename T>
void reduce_sharded_into(const T* d_shard, std::int64_t n, reduce_result_t<Op, T>* d_out, ncclComm_t comm,
                         cudaStream_t stream, const shard_options& options);
template <typename Op, typename T>
reduce_result_t<Op, T> reduce_sharded_to_host(const T* d_shard, std::int64_t n, ncclComm_t comm, cudaStream_t stream,
                                              const shard_options& options);
}  // namespace detail

template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce_sharded(const T* d_shard, std::int64_t n, reduce_result_t<Op, T>* d_out, ncclComm_t comm, cudaStream_t stream,
                    const shard_options& options = {}) {
  check_op_fits<Op, T>();
  detail::reduce_sharded_into<Op, T>(d_shard, n, d_out, comm, detail::callers_stream<PerThread>(stream), options);
}
// Blocking: the result on the host (on a non-root rank, when a root is named: its own partial).
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
reduce_result_t<Op, T> reduce_sharded(const T* d_shard, std::int64_t n, ncclComm_t comm, const shard_options& options = {},
                                      cudaStream_t stream = nullptr) {
  check_op_fits<Op, T>();
  return detail::reduce_sharded_to_host<Op, T>(d_shard, n, comm, detail::callers_stream<PerThread>(stream), options);
}

// The exact sum (sum_modes.hpp) of a sharded array: each rank sums its shard into the exact
// fixed-point superaccumulator, the ranks' superaccumulators (integers) are added by one
// NCCL all-reduce, and every rank (or the root) rounds the total once. So the result is the
// same bits whatever the number of ranks and wherever the shards split the array. (The
// reproducible sum's order is defined over one whole array; across shards, the exact sum is
// the one whose bits do not depend on the split.) Types: __half, __nv_bfloat16, float, double.
namespace detail {
template <typename T>
void sum_exact_sharded_into(const T* d_shard, std::int64_t n, float_sum_t<T>* d_out, ncclComm_t comm, cudaStream_t stream,
                            const shard_options& options);
template <typename T>
float_sum_t<T> sum_exact_sharded_to_host(const T* d_shard, std::int64_t n, ncclComm_t comm, cudaStream_t stream,
                                         const shard_options& options);
}  // namespace detail
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void sum_exact_sharded(const T* d_shard, std::int64_t n, float_sum_t<T>* d_out, ncclComm_t comm, cudaStream_t stream,
                       const shard_options& options = {}) {
  detail::check_float_sum<T>();
  detail::sum_exact_sharded_into<T>(d_shard, n, d_out, comm, detail::callers_stream<PerThread>(stream), options);
}
template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
float_sum_t<T> sum_exact_sharded(const T* d_shard, std::int64_t n, ncclComm_t comm, const shard_options& options = {},
                                 cudaStream_t stream = nullptr) {
  detail::check_float_sum<T>();
  return detail::sum_exact_sharded_to_host<T>(d_shard, n, comm, detail::callers_stream<PerThread>(stream), options);
}

#define WARPFOLD_DECLARE_SHARDED_OP(name)                                                                           \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                       \
  void name##_sharded(const T* d_shard, std::int64_t n, reduce_result_t<op::name, T>* d_out, ncclComm_t comm,      \
                      cudaStream_t stream, const shard_options& options = {}) {                                    \
    reduce_sharded<op::name, T, PerThread>(d_shard, n, d_out, comm, stream, options);                              \
  }                                                                                                                 \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                       \
  reduce_result_t<op::name, T> name##_sharded(const T* d_shard, std::int64_t n, ncclComm_t comm,                   \
                                              const shard_options& options = {}, cudaStream_t stream = nullptr) {  \
    return reduce_sharded<op::name, T, PerThread>(d_shard, n, comm, options, stream);                              \
  }
WARPFOLD_DECLARE_SHARDED_OP(sum)
WARPFOLD_DECLARE_SHARDED_OP(prod)
WARPFOLD_DECLARE_SHARDED_OP(min)
WARPFOLD_DECLARE_SHARDED_OP(max)
WARPFOLD_DECLARE_SHARDED_OP(bit_and)
WARPFOLD_DECLARE_SHARDED_OP(bit_or)
WARPFOLD_DECLARE_SHARDED_OP(bit_xor)
WARPFOLD_DECLARE_SHARDED_OP(argmin)
WARPFOLD_DECLARE_SHARDED_OP(argmax)
#undef WARPFOLD_DECLARE_SHARDED_OP

}  // namespace warpfold
