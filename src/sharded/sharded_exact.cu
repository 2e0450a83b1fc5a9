// warpfold::sum_exact_sharded (sharded.hpp): each rank's exact superaccumulator, added up by
// one NCCL all-reduce of 64-bit integers, then rounded once.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>

#include "nccl_combine.hpp"
#include "warpfold/device/launcher.hpp"
#include "warpfold/sharded.hpp"
#include "warpfold/sum_modes/launch.cuh"
#include "warpfold/validate.hpp"
#include "warpfold/warpfold.cuh"

namespace warpfold {
namespace {

using namespace sharded;
constexpr const char* api = "warpfold::sum_exact_sharded";

template <typename T>
constexpr int digit_count = sum_modes::superaccumulator_format<T>::digits;
template <typename T>
constexpr int word_count = digit_count<T> + sum_modes::exact_flag_words;

// One warp: the ranks' summed digits (each digit now below ranks * 2^30, so no 64-bit word
// can overflow before 2^33 ranks) and the flags that any rank saw, rounded once.
template <typename T, typename Out>
__global__ void round_summed_digits(const sum_modes::exact_digit_words* words, Out* out) {
  constexpr int D = digit_count<T>;
  __shared__ long long digits[D];
  for (int i = threadIdx.x; i < D; i += blockDim.x) digits[i] = words[i].word;
  __syncwarp();
  unsigned flags = 0;
  for (int b = 0; b < sum_modes::exact_flag_words; ++b)
    if (words[D + b].word != 0) flags |= 1u << b;
  const Out value = sum_modes::warp_round_to_nearest<Out, sum_modes::superaccumulator_format<T>::lowest, D>(digits, flags);
  if (threadIdx.x == 0) *out = value;
}

template <typename T>
void enqueue_exact_sharded(const T* d_shard, std::int64_t n, float_sum_t<T>* d_out, ncclComm_t comm, cudaStream_t stream,
                           const shard_options& options, const comm_facts& f) {
  using words_t = sum_modes::exact_digit_words;
  words_t* words = nullptr;
  WARPFOLD_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&words), sizeof(words_t) * word_count<T>, stream));
  try {
    device::launcher l(device::current_device(), stream, nullptr);
    sum_modes::launch_exact<T, words_t>(d_shard, n, words, l);
    if (options.root < 0)
      check_nccl(ncclAllReduce(words, words, word_count<T>, ncclInt64, ncclSum, comm, stream), "ncclAllReduce", api);
    else
      check_nccl(ncclReduce(words, words, word_count<T>, ncclInt64, ncclSum, options.root, comm, stream), "ncclReduce", api);
    if (options.root < 0 || options.root == f.rank) {
      round_summed_digits<T, float_sum_t<T>><<<1, 32, 0, stream>>>(words, d_out);
      WARPFOLD_CHECK_LAUNCH();
    }
  } catch (...) {
    (void)cudaFreeAsync(words, stream);
    throw;
  }
  WARPFOLD_CUDA_CHECK(cudaFreeAsync(words, stream));
}

}  // namespace

namespace detail {

template <typename T>
void sum_exact_sharded_into(const T* d_shard, std::int64_t n, float_sum_t<T>* d_out, ncclComm_t comm, cudaStream_t stream,
                            const shard_options& options) {
  require_non_negative(n, api);
  const comm_facts f = check_comm(comm, options.root, api);
  require_device_input(d_shard, n, api);
  if (options.root < 0 || options.root == f.rank) require_device_output(d_out, api);
  enqueue_exact_sharded<T>(d_shard, n, d_out, comm, stream, options, f);
}

template <typename T>
float_sum_t<T> sum_exact_sharded_to_host(const T* d_shard, std::int64_t n, ncclComm_t comm, cudaStream_t stream,
                                         const shard_options& options) {
  using R = float_sum_t<T>;
  require_non_negative(n, api);
  const comm_facts f = check_comm(comm, options.root, api);
  require_device_input(d_shard, n, api);
  return answer_on_host<R>(stream, [&](R* d_result) { enqueue_exact_sharded<T>(d_shard, n, d_result, comm, stream, options, f); });
}

#define WARPFOLD_INSTANTIATE_EXACT_SHARDED(T)                                                                          \
  template void sum_exact_sharded_into<T>(const T*, std::int64_t, float_sum_t<T>*, ncclComm_t, cudaStream_t,          \
                                          const shard_options&);                                                      \
  template float_sum_t<T> sum_exact_sharded_to_host<T>(const T*, std::int64_t, ncclComm_t, cudaStream_t, const shard_options&);
WARPFOLD_INSTANTIATE_EXACT_SHARDED(__half)
WARPFOLD_INSTANTIATE_EXACT_SHARDED(__nv_bfloat16)
WARPFOLD_INSTANTIATE_EXACT_SHARDED(float)
WARPFOLD_INSTANTIATE_EXACT_SHARDED(double)

}  // namespace detail
}  // namespace warpfold
