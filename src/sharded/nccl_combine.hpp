// What the sharded reductions (sharded.cu, sharded_axes.cu) share: which combines NCCL's own
// collectives do as warpfold would, the NCCL names of types and ops, and the checks of a
// communicator.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "warpfold/error.hpp"
#include "warpfold/ops.hpp"

namespace warpfold::sharded {

// The combines that NCCL's own all-reduce does as warpfold would: sums and products (of float,
// double and 64-bit integer accumulators; integer sums wrap modulo 2^64 either way), and min
// and max of the integer types NCCL knows. Float min and max go through the gather instead, so
// that a NaN propagates exactly as in warpfold::min, whatever NCCL's own rule.
template <typename R> constexpr bool has_nccl_type = false;
template <> constexpr bool has_nccl_type<float> = true;
template <> constexpr bool has_nccl_type<double> = true;
template <> constexpr bool has_nccl_type<std::int8_t> = true;
template <> constexpr bool has_nccl_type<std::uint8_t> = true;
template <> constexpr bool has_nccl_type<std::int32_t> = true;
template <> constexpr bool has_nccl_type<std::uint32_t> = true;
template <> constexpr bool has_nccl_type<std::int64_t> = true;
template <> constexpr bool has_nccl_type<std::uint64_t> = true;

template <typename R>
inline ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<R, float>) return ncclFloat32;
  else if constexpr (std::is_same_v<R, double>) return ncclFloat64;
  else if constexpr (std::is_same_v<R, std::int8_t>) return ncclInt8;
  else if constexpr (std::is_same_v<R, std::uint8_t>) return ncclUint8;
  else if constexpr (std::is_same_v<R, std::int32_t>) return ncclInt32;
  else if constexpr (std::is_same_v<R, std::uint32_t>) return ncclUint32;
  else if constexpr (std::is_same_v<R, std::int64_t>) return ncclInt64;
  else return ncclUint64;
}

template <typename Op, typename R>
constexpr bool nccl_combines =
    has_nccl_type<R> && (std::is_same_v<Op, op::sum> || std::is_same_v<Op, op::prod> ||
                         ((std::is_same_v<Op, op::min> || std::is_same_v<Op, op::max>) && std::is_integral_v<R>));

template <typename Op>
inline ncclRedOp_t nccl_op() {
  if constexpr (std::is_same_v<Op, op::sum>) return ncclSum;
  else if constexpr (std::is_same_v<Op, op::prod>) return ncclProd;
  else if constexpr (std::is_same_v<Op, op::min>) return ncclMin;
  else return ncclMax;
}

inline void check_nccl(ncclResult_t result, const char* what, const char* api) {
  if (result != ncclSuccess)
    throw error(std::string(api) + ": " + what + " failed: " + ncclGetErrorString(result));
}

struct comm_facts {
  int ranks = 0;
  int rank = 0;
};

inline comm_facts check_comm(ncclComm_t comm, int root, const char* api) {
  if (comm == nullptr) throw invalid_argument(std::string(api) + ": the communicator is null");
  comm_facts f;
  int comm_device = -1, current = -1;
  check_nccl(ncclCommCount(comm, &f.ranks), "ncclCommCount", api);
  check_nccl(ncclCommUserRank(comm, &f.rank), "ncclCommUserRank", api);
  check_nccl(ncclCommCuDevice(comm, &comm_device), "ncclCommCuDevice", api);
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&current));
  if (comm_device != current)
    throw invalid_argument(std::string(api) + ": the communicator belongs to device " + std::to_string(comm_device) +
                           ", but the current device is " + std::to_string(current) + ": call cudaSetDevice(" +
                           std::to_string(comm_device) + ") first");
  if (root < -1 || root >= f.ranks)
    throw invalid_argument(std::string(api) + ": root " + std::to_string(root) + " is not a rank (-1, or 0 to " +
                           std::to_string(f.ranks - 1) + ")");
  return f;
}

// The blocking forms: `enqueue(d_answer)` fills an Answer in device memory on `stream` (stream-
// ordered memory: the enqueued NCCL calls cannot write to the calling thread's mapped host
// result), which comes back to the host once the stream is done. The Answer starts as zeros.
template <typename Answer, typename Enqueue>
Answer answer_on_host(cudaStream_t stream, Enqueue enqueue) {
  Answer* d_answer = nullptr;
  WARPFOLD_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_answer), sizeof(Answer), stream));
  Answer got{};
  try {
    WARPFOLD_CUDA_CHECK(cudaMemsetAsync(d_answer, 0, sizeof(Answer), stream));
    enqueue(d_answer);
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&got, d_answer, sizeof(Answer), cudaMemcpyDeviceToHost, stream));
    WARPFOLD_CUDA_CHECK(cudaFreeAsync(d_answer, stream));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  } catch (...) {
    (void)cudaStreamSynchronize(stream);
    (void)cudaFreeAsync(d_answer, stream);
    throw;
  }
  return got;
}

}  // namespace warpfold::sharded
