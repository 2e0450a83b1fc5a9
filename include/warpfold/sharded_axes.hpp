// Axis reductions of an N-D array split over GPUs along one axis (sharded.hpp for the set-up:
// one rank per GPU, a communicator the caller made). Rank r holds a slab of the global array:
// the global shape, but with extent extents[r] along the sharded axis, contiguous or any
// strided view (axes.hpp). Every rank names the same layout, axes, op and root.
//
//   // a (4096 x N) matrix split by columns over the ranks; the row sums:
//   warpfold::shard_layout cols{1, {n0, n1}};                // rank 0 has n0 columns, rank 1 n1
//   warpfold::sum_axes_sharded(d_slab, {4096, my_n}, {1}, cols, d_out, 4096, comm, stream);
//   // the column sums instead, the whole (n0 + n1) on every rank:
//   warpfold::sum_axes_sharded(d_slab, {4096, my_n}, {0}, cols, d_out, n0 + n1, comm, stream);
//
// What the output is (reduced_shape_sharded gives its shape):
// - the sharded axis is reduced: the output of the global array, whose shape every rank shares.
//   Each rank reduces its slab into its output, then the ranks combine element by element:
//   NCCL's all-reduce in place for sums, products and integer min/max (ncclReduce to a root);
//   otherwise every rank's output is gathered and combined in rank order by a kernel (argmin
//   and argmax indices then count in the global array's reduced axes).
// - the sharded axis is kept: the global output, row-major over the kept axes with the sharded
//   one's extent the sum of the ranks'. Each rank reduces its slab, and the slabs of output
//   are gathered into place (broadcasts from every rank; sends to the root when one is named).
//   Where the sharded axis is the first kept axis, every slab is already in its final place
//   and nothing is copied after the exchange.
// With a root, only the root's output is the global one; another rank's output holds its own
// slab's output (where the axis is kept: at the slab's place if the sharded axis is the first
// kept one, else at the start).
//
// The asynchronous form enqueues everything on `stream` (capturable in a CUDA graph); the
// blocking one returns the output on the host.
//
// Errors (warpfold::invalid_argument, before anything is enqueued): those of reduce_axes on
// the slab and the output (whose capacity must hold the global output), those of
// reduce_sharded on the communicator and the root, a layout axis out of range, a layout that
// does not list one extent per rank, a negative extent, and a slab whose extent along the
// sharded axis is not the layout's for this rank. Ranks whose layouts, axes or ops differ
// cannot be told apart before the exchange: as with any NCCL collective, the call is then
// undefined.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/sharded.hpp"

