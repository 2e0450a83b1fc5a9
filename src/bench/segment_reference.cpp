#include "bench/segment_reference.hpp"

#include <cmath>

#include "warpfold/error.hpp"

namespace warpfold::bench {

segment_reference compute_segment_reference(const float* data, const segment_offsets& offsets) {
  if (offsets.begin.size() != offsets.end.size())
    throw invalid_argument("compute_segment_reference: " + std::to_string(offsets.begin.size()) + " begin offsets but " +
                           std::to_string(offsets.end.size()) + " end offsets");
  segment_reference r;
  r.sum.resize(offsets.begin.size());
  r.tolerance.resize(offsets.begin.size());
  for (std::size_t s = 0; s < offsets.begin.size(); ++s) {
    double sum = 0, abs_sum = 0;
    for (std::int64_t i = offsets.begin[s]; i < offsets.end[s]; ++i) {
      sum += data[i];
      abs_sum += std::fabs(data[i]);
    }
    const std::int64_t length = offsets.end[s] > offsets.begin[s] ? offsets.end[s] - offsets.begin[s] : 0;
    r.sum[s] = sum;
    r.tolerance[s] = float_tolerance(result_kind::float32, abs_sum, length);
  }
  return r;
}

check_outcome check_segment_outputs(const segment_reference& reference, const std::vector<double>& got) {
  return check_outputs(reference.sum, got, [&](std::size_t s) { return reference.tolerance[s]; });
}

}  // namespace warpfold::bench
