// The host reference of a random axis case (axis_random.hpp) and the check of a whole output
// against it. Computed once per input buffer from a host copy of the parent buffer the GPU
// reads, by walking the view's own extents and strides (nothing from the library's planner):
// integers exactly (int32 summed in int64), floats in double with the sum of magnitudes that
// the bench's float tolerance scales with (reference.hpp). Plain C++; uses every core.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/axis_random.hpp"
#include "bench/reference.hpp"

namespace warpfold::bench {

struct view_reference {
  std::vector<double> sum;          // one per output, row-major over the kept axes
  std::vector<double> abs_sum;
  std::vector<std::int64_t> exact;  // i32 cases: the exact int64 sums
};

// `parent` holds c.parent elements of c.type (f16 and bf16 as their 16-bit patterns).
view_reference compute_view_reference(const view_case& c, const void* parent);

// Every output must match: i32 sums exactly, float sums within the float32 tolerance for the
// reduced length. The detail names the first wrong output and how many are wrong.
check_outcome check_view_outputs(const view_case& c, const view_reference& reference, const std::vector<double>& got);

}  // namespace warpfold::bench
