// warpfold::reduce_sharded (sharded.hpp): the local reduction, the exchange of one record per
// rank through NCCL, and the combine in rank order.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "warpfold/detail/op_type_list.hpp"
#include "warpfold/error.hpp"
#include "warpfold/reduce.hpp"
#include "warpfold/sharded.hpp"
#include "warpfold/validate.hpp"
#include "nccl_combine.hpp"

namespace warpfold {
namespace {

using namespace sharded;
constexpr const char* api = "warpfold::reduce_sharded";

// What each rank contributes: its partial result, and what the others need to check and place
// it. The same size for every op and type, so that ranks that disagree on them still exchange
// the same number of bytes, and the disagreement is seen (by the tags) instead of hanging NCCL.
struct alignas(16) shard_record {
  unsigned char result[16];  // reduce_result_t<Op, T>; the largest is value_index<double>
  std::int64_t size;
  std::int64_t first_index;  // -1: after the previous rank's shard
  std::uint64_t tag;         // op, type and root: equal on every rank of a correct call
  std::uint64_t unused;
};
static_assert(sizeof(shard_record) == 48);

template <typename Op> constexpr std::uint64_t op_code = 0;
template <> constexpr std::uint64_t op_code<op::sum> = 1;
template <> constexpr std::uint64_t op_code<op::prod> = 2;
template <> constexpr std::uint64_t op_code<op::min> = 3;
template <> constexpr std::uint64_t op_code<op::max> = 4;
template <> constexpr std::uint64_t op_code<op::bit_and> = 5;
template <> constexpr std::uint64_t op_code<op::bit_or> = 6;
template <> constexpr std::uint64_t op_code<op::bit_xor> = 7;
template <> constexpr std::uint64_t op_code<op::argmin> = 8;
template <> constexpr std::uint64_t op_code<op::argmax> = 9;

template <typename T>
constexpr std::uint64_t type_code() {
  return sizeof(T) | (std::uint64_t{std::is_floating_point_v<T>} << 8) | (std::uint64_t{std::is_signed_v<T>} << 9) |
         (std::uint64_t{std::is_same_v<T, __half>} << 10) | (std::uint64_t{std::is_same_v<T, __nv_bfloat16>} << 11);
}

template <typename Op, typename T>
std::uint64_t tag_of(int root) {
  return (op_code<Op> << 48) | (type_code<T>() << 16) | static_cast<std::uint64_t>(root + 1);
}

// Copies the local result (written by the production kernel into the caller's output, which
// has been checked) into this rank's record, with what the others need to place it.
__global__ void describe_shard(shard_record* record, const unsigned char* result, int result_bytes, std::int64_t size,
                               std::int64_t first_index, std::uint64_t tag) {
  for (int i = 0; i < result_bytes; ++i) record->result[i] = result[i];
  record->size = size;
  record->first_index = first_index;
  record->tag = tag;
  record->unused = 0;
}

// One thread: the ranks' records in rank order. status (if not null) gets 0, or 1 when the
// ranks disagree (then nothing else is written).
template <typename Op, typename R>
__global__ void combine_ranks(const shard_record* records, int ranks, R* out, int* status) {
  const std::uint64_t tag = records[0].tag;
  for (int r = 1; r < ranks; ++r)
    if (records[r].tag != tag) {
      if (status != nullptr) *status = 1;
      return;
    }
  const Op op{};
  R acc = Op::template identity<R>();
  std::int64_t start = 0;
  for (int r = 0; r < ranks; ++r) {
    R partial = *reinterpret_cast<const R*>(records[r].result);
    const std::int64_t first = records[r].first_index >= 0 ? records[r].first_index : start;
    if constexpr (is_arg_op_v<Op>) {
      if (partial.index >= 0) partial.index += first;
    }
    acc = op(acc, partial);
    start = first + records[r].size;
  }
  if (out != nullptr) *out = acc;
  if (status != nullptr) *status = 0;
}

// Enqueues the whole call. The local result goes into d_out (on every rank), then:
// - NCCL's all-reduce (or reduce, to a root) of d_out in place, where it combines as warpfold
//   would: the combine is that one collective.
// - Otherwise the ranks' records are gathered and every rank combines them in rank order;
//   `status` (device, may be null) as combine_ranks writes it.
template <typename Op, typename T>
void enqueue_sharded(const T* d_shard, std::int64_t n, reduce_result_t<Op, T>* d_out, ncclComm_t comm, cudaStream_t stream,
                     const shard_options& options, const comm_facts& f, int* status) {
  using R = reduce_result_t<Op, T>;
  static_assert(sizeof(R) <= sizeof(shard_record::result));
  detail::reduce_into<Op, T>(d_shard, n, d_out, stream, nullptr);
  if constexpr (nccl_combines<Op, R>) {
    if (options.root < 0)
      check_nccl(ncclAllReduce(d_out, d_out, 1, nccl_type<R>(), nccl_op<Op>(), comm, stream), "ncclAllReduce", api);
    else
      check_nccl(ncclReduce(d_out, d_out, 1, nccl_type<R>(), nccl_op<Op>(), options.root, comm, stream), "ncclReduce", api);
    if (status != nullptr) WARPFOLD_CUDA_CHECK(cudaMemsetAsync(status, 0, sizeof(int), stream));
  } else {
    // Records: every rank's, then this rank's. Stream-ordered memory, so that the call can be
    // captured in a CUDA graph like the single-GPU calls.
    shard_record* records = nullptr;
    WARPFOLD_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&records), sizeof(shard_record) * (f.ranks + 1), stream));
    shard_record* own = records + f.ranks;
    try {
      describe_shard<<<1, 1, 0, stream>>>(own, reinterpret_cast<const unsigned char*>(d_out), static_cast<int>(sizeof(R)), n,
                                          options.first_index, tag_of<Op, T>(options.root));
      WARPFOLD_CHECK_LAUNCH();
      check_nccl(ncclAllGather(own, records, sizeof(shard_record), ncclUint8, comm, stream), "ncclAllGather", api);
      const bool writes = options.root < 0 || options.root == f.rank;
      combine_ranks<Op, R><<<1, 1, 0, stream>>>(records, f.ranks, writes ? d_out : nullptr, status);
      WARPFOLD_CHECK_LAUNCH();
    } catch (...) {
      (void)cudaFreeAsync(records, stream);
      throw;
    }
    WARPFOLD_CUDA_CHECK(cudaFreeAsync(records, stream));
  }
}

}  // namespace

