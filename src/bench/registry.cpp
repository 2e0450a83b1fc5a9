// The list of everything the bench can time. Order matters: it is the order of the tables.
#include "bench/implementation.hpp"

#include <algorithm>
#include <utility>

#include "bench/axis_implementation.hpp"
#include "bench/segment_implementation.hpp"

namespace warpfold::bench {
namespace {

// The axis and segment benches' registries: the production API's entries (none when it is not
// built in), then CUB's, the order of their tables.
template <typename Entry>
std::vector<Entry> production_then_cub(void (*add_production_entries)(std::vector<Entry>&), Entry cub) {
  std::vector<Entry> entries;
  add_production_entries(entries);
  entries.push_back(std::move(cub));
  return entries;
}

}  // namespace

bool impl_entry::supports(dtype t) const { return std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end(); }

std::vector<impl_entry> make_registry(const registry_options& options) {
  std::vector<impl_entry> entries;
  for (ladder::finisher f : options.finishers) {
    for (const ladder::step_info& s : ladder::steps) {
      if (!ladder::supports_block_size(s.id, options.block_size)) continue;
      const ladder::step step = s.id;
      const int block_size = options.block_size;
      entries.push_back({std::string(s.name), "ladder", std::string(ladder::info(f).name), std::string(s.summary),
                         {dtype::i32, dtype::f32, dtype::f64},
                         [step, f, block_size](dtype t) { return make_ladder(step, f, block_size, t); }});
    }
  }
  entries.push_back({"cub", "baseline", "",
                     "cub::DeviceReduce::Sum, temp storage allocated once outside the timed region (f16/bf16: "
                     "DeviceReduce::Reduce with a float accumulator)",
                     {dtype::i32, dtype::f32, dtype::f64, dtype::f16, dtype::bf16}, make_cub});
  entries.push_back({"thrust", "baseline", "",
                     "thrust::reduce(thrust::cuda::par.on(stream), ...): returns to the host, allocates its temp "
                     "storage every call (f16/bf16: float init and plus<float>)",
                     {dtype::i32, dtype::f32, dtype::f64, dtype::f16, dtype::bf16}, make_thrust});
  add_production_entries(entries);
  return entries;
}

std::vector<axis_impl_entry> make_axis_registry() {
  return production_then_cub(add_axis_production_entries,
                             {"cub", "baseline",
                              "cub::DeviceSegmentedReduce::Sum, one segment per row (offsets from counting iterators, "
                              "temp storage allocated once outside the timed region); dim 1 only",
                              true, make_axis_cub});
}

std::vector<segment_impl_entry> make_segment_registry() {
  return production_then_cub(add_segment_production_entries,
                             {"cub", "baseline",
                              "cub::DeviceSegmentedReduce::Sum on the same int64 begin and end arrays (temp storage "
                              "allocated once outside the timed region)",
                              make_segments_cub});
}

}  // namespace warpfold::bench
