// Definitions of many.hpp: checks, the plan and the reduction kernel (many/). Include
// from a .cu file; the project compiles every statistic x type once in src/stats/.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/grid.cuh"
#include "warpfold/device/launcher.hpp"
#include "warpfold/many.hpp"
#include "warpfold/many/layout.cuh"
#include "warpfold/many/many_kernel.cuh"
#include "warpfold/many/plan_kernel.cuh"
#include "warpfold/statistics.cuh"
#include "warpfold/validate.hpp"
#include "warpfold/warpfold.cuh"

namespace warpfold::detail {

// A host list is checked entry by entry. Asking the driver about every pointer would cost
// 0.06 us each, so a pointer inside the allocation that the previous check of the same side
// found is not asked about again (parameters of a model mostly share a few large allocations;
// a dot's x and y usually lie in two, so each side remembers its own).
template <typename T, typename Entry>
void require_device_arrays(const Entry* list, std::int64_t count, const char* api, int device) {
  address_range known_first, known_second;
  auto which = [](std::int64_t a) { return "array " + std::to_string(a) + " of the list"; };  // only for errors
  auto check = [&](const T* data, std::int64_t a, std::size_t bytes, address_range& known) {
    if (known.holds(data, bytes)) return;
    const pointer_facts facts = facts_of_pointer(data);
    if (!facts.managed && (!facts.device_memory || facts.device != device)) require_device_memory(data, which(a), api, device);
    known = allocation_of(data);
  };
  for (std::int64_t a = 0; a < count; ++a) {
    const Entry& entry = list[a];
    if (entry.size < 0)
      throw invalid_argument(std::string(api) + ": " + which(a) + " has a negative size, " + std::to_string(entry.size));
    if (entry.size == 0) continue;
    if (many::lacks_data(entry))
      throw invalid_argument(std::string(api) + ": " + which(a) + " is null but has " + std::to_string(entry.size) + " elements");
    const std::size_t bytes = static_cast<std::size_t>(entry.size) * sizeof(T);
    check(many::first_data(entry), a, bytes, known_first);
    if (const T* second = many::second_data(entry)) check(second, a, bytes, known_second);
  }
}

// Kernels that take more dynamic shared memory than a kernel gets unless it asks: a block's
// own plan of the longest list it plans (8 bytes an array, with the kernel's own) and the plan
// kernel's tile. The attribute belongs to the function in a device's context: set once per
// kernel and device, remembered as the occupancy answers are (blocks/grid.cuh).
template <typename Kernel>
void allow_dynamic_shared_memory(Kernel kernel, int block, std::size_t bytes, int device) {
  constexpr int shared_memory_question = -1;  // apart from the occupancy questions (0 and up)
  blocks::remembered_occupancy(reinterpret_cast<const void*>(kernel), block, shared_memory_question, device, [&] {
    WARPFOLD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    return 1;
  });
}

template <typename Stat, typename T>
void many_into(const Stat& stat, const many_entry_t<Stat, T>* d_list, const many_entry_t<Stat, T>* h_list, std::int64_t count,
               typename Stat::result* d_per_array, typename Stat::result* d_combined, std::int64_t* d_status,
               cudaStream_t stream, const scratch_space* scratch, const char* api) {
  using Acc = typename Stat::accumulator;
  const int device = device::current_device();
  require_non_negative(count, api);
  if (d_per_array == nullptr && d_combined == nullptr)
    throw invalid_argument(std::string(api) + ": both outputs (per array and combined) are null");
  if (d_per_array != nullptr && count > 0) require_device_memory(d_per_array, "the per-array output", api, device);
  if (d_combined != nullptr) require_device_memory(d_combined, "the combined output", api, device);
  if (d_status != nullptr) require_device_memory(d_status, "the status output", api, device);
  require_caller_scratch(scratch, api, device);
  if (h_list != nullptr) {
    device::require_not_capturing(stream, api);  // the copy of the list would be captured from host memory
    require_device_arrays<T>(h_list, count, api, device);
  } else if (count > 0) {
    if (d_list == nullptr) throw invalid_argument(std::string(api) + ": the list of arrays is null but count = " + std::to_string(count));
    require_device_memory(d_list, "the list of arrays", api, device);
  }

  device::launcher l(device, stream, scratch);
  using Entry = many_entry_t<Stat, T>;
  const bool plans_in_block = count <= many::block_plan_max_arrays;
  auto kernel = plans_in_block ? many::many_kernel<Stat, T, Entry, true> : many::many_kernel<Stat, T, Entry, false>;
  const std::int64_t grid = std::min<std::int64_t>(
      device::reduce_policy::max_grid,
      std::int64_t(l.facts().sm_count) * blocks::blocks_per_sm(kernel, many::many_block, device));
  const many::layout layout = many::layout_for(count, grid, sizeof(Acc), sizeof(Entry));
  const std::size_t plan_bytes = plans_in_block ? sizeof(std::int64_t) * static_cast<std::size_t>(count + 1) : 0;
  if (plans_in_block)
    allow_dynamic_shared_memory(kernel, many::many_block, sizeof(std::int64_t) * (many::block_plan_max_arrays + 1), device);
  else
    allow_dynamic_shared_memory(many::plan_kernel<Entry>, many::plan_block, many::plan_shared_bytes, device);
  l.with_scratch({1, count, layout.bytes}, [&](const device::scratch_view& view) {
    const Entry* list = d_list;
    if (h_list != nullptr && count > 0) {
      auto* copy = reinterpret_cast<Entry*>(view.partials + layout.list_offset);
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(copy, h_list, count * sizeof(Entry), cudaMemcpyHostToDevice, stream));
      list = copy;
    }
    if (!plans_in_block)
      blocks::launch_dependent_shaped(many::plan_kernel<Entry>, many::plan_cluster, many::plan_block, many::plan_cluster,
                                      many::plan_shared_bytes, stream, list, layout, view.partials, d_status);
    blocks::launch_dependent_shaped(kernel, static_cast<unsigned>(grid), many::many_block, 0u, plan_bytes, stream, list, layout,
                                    stat, d_per_array, d_combined, d_status, view);
  });
}

}  // namespace warpfold::detail

#define WARPFOLD_INSTANTIATE_MANY(Stat, T)                                                                               \
  template void warpfold::detail::many_into<Stat, T>(const Stat&, const warpfold::detail::many_entry_t<Stat, T>*,       \
                                                     const warpfold::detail::many_entry_t<Stat, T>*, std::int64_t,      \
                                                     typename Stat::result*, typename Stat::result*, std::int64_t*,     \
                                                     cudaStream_t, const warpfold::scratch_space*, const char*);

#define WARPFOLD_INSTANTIATE_FLOAT_MANY(T)                              \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::sum<T>, T)                 \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::min<T>, T)                 \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::max<T>, T)                 \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::norm_l1<T>, T)             \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::norm_l2<T>, T)             \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::norm_linf<T>, T)           \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::mean<T>, T)                \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::any_nonfinite<T>, T)       \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::var_mean<T>, T)            \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::dot<T>, T)                 \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::count_nonzero<T>, T)       \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::any<T>, T)                 \
  WARPFOLD_INSTANTIATE_MANY(warpfold::stat::all<T>, T)
