// The ladder runner's implementation: picks the kernel for a step, sizes its grid, and wires
// it to a finisher. Include from a .cu file; src/ladder/ instantiates it for the CLI and tests.
#pragma once

#include <algorithm>
#include <string>
#include <utility>

#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/grid.cuh"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"
#include "warpfold/ladder/ladder.hpp"
#include "warpfold/ladder/step0_global_halving.cuh"
#include "warpfold/ladder/step1_interleaved_divergent.cuh"
#include "warpfold/ladder/step2_interleaved_bank_conflicts.cuh"
#include "warpfold/ladder/step3_sequential_addressing.cuh"
#include "warpfold/ladder/step4_first_add_during_load.cuh"
#include "warpfold/ladder/step5_unroll_last_warp.cuh"
#include "warpfold/ladder/step6_complete_unroll.cuh"
#include "warpfold/ladder/step7_multiple_elements_per_thread.cuh"
#include "warpfold/ladder/step8_warp_shuffle.cuh"
#include "warpfold/ladder/step9_vector_loads.cuh"
#include "warpfold/validate.hpp"

namespace warpfold::ladder {
namespace detail {

using blocks::ceil_div;

// Steps 6-9: the block size is a template parameter. Returns the grid size (= partials).
template <int BlockSize, typename T, typename Finish>
std::int64_t launch_fixed_block(step s, int& resident_blocks, const T* in, std::int64_t n, Finish finish,
                                cudaStream_t stream) {
  if (s == step::complete_unroll) {
    const std::int64_t grid = ceil_div(n, 2 * BlockSize);
    step6_complete_unroll<BlockSize><<<grid, BlockSize, 0, stream>>>(in, n, finish);
    return grid;
  }
  // Grid-stride steps: one wave of resident blocks, fewer when n is small.
  auto kernel = s == step::multiple_elements_per_thread ? step7_multiple_elements_per_thread<BlockSize, T, Finish>
              : s == step::warp_shuffle                 ? step8_warp_shuffle<BlockSize, T, Finish>
                                                        : step9_vector_loads<BlockSize, T, Finish>;
  if (resident_blocks == 0) resident_blocks = blocks::resident_blocks(kernel, BlockSize);
  const std::int64_t items_per_thread = s == step::vector_loads ? blocks::vector16<T>::size : 2;
  const std::int64_t grid = std::min<std::int64_t>(resident_blocks, ceil_div(n, BlockSize * items_per_thread));
  kernel<<<grid, BlockSize, 0, stream>>>(in, n, finish);
  return grid;
}

// Launches step `s` over in[0, n) and hands each block's sum to `finish`. Returns the grid
// size. Step 0 writes into `in`: the runner passes it only buffers that it owns.
template <typename T, typename Finish>
std::int64_t launch_step(step s, int block_size, int& resident_blocks, const T* in, std::int64_t n, Finish finish,
                         cudaStream_t stream) {
  const std::size_t shared_bytes = std::size_t(block_size) * sizeof(T);
  std::int64_t grid = 0;
  switch (s) {
    case step::global_halving:
      grid = ceil_div(n, 2 * std::int64_t(block_size));
      step0_global_halving<<<grid, block_size, 0, stream>>>(const_cast<T*>(in), n, finish);
      break;
    case step::interleaved_divergent:
      grid = ceil_div(n, block_size);
      step1_interleaved_divergent<<<grid, block_size, shared_bytes, stream>>>(in, n, finish);
      break;
    case step::interleaved_bank_conflicts:
      grid = ceil_div(n, block_size);
      step2_interleaved_bank_conflicts<<<grid, block_size, shared_bytes, stream>>>(in, n, finish);
      break;
    case step::sequential_addressing:
      grid = ceil_div(n, block_size);
      step3_sequential_addressing<<<grid, block_size, shared_bytes, stream>>>(in, n, finish);
      break;
    case step::first_add_during_load:
      grid = ceil_div(n, 2 * std::int64_t(block_size));
      step4_first_add_during_load<<<grid, block_size, shared_bytes, stream>>>(in, n, finish);
      break;
    case step::unroll_last_warp:
      grid = ceil_div(n, 2 * std::int64_t(block_size));
      step5_unroll_last_warp<<<grid, block_size, shared_bytes, stream>>>(in, n, finish);
      break;
    default:
      switch (block_size) {
        case 128: grid = launch_fixed_block<128>(s, resident_blocks, in, n, finish, stream); break;
        case 256: grid = launch_fixed_block<256>(s, resident_blocks, in, n, finish, stream); break;
        case 512: grid = launch_fixed_block<512>(s, resident_blocks, in, n, finish, stream); break;
        default: throw invalid_argument("unsupported block size");  // the constructor checked already
      }
  }
  WARPFOLD_CHECK_LAUNCH();
  return grid;
}

}  // namespace detail

template <typename T>
struct runner<T>::buffers {
  warpfold::detail::device_buffer<T> scratch;     // step 0's copy of the input
  warpfold::detail::device_buffer<T> partials[2];  // ping-pong for the relaunch finisher
  warpfold::detail::device_buffer<T> result;
  warpfold::detail::device_buffer<unsigned int> arrivals;
  warpfold::detail::pinned_buffer<T> host_partials;
  const T* device_result = nullptr;  // where the last run left its answer
};

template <typename T>
runner<T>::runner(step s, finisher f, int block_size) : step_(s), finisher_(f), block_size_(block_size) {
  if (!supports_block_size(s, block_size)) {
    std::string sizes;
    for (int b : supported_block_sizes(s)) sizes += (sizes.empty() ? "" : ", ") + std::to_string(b);
    throw invalid_argument("warpfold::ladder: step " + std::string(info(s).name) + " does not support block size " +
                           std::to_string(block_size) + " (supported: " + sizes + ")");
  }
  buffers_ = new buffers;
  try {
    buffers_->result.reserve(1);
    buffers_->arrivals.reserve(1);
    WARPFOLD_CUDA_CHECK(cudaMemset(buffers_->arrivals.get(), 0, sizeof(unsigned int)));
  } catch (...) {
    delete buffers_;
    throw;
  }
}

template <typename T>
runner<T>::~runner() {
  delete buffers_;
}

template <typename T>
void runner<T>::run(const T* d_in, std::int64_t n, cudaStream_t stream) {
  warpfold::detail::require_device_input(d_in, n, "warpfold::ladder::runner::run");
  buffers& b = *buffers_;
  const op::sum add;
  launches_ = 0;
  b.device_result = b.result.get();

  if (n == 0) {  // the sum of nothing is 0, whatever the finisher
    host_result_ = T(0);
    if (finisher_ != finisher::host)
      WARPFOLD_CUDA_CHECK(cudaMemsetAsync(b.result.get(), 0, sizeof(T), stream));
    return;
  }

  const T* level_in = d_in;
  if (step_ == step::global_halving) {
    b.scratch.reserve(n);
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(b.scratch.get(), d_in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    level_in = b.scratch.get();
  }
  // No step makes more blocks than ceil(n / block_size); reserve that for the first level.
  const std::int64_t max_partials = blocks::ceil_div(n, block_size_);
  T* partials = b.partials[0].reserve(max_partials);
  auto launch = [&](const T* in, std::int64_t count, auto finish) {
    ++launches_;
    return detail::launch_step(step_, block_size_, resident_blocks_, in, count, finish, stream);
  };

  switch (finisher_) {
    case finisher::host: {
      const std::int64_t grid = launch(level_in, n, blocks::store_partial<T>{partials});
      T* host = b.host_partials.reserve(grid);
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(host, partials, grid * sizeof(T), cudaMemcpyDeviceToHost, stream));
      WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
      T sum = T(0);
      for (std::int64_t i = 0; i < grid; ++i) sum = add(sum, host[i]);
      host_result_ = sum;
      break;
    }
    case finisher::relaunch: {
      std::int64_t count = launch(level_in, n, blocks::store_partial<T>{partials});
      T* spare = b.partials[1].reserve(blocks::ceil_div(count, block_size_));
      while (count > 1) {
        count = launch(partials, count, blocks::store_partial<T>{spare});
        std::swap(partials, spare);
      }
      b.device_result = partials;
      break;
    }
    case finisher::second_kernel: {
      const std::int64_t grid = launch(level_in, n, blocks::store_partial<T>{partials});
      ++launches_;
      blocks::reduce_partials_in_one_block<<<1, block_size_, 0, stream>>>(partials, grid, b.result.get(), add);
      WARPFOLD_CHECK_LAUNCH();
      break;
    }
    case finisher::atomic:
      WARPFOLD_CUDA_CHECK(cudaMemsetAsync(b.result.get(), 0, sizeof(T), stream));
      launch(level_in, n, blocks::atomic_add_to_result<T>{b.result.get()});
      break;
    case finisher::last_block:
      launch(level_in, n, blocks::last_block_finishes<T, op::sum>{partials, b.arrivals.get(), b.result.get(), add});
      break;
  }
}

template <typename T>
T runner<T>::result(cudaStream_t stream) {
  if (finisher_ == finisher::host) return host_result_;
  T value{};
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&value, buffers_->device_result, sizeof(T), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

}  // namespace warpfold::ladder