namespace detail {

template <typename Op, typename T>
void reduce_sharded_into(const T* d_shard, std::int64_t n, reduce_result_t<Op, T>* d_out, ncclComm_t comm,
                         cudaStream_t stream, const shard_options& options) {
  require_non_negative(n, api);
  const comm_facts f = check_comm(comm, options.root, api);
  require_device_input(d_shard, n, api);
  require_device_output(d_out, api);
  enqueue_sharded<Op, T>(d_shard, n, d_out, comm, stream, options, f, nullptr);
}

template <typename Op, typename T>
reduce_result_t<Op, T> reduce_sharded_to_host(const T* d_shard, std::int64_t n, ncclComm_t comm, cudaStream_t stream,
                                              const shard_options& options) {
  using R = reduce_result_t<Op, T>;
  require_non_negative(n, api);
  const comm_facts f = check_comm(comm, options.root, api);
  require_device_input(d_shard, n, api);
  struct answer {
    R result;
    int status;
  };
  const answer got = answer_on_host<answer>(stream, [&](answer* d_answer) {
    enqueue_sharded<Op, T>(d_shard, n, &d_answer->result, comm, stream, options, f, &d_answer->status);
  });
  if (got.status != 0)
    throw invalid_argument("warpfold::reduce_sharded: the ranks called with different ops, element types or roots");
  return got.result;
}

}  // namespace detail

#define WARPFOLD_INSTANTIATE_SHARDED_OP(Op, T)                                                                            \
  template void detail::reduce_sharded_into<Op, T>(const T*, std::int64_t, reduce_result_t<Op, T>*, ncclComm_t,          \
                                                   cudaStream_t, const shard_options&);                                   \
  template reduce_result_t<Op, T> detail::reduce_sharded_to_host<Op, T>(const T*, std::int64_t, ncclComm_t, cudaStream_t, \
                                                                         const shard_options&);
WARPFOLD_FOR_EACH_OP_AND_TYPE(WARPFOLD_INSTANTIATE_SHARDED_OP)

}  // namespace warpfold
