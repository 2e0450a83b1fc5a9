#include "bench/axis_reference.hpp"

#include <cmath>
#include <limits>

#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

// Row r of the output is row r of the input: one pass, contiguous.
void sum_rows(const matrix_shape& s, const float* data, axis_reference& r) {
  for (std::int64_t row = 0; row < s.rows; ++row) {
    const float* p = data + row * s.cols;
    double sum = 0, abs_sum = 0;
    for (std::int64_t c = 0; c < s.cols; ++c) {
      sum += p[c];
      abs_sum += std::fabs(p[c]);
    }
    r.sum[row] = sum;
    r.abs_sum[row] = abs_sum;
  }
}

// Output c gathers column c: added row by row into the running column sums, so that memory
// is read in order.
void sum_columns(const matrix_shape& s, const float* data, axis_reference& r) {
  for (std::int64_t row = 0; row < s.rows; ++row) {
    const float* p = data + row * s.cols;
    for (std::int64_t c = 0; c < s.cols; ++c) {
      r.sum[c] += p[c];
      r.abs_sum[c] += std::fabs(p[c]);
    }
  }
}

}  // namespace

axis_reference compute_axis_reference(const axis_case& c, const float* data) {
  if (c.dim != 0 && c.dim != 1) throw invalid_argument("compute_axis_reference: dim must be 0 or 1");
  if (c.shape.rows < 0 || c.shape.cols < 0) throw invalid_argument("compute_axis_reference: negative extent");
  axis_reference r;
  r.which = c;
  r.sum.assign(static_cast<std::size_t>(c.outputs()), 0.0);
  r.abs_sum.assign(static_cast<std::size_t>(c.outputs()), 0.0);
  if (c.dim == 1) sum_rows(c.shape, data, r);
  else sum_columns(c.shape, data, r);
  return r;
}

check_outcome check_axis_outputs(const axis_reference& reference, const std::vector<double>& got, result_kind kind) {
  // Every output reduces the same number of elements: one scale for all of them.
  const double scale = float_tolerance_scale(kind, reference.which.reduced());
  return check_outputs(reference.sum, got, [&](std::size_t i) {
    return scale * reference.abs_sum[i] + std::numeric_limits<double>::denorm_min();
  });
}

}  // namespace warpfold::bench
