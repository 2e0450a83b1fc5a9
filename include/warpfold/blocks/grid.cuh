// Grid layer: how many blocks to launch.
// Brent's argument: a reduction needs only about n / log n threads to stay work-efficient;
// beyond the number of blocks the GPU can hold at once, extra blocks only add partials to
// combine. So grid-stride kernels launch one full wave of resident blocks and loop.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "warpfold/error.hpp"

namespace warpfold::blocks {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Blocks of `kernel` that fit on the current device at once (one "wave").
template <typename Kernel>
int resident_blocks(Kernel kernel, int block_size, std::size_t dynamic_shared_bytes = 0) {
  int device = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
  int sm_count = 0;
  WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  int blocks_per_sm = 0;
  WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block_size,
                                                                    dynamic_shared_bytes));
  return std::max(1, sm_count * blocks_per_sm);
}

// Occupancy answers depend only on the kernel, the block shape and the device, and a query
// costs more than a launch's arithmetic: each is asked once, then remembered. `question`
// tells apart different questions about the same kernel and block size. Every call of a
// production kernel asks, so each thread keeps its last few answers where no lock is needed.
template <typename Ask>
int remembered_occupancy(const void* kernel, int block_size, int question, int device, Ask ask) {
  using key = std::tuple<const void*, int, int, int>;
  const key wanted = std::make_tuple(kernel, block_size, question, device);
  struct recent_answers {
    std::array<std::pair<key, int>, 8> entries{};
    int used = 0, next = 0;
  };
  thread_local recent_answers recent;
  for (int i = 0; i < recent.used; ++i)
    if (recent.entries[i].first == wanted) return recent.entries[i].second;

  static std::mutex guard;
  static std::map<key, int> known;
  int answer = 0;
  {
    std::lock_guard<std::mutex> lock(guard);
    auto found = known.find(wanted);
    if (found != known.end()) {
      answer = found->second;
    } else {
      answer = ask();
      known.emplace(wanted, answer);
    }
  }
  recent.entries[recent.next] = {wanted, answer};
  recent.next = (recent.next + 1) % int(recent.entries.size());
  recent.used = std::max(recent.used, recent.next == 0 ? int(recent.entries.size()) : recent.next);
  return answer;
}

// The same, per SM, for the device that the caller names (the current device).
template <typename Kernel>
int blocks_per_sm(Kernel kernel, int block_size, int device) {
  return remembered_occupancy(reinterpret_cast<const void*>(kernel), block_size, 0, device, [&] {
    int blocks = 0;
    WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_size, 0));
    return std::max(1, blocks);
  });
}

// Cluster sizes: up to 8 blocks on every GPU that has clusters (sm_90 and later); up to 16
// where the kernel opts in to non-portable sizes and the GPU allows them (H100 and H200 do).
constexpr int max_portable_cluster_blocks = 8;
constexpr int max_cluster_blocks = 16;

// The largest cluster of `kernel` blocks, at most `wanted`, that the current device can run
// (one cluster must fit on one GPC; a partitioned GPU may have too few SMs per GPC): tries
// `wanted` (opting the kernel in to non-portable sizes above 8), then 8. 0 before sm_90.
template <typename Kernel>
int largest_cluster(Kernel kernel, int block_size, int wanted, int device) {
  const void* function = reinterpret_cast<const void*>(kernel);
  return remembered_occupancy(function, block_size, wanted, device, [&] {
    int major = 0;
    WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (major < 9) return 0;
    for (int blocks : {wanted, std::min(wanted, max_portable_cluster_blocks)}) {
      if (blocks > max_portable_cluster_blocks && cudaFuncSetAttribute(function, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
        (void)cudaGetLastError();  // not the caller's error: just no large clusters here
        continue;
      }
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(static_cast<unsigned>(blocks));
      config.blockDim = dim3(static_cast<unsigned>(block_size));
      cudaLaunchAttribute cluster{};
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = static_cast<unsigned>(blocks);
      cluster.val.clusterDim.y = 1;
      cluster.val.clusterDim.z = 1;
      config.attrs = &cluster;
      config.numAttrs = 1;
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, function, &config) != cudaSuccess) {
        (void)cudaGetLastError();
        clusters = 0;
      }
      if (clusters > 0) return blocks;
    }
    return 0;
  });
}

}  // namespace warpfold::blocks
