// How a planned kernel gets launched: on the current device and the caller's stream, as a
// programmatic dependent launch (blocks/dependent_launch.cuh), with the scratch memory it asks
// for (device/scratch_pool.hpp, or the caller's). A dry run launches
// nothing and only remembers the scratch that the plan asked for, which is how the
// *_scratch_bytes functions answer without a second copy of the planning logic.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/device/device_facts.hpp"
#include "warpfold/device/scratch.hpp"
#include "warpfold/device/scratch_pool.hpp"

namespace warpfold::device {

class launcher {
 public:
  launcher(int device, cudaStream_t stream, const scratch_space* caller_scratch)
      : facts_(&facts_of(device)), stream_(stream), caller_scratch_(caller_scratch) {}
  static launcher dry_run(int device) {
    launcher l(device, nullptr, nullptr);
    l.dry_ = true;
    return l;
  }

  const device_facts& facts() const { return *facts_; }
  int device() const { return facts_->device; }
  // The scratch that the last launch asked for.
  const scratch_request& requested() const { return requested_; }

  // kernel<<<grid, block>>>(args..., scratch) as a dependent launch (in one cluster of
  // `cluster_blocks` when that is not 0), with scratch laid out for `request`. The kernel
  // takes a scratch_view as its last parameter.
  template <typename... Params, typename... Args>
  void launch_with_scratch(void (*kernel)(Params...), unsigned grid, int block, unsigned cluster_blocks,
                           const scratch_request& request, Args&&... args) {
    launch_shaped_with_scratch(kernel, grid, block, cluster_blocks, 0, request, std::forward<Args>(args)...);
  }
  // The same, with `dynamic_shared_bytes` for the kernel's extern __shared__ array (at most
  // 48 KB: blocks/dependent_launch.cuh).
  template <typename... Params, typename... Args>
  void launch_shaped_with_scratch(void (*kernel)(Params...), unsigned grid, int block, unsigned cluster_blocks,
                                  std::size_t dynamic_shared_bytes, const scratch_request& request, Args&&... args) {
    requested_ = request;
    if (dry_) return;
    scratch_lease scratch = scratch_for(request, device(), stream_, caller_scratch_);
    blocks::launch_dependent_shaped(kernel, grid, block, cluster_blocks, dynamic_shared_bytes, stream_,
                                    std::forward<Args>(args)..., scratch.view());
    scratch.launched();
  }

  // Several kernels in a row that share one block of scratch laid out for `request`:
  // enqueue(view) launches them on stream(), in order, and the last one reports the work
  // finished (device/scratch.hpp).
  template <typename Enqueue>
  void with_scratch(const scratch_request& request, Enqueue enqueue) {
    requested_ = request;
    if (dry_) return;
    scratch_lease scratch = scratch_for(request, device(), stream_, caller_scratch_);
    enqueue(scratch.view());
    scratch.launched();
  }
  cudaStream_t stream() const { return stream_; }

  // A kernel that needs no scratch.
  template <typename... Params, typename... Args>
  void launch(void (*kernel)(Params...), unsigned grid, int block, Args&&... args) {
    requested_ = {};
    if (dry_) return;
    blocks::launch_dependent(kernel, grid, block, stream_, std::forward<Args>(args)...);
  }

 private:
  const device_facts* facts_;
  cudaStream_t stream_;
  const scratch_space* caller_scratch_;
  bool dry_ = false;
  scratch_request requested_{};
};

}  // namespace warpfold::device
