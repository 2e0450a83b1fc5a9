// The host reference that every timed result is checked against, and the check itself.
// The reference is computed from a copy of the very buffer the GPU reduced, so a bug in
// the fill kernel cannot hide a bug in a reduction. Plain C++.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/dtype.hpp"

namespace warpfold::bench {

struct host_reference {
  dtype type = dtype::i32;
  std::int64_t n = 0;
  // Integer inputs: the exact sum, held modulo 2^64 (exact for int32 inputs, since
  // n * 2^31 < 2^63 for every n the bench accepts). Every integer result kind derives from it.
  std::uint64_t integer_sum = 0;
  // Float inputs: the sum and the sum of magnitudes in long double (64-bit mantissa on
  // x86-64), adding in blocks so that the reference's own error stays far below the tolerance.
  long double sum = 0;
  long double abs_sum = 0;
};

// Sums n elements of `type` stored at `data` (host memory, laid out as on the device).
host_reference compute_reference(dtype type, const void* data, std::int64_t n);

// The expected answer of an implementation whose result is of kind `kind`: integers exactly
// with that kind's wrap, floats as the long double sum.
result_value expected_result(result_kind kind, const host_reference& reference);

// Float results may differ from the exact sum by the rounding of the implementation's order
// of additions. Any order of n additions in precision eps errs by at most about
// eps * sum|x| * (n - 1); an order that adds in a tree of depth log2(n) at most
// eps * sum|x| * log2(n), and random rounding grows like sqrt(n). The bench allows
// eps * sum|x| * (2 log2(n) + 2 sqrt(n)): enough for any order a correct implementation uses,
// even a plain sequential loop (whose rounding error grows like sqrt(n), not n, in practice).
// The bench's floats are in [0, 1), so sum|x| is the sum itself and the check catches any
// error above 2 sqrt(n) eps of the answer: 0.05% at 2^16 floats, 0.02% at 2^20 (a dropped or
// doubled block of 256 elements at 2^16). Integers and doubles are much sharper.
double float_tolerance(result_kind kind, long double abs_sum, std::int64_t n);

// The same bound as a multiple of abs_sum, leaving out the denormal floor:
// float_tolerance = float_tolerance_scale * abs_sum + the smallest denormal. The axis check
// works it out once per case rather than once per output.
double float_tolerance_scale(result_kind kind, std::int64_t n);

struct check_outcome {
  bool ok = false;
  std::string detail;  // "expected ..., got ..." (and the tolerance for floats)
};
check_outcome check_result(result_kind kind, const host_reference& reference, const result_value& got);

// The check of a reduction with many float outputs (the axis and segment benches): output i
// must be finite and within tolerance(i) of expected[i]. The detail names how many outputs
// are wrong and the first one, or, when all are right, the worst error as a share of its
// tolerance.
check_outcome check_outputs(const std::vector<double>& expected, const std::vector<double>& got,
                            const std::function<double(std::size_t)>& tolerance);

}  // namespace warpfold::bench
