// Reductions of arrays in host memory, of any size (larger than a GPU's memory too):
//
//   float s = warpfold::sum_host(h_data, n);     // pageable or pinned memory, on the current GPU
//   warpfold::host_options two_gpus;
//   two_gpus.devices = {0, 1};
//   auto m = warpfold::argmax_host(h_data, n, two_gpus);  // split over two GPUs
//
// The array is cut into chunks (host_options::chunk_bytes). Each chunk is copied into a pinned
// staging buffer by a few host threads, sent to the GPU by the copy engine and reduced there by
// the production kernel (reduce.hpp) into one partial result; copying, sending and reducing of
// neighbouring chunks overlap. With several GPUs each takes a contiguous run of chunks. The
// partials are combined on the host in chunk order, so the result depends only on the values
// and the chunk size: not on the number of GPUs, nor on the threads (the GPU's grid for a chunk
// still fixes the order inside it, as for warpfold::sum).
//
// Why staging through pinned buffers with host threads (host/chunk_pipeline.hpp says how):
// - A plain cudaMemcpy from pageable memory goes through the driver's own small pinned buffers,
//   one host thread, one copy at a time: 9.4 GB/s on the two-H200 machine against 55.5 GB/s
//   from pinned memory (2026-11-22).
// - Pinning the caller's memory in place (cudaHostRegister) costs a page-table walk of the whole
//   array before the first byte moves, every call (`warpfold bench --host` times it next to
//   this path).
// - A kernel reading pinned host memory directly gets at best the same link bandwidth as the
//   copy engine, but still needs pinned memory, and its reads leave the GPU idle for the work
//   in between.
// Several host threads copying into a ring of pinned buffers reach the host's memory bandwidth,
// well above the link's, while the copy engine streams the previous chunk.
//
// Pinned input (cudaMallocHost, cudaHostAlloc, cudaHostRegister) is sent straight from the
// caller's memory, without staging. The input is never written.
//
// Ops and types: those of reduce.hpp. The result is what warpfold::sum (and the others) return:
// the accumulator, or (value, index) for argmin/argmax with the index into the whole array.
//
// Errors (warpfold::invalid_argument, nothing done): a negative n, a null pointer with n > 0, a
// device or managed pointer (call warpfold::sum on those), a device ordinal that does not exist
// or appears twice, a chunk size under 64 KiB or not a multiple of 16 bytes.
// The call blocks until the result is known; it synchronizes only its own streams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "warpfold/accumulator.hpp"
#include "warpfold/error.hpp"
#include "warpfold/ops.hpp"

namespace warpfold {

struct host_options {
  // GPUs to split the array over; empty: the current device.
  std::vector<int> devices;
  // Bytes per chunk, the unit of copying and of the staging buffers (each GPU keeps 4 pinned
  // and 4 device buffers of it); 0: 16 MiB.
  std::size_t chunk_bytes = 0;
  // Host threads per GPU that copy pageable memory into the staging buffers; 0: the host's
  // cores less three per GPU, shared among the GPUs (up to 16 each).
  int copy_threads = 0;
};

// The staging buffers (pinned and device memory, a ring per GPU) are kept for the next call;
// this frees those that no call is using. They are also freed at exit.
void release_host_staging();

namespace detail {
// Defined in src/host/host_arrays.cpp for every op x type of reduce.hpp.
template <typename Op, typename T>
reduce_result_t<Op, T> reduce_host_array(const T* h_in, std::int64_t n, const host_options& options);
}  // namespace detail

template <typename Op, typename T>
reduce_result_t<Op, T> reduce_host(const T* h_in, std::int64_t n, const host_options& options = {}) {
  check_op_fits<Op, T>();
  return detail::reduce_host_array<Op, T>(h_in, n, options);
}

#define WARPFOLD_DECLARE_HOST_OP(name)                                                                          \
  template <typename T>                                                                                         \
  reduce_result_t<op::name, T> name##_host(const T* h_in, std::int64_t n, const host_options& options = {}) { \
    return reduce_host<op::name, T>(h_in, n, options);                                                          \
  }
WARPFOLD_DECLARE_HOST_OP(sum)
WARPFOLD_DECLARE_HOST_OP(prod)
WARPFOLD_DECLARE_HOST_OP(min)
WARPFOLD_DECLARE_HOST_OP(max)
WARPFOLD_DECLARE_HOST_OP(bit_and)
WARPFOLD_DECLARE_HOST_OP(bit_or)
WARPFOLD_DECLARE_HOST_OP(bit_xor)
WARPFOLD_DECLARE_HOST_OP(argmin)
WARPFOLD_DECLARE_HOST_OP(argmax)
#undef WARPFOLD_DECLARE_HOST_OP

}  // namespace warpfold