namespace warpfold {

// How the global array is split: along `axis` (negative counts from the end), rank r's slab
// having extents[r] of it, in rank order.
struct shard_layout {
  int axis = 0;
  std::vector<std::int64_t> extents;
};

// The output's shape on every rank, from this rank's slab shape (throws for a bad layout).
shape reduced_shape_sharded(const shape& local, const axes& reduce, const shard_layout& layout);

namespace detail {
// Defined in src/sharded/sharded_axes.cu for every op x type of reduce.hpp. `stream` is
// resolved; a null `view` means row-major.
template <typename Op, typename T>
void reduce_axes_sharded_into(const T* d_local, const shape& local, const strides* view, const axes& reduce,
                              const shard_layout& layout, axis_result_t<Op, T>* d_out, std::int64_t out_capacity,
                              ncclComm_t comm, cudaStream_t stream, int root);
}  // namespace detail

template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce_axes_sharded(const T* d_local, const shape& local, const axes& reduce, const shard_layout& layout,
                         axis_result_t<Op, T>* d_out, std::int64_t out_capacity, ncclComm_t comm, cudaStream_t stream,
                         int root = -1) {
  check_op_fits<Op, T>();
  detail::reduce_axes_sharded_into<Op, T>(d_local, local, nullptr, reduce, layout, d_out, out_capacity, comm,
                                          detail::callers_stream<PerThread>(stream), root);
}
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce_axes_sharded(const T* d_local, const shape& local, const strides& view, const axes& reduce,
                         const shard_layout& layout, axis_result_t<Op, T>* d_out, std::int64_t out_capacity,
                         ncclComm_t comm, cudaStream_t stream, int root = -1) {
  check_op_fits<Op, T>();
  detail::reduce_axes_sharded_into<Op, T>(d_local, local, &view, reduce, layout, d_out, out_capacity, comm,
                                          detail::callers_stream<PerThread>(stream), root);
}
// Blocking: the output on the host.
template <typename Op, typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
std::vector<axis_result_t<Op, T>> reduce_axes_sharded(const T* d_local, const shape& local, const axes& reduce,
                                                       const shard_layout& layout, ncclComm_t comm, int root = -1,
                                                       cudaStream_t stream = nullptr) {
  using R = axis_result_t<Op, T>;
  const std::int64_t count = reduced_shape_sharded(local, reduce, layout).elements();
  std::vector<R> out(static_cast<std::size_t>(count));
  const cudaStream_t s = detail::callers_stream<PerThread>(stream);
  R* d_out = nullptr;
  if (count > 0) WARPFOLD_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_out), count * sizeof(R), s));
  try {
    reduce_axes_sharded<Op, T, PerThread>(d_local, local, reduce, layout, d_out, count, comm, s, root);
    if (count > 0) WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(out.data(), d_out, count * sizeof(R), cudaMemcpyDeviceToHost, s));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(s));
  } catch (...) {
    (void)cudaStreamSynchronize(s);
    if (d_out != nullptr) (void)cudaFreeAsync(d_out, s);
    throw;
  }
  if (d_out != nullptr) WARPFOLD_CUDA_CHECK(cudaFreeAsync(d_out, s));
  return out;
}

// One name per op: sum_axes_sharded, ..., argmax_axes_sharded (contiguous slabs; views
// through reduce_axes_sharded).
#define WARPFOLD_DECLARE_SHARDED_AXES_OP(name)                                                                     \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                      \
  void name##_axes_sharded(const T* d_local, const shape& local, const axes& reduce, const shard_layout& layout,   \
                           axis_result_t<op::name, T>* d_out, std::int64_t out_capacity, ncclComm_t comm,          \
                           cudaStream_t stream, int root = -1) {                                                  \
    reduce_axes_sharded<op::name, T, PerThread>(d_local, local, reduce, layout, d_out, out_capacity, comm, stream, \
                                                root);                                                            \
  }                                                                                                               \
  template <typename T, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>                                      \
  std::vector<axis_result_t<op::name, T>> name##_axes_sharded(const T* d_local, const shape& local,               \
                                                              const axes& reduce, const shard_layout& layout,     \
                                                              ncclComm_t comm, int root = -1,                     \
                                                              cudaStream_t stream = nullptr) {                    \
    return reduce_axes_sharded<op::name, T, PerThread>(d_local, local, reduce, layout, comm, root, stream);       \
  }
WARPFOLD_DECLARE_SHARDED_AXES_OP(sum)
WARPFOLD_DECLARE_SHARDED_AXES_OP(prod)
WARPFOLD_DECLARE_SHARDED_AXES_OP(min)
WARPFOLD_DECLARE_SHARDED_AXES_OP(max)
WARPFOLD_DECLARE_SHARDED_AXES_OP(bit_and)
WARPFOLD_DECLARE_SHARDED_AXES_OP(bit_or)
WARPFOLD_DECLARE_SHARDED_AXES_OP(bit_xor)
WARPFOLD_DECLARE_SHARDED_AXES_OP(argmin)
WARPFOLD_DECLARE_SHARDED_AXES_OP(argmax)
#undef WARPFOLD_DECLARE_SHARDED_AXES_OP

}  // namespace warpfold
