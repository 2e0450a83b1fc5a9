// The host reference of a segment case and the check of a whole output against it. Like the
// axis check (axis_reference.hpp), but every segment has its own length, so every output has
// its own tolerance: a segment of 2 elements is held to a far tighter bound than one of 2^22,
// and an empty one must be exactly 0. The tolerances are worked out once per reference, since
// a case may have tens of millions of segments and every timed answer is checked. Plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/reference.hpp"
#include "bench/segment_cases.hpp"

namespace warpfold::bench {

struct segment_reference {
  std::vector<double> sum;        // one per segment, in double
  std::vector<double> tolerance;  // float_tolerance for the segment's length and sum of magnitudes
};

// Sums the floats at `data` (host memory, at least as many as the offsets reach) over each
// segment, in double. Throws warpfold::invalid_argument for offsets of different counts.
segment_reference compute_segment_reference(const float* data, const segment_offsets& offsets);

// Every output (one per segment, widened to double) against the reference (check_outputs).
check_outcome check_segment_outputs(const segment_reference& reference, const std::vector<double>& got);

}  // namespace warpfold::bench
