// What `warpfold bench --segments` times: float sums of the segments of one case
// (segment_cases.hpp), into a device output of one float per segment, behind the axis bench's
// interface (every output fetched for the check; see axis_implementation.hpp). Every
// implementation reads the same two offset arrays in device memory, which the bench uploads
// once per case, outside any timing; an implementation allocates its output and scratch in
// prepare(), never inside a timed region.
//
// To add one: derive from float_outputs_implementation and add a segment_impl_entry for it
// in make_segment_registry (registry.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/axis_implementation.hpp"

namespace warpfold::bench {

// A case's offsets in device memory (not owned): segment i is [begin[i], end[i]).
struct device_segments {
  const std::int64_t* begin = nullptr;
  const std::int64_t* end = nullptr;
  std::int64_t count = 0;
};

struct segment_impl_entry {
  std::string name;     // "warpfold", "cub"
  std::string family;   // "production", "baseline", "sum-modes" (run only when named)
  std::string summary;  // one line for `warpfold list`
  std::function<std::unique_ptr<axis_implementation>(const device_segments&)> make;
};

// Every segment implementation, in the order of the table: the production API, then CUB.
// Building it touches no GPU.
std::vector<segment_impl_entry> make_segment_registry();

// cub::DeviceSegmentedReduce::Sum on the offset arrays (impl_cub_segmented.cu, CUB's one file
// for it).
std::unique_ptr<axis_implementation> make_segments_cub(const device_segments& segments);

// warpfold::reduce_segments<op::sum> (impl_axis_warpfold.cpp); adds nothing when the bench is
// built without the production API (WARPFOLD_BENCH_PRODUCTION off).
void add_segment_production_entries(std::vector<segment_impl_entry>& entries);

}  // namespace warpfold::bench
