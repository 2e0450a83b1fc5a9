// The host reference of an axis case and the check of a whole output against it. The
// reference is computed once per case, from a copy of the very buffer the GPU reduces, in
// double; each output is then checked with the bench's float tolerance for its reduced length
// (reference.hpp), so a row of 4 elements is held to a much tighter bound than a column of
// 2^22. Plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/axis_cases.hpp"
#include "bench/dtype.hpp"
#include "bench/reference.hpp"

namespace warpfold::bench {

struct axis_reference {
  axis_case which;
  std::vector<double> sum;      // one per output, in output order
  std::vector<double> abs_sum;  // the sum of magnitudes, which the tolerance scales with
};

// Sums c.shape.elements() floats at `data` (host memory, row-major) along c.dim, in double.
axis_reference compute_axis_reference(const axis_case& c, const float* data);

// Checks every output against the reference: each must be finite and within
// float_tolerance(kind, abs_sum, reduced length) of the sum. `kind` is the accumulator's
// (float32 for float sums). The detail names how many outputs are wrong and the first one, or,
// when all are right, the worst error as a share of its tolerance.
check_outcome check_axis_outputs(const axis_reference& reference, const std::vector<double>& got,
                                 result_kind kind = result_kind::float32);

}  // namespace warpfold::bench
