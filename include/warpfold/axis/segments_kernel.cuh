// Segments given by begin/end offsets in device memory (cub::DeviceSegmentedReduce's
// contract): one team per segment, a warp or a block.
//
// The host cannot see the lengths without a copy back, so it cannot pick a team from them the
// way the axis kernels do; it picks from the number of segments (axis/launch.cuh). A warp per
// segment wastes least on short segments, and its 32 lanes still issue 16-byte loads with four
// in flight. But it balances only when each warp takes many segments: with about one segment
// per resident warp the longest segments set the time (H100, 2^26 floats, lengths uniform in
// [0, 2L]: L = 8192, 8192 segments, 2411 GB/s against torch's 2672), and with fewer the
// memory system starves (L = 65536, 1024 segments: 55% of the read ceiling). A block per
// segment gives each segment eight warps and leaves the balancing to the block scheduler. (Fixed-size segments are a [segments, size] axis reduction
// instead, which picks its team from the size.)
#pragma once

#include <cstdint>

#include "warpfold/blocks/block_reduce.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/thread_reduce.cuh"
#include "warpfold/blocks/warp_reduce.cuh"

namespace warpfold::axis {

inline constexpr int segments_block = 256;

template <typename T, typename Acc, typename Op, typename ToAcc>
__global__ void __launch_bounds__(segments_block)
    segments_kernel(const T* in, const std::int64_t* begins, const std::int64_t* ends, std::int64_t segments, Acc* out,
                    Op op, ToAcc to_acc) {
  blocks::wait_for_prior_kernels();
  const int lane = threadIdx.x % blocks::warp_size;
  const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / blocks::warp_size;
  const std::int64_t warps = std::int64_t(gridDim.x) * blockDim.x / blocks::warp_size;
  for (std::int64_t segment = warp; segment < segments; segment += warps) {
    const std::int64_t begin = begins[segment], end = ends[segment];
    const std::int64_t length = end > begin ? end - begin : 0;
    Acc acc = blocks::thread_reduce_vectorized<4, blocks::streaming_vector_load>(
        in + begin, length, lane, blocks::warp_size, op, op.template identity<Acc>(), to_acc);
    acc = blocks::warp_reduce(acc, op);
    if (lane == 0) out[segment] = acc;
  }
}

template <typename T, typename Acc, typename Op, typename ToAcc>
__global__ void __launch_bounds__(segments_block)
    segments_by_block_kernel(const T* in, const std::int64_t* begins, const std::int64_t* ends, std::int64_t segments,
                             Acc* out, Op op, ToAcc to_acc) {
  blocks::wait_for_prior_kernels();
  for (std::int64_t segment = blockIdx.x; segment < segments; segment += gridDim.x) {
    const std::int64_t begin = begins[segment], end = ends[segment];
    const std::int64_t length = end > begin ? end - begin : 0;
    Acc acc = blocks::thread_reduce_vectorized<4, blocks::streaming_vector_load>(
        in + begin, length, threadIdx.x, blockDim.x, op, op.template identity<Acc>(), to_acc);
    acc = blocks::block_reduce(acc, op);
    if (threadIdx.x == 0) out[segment] = acc;
    __syncthreads();  // block_reduce's shared memory is reused by the next segment
  }
}

}  // namespace warpfold::axis
