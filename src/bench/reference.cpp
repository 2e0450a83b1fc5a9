#include "bench/reference.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

// Pairs of (sum, sum of magnitudes) over blocks of 4096 elements, added into the totals:
// the long double error stays near 2^-64 * sqrt(blocks) * total, far below any tolerance.
template <typename Load>
void sum_floats(std::int64_t n, Load load, host_reference& r) {
  constexpr std::int64_t block = 4096;
  for (std::int64_t begin = 0; begin < n; begin += block) {
    const std::int64_t end = begin + block < n ? begin + block : n;
    long double s = 0, a = 0;
    for (std::int64_t i = begin; i < end; ++i) {
      const long double x = load(i);
      s += x;
      a += std::fabs(x);
    }
    r.sum += s;
    r.abs_sum += a;
  }
}

std::string format_real(long double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17Lg", x);
  return text;
}

// An output's value in a check's message: as many digits as a float has, and a few more.
std::string format_output(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", x);
  return text;
}

}  // namespace

host_reference compute_reference(dtype type, const void* data, std::int64_t n) {
  if (n < 0) throw invalid_argument("compute_reference: negative n");
  host_reference r;
  r.type = type;
  r.n = n;
  switch (type) {
    case dtype::i32: {
      const auto* p = static_cast<const std::int32_t*>(data);
      std::uint64_t sum = 0;
      for (std::int64_t i = 0; i < n; ++i) sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(p[i]));
      r.integer_sum = sum;
      r.sum = static_cast<long double>(static_cast<std::int64_t>(sum));
      break;
    }
    case dtype::f32: {
      const auto* p = static_cast<const float*>(data);
      sum_floats(n, [p](std::int64_t i) { return static_cast<long double>(p[i]); }, r);
      break;
    }
    case dtype::f64: {
      const auto* p = static_cast<const double*>(data);
      sum_floats(n, [p](std::int64_t i) { return static_cast<long double>(p[i]); }, r);
      break;
    }
    case dtype::f16: {
      const auto* p = static_cast<const std::uint16_t*>(data);
      sum_floats(n, [p](std::int64_t i) { return static_cast<long double>(half_bits_to_float(p[i])); }, r);
      break;
    }
    case dtype::bf16: {
      const auto* p = static_cast<const std::uint16_t*>(data);
      sum_floats(n, [p](std::int64_t i) { return static_cast<long double>(bfloat16_bits_to_float(p[i])); }, r);
      break;
    }
  }
  return r;
}

result_value expected_result(result_kind kind, const host_reference& reference) {
  result_value v;
  switch (kind) {
    case result_kind::int32_wrapping:
      v.integer = static_cast<std::int32_t>(static_cast<std::uint32_t>(reference.integer_sum));
      break;
    case result_kind::int64:
      v.integer = static_cast<std::int64_t>(reference.integer_sum);
      break;
    case result_kind::float32:
    case result_kind::float64:
      v.real = static_cast<double>(reference.sum);
      break;
  }
  return v;
}

double float_tolerance_scale(result_kind kind, std::int64_t n) {
  const double eps = kind == result_kind::float32 ? FLT_EPSILON : DBL_EPSILON;
  const double size = n > 1 ? static_cast<double>(n) : 1.0;
  const double growth = 2.0 * std::log2(size) + 2.0 * std::sqrt(size);
  // The extra eps covers converting an exact-but-unrepresentable sum to the result type.
  return eps * growth + eps;
}

double float_tolerance(result_kind kind, long double abs_sum, std::int64_t n) {
  return float_tolerance_scale(kind, n) * static_cast<double>(abs_sum) + std::numeric_limits<double>::denorm_min();
}

check_outcome check_result(result_kind kind, const host_reference& reference, const result_value& got) {
  const bool integer_input = reference.type == dtype::i32;
  const bool integer_result = kind == result_kind::int32_wrapping || kind == result_kind::int64;
  if (integer_input != integer_result)
    throw invalid_argument("check_result: result kind " + std::string(name(kind)) + " does not fit input " +
                           std::string(name(reference.type)));
  const result_value want = expected_result(kind, reference);
  check_outcome outcome;
  if (integer_result) {
    outcome.ok = want.integer == got.integer;
    outcome.detail = "expected " + std::to_string(want.integer) + ", got " + std::to_string(got.integer) + " (" +
                     std::string(name(kind)) + ")";
    return outcome;
  }
  const double tolerance = float_tolerance(kind, reference.abs_sum, reference.n);
  const long double error = std::fabs(static_cast<long double>(got.real) - reference.sum);
  outcome.ok = std::isfinite(got.real) && error <= tolerance;  // a NaN fails here too
  outcome.detail = "expected " + format_real(reference.sum) + ", got " + format_real(got.real) + ", error " +
                   format_real(error) + " > tolerance " + format_real(tolerance);
  if (outcome.ok) outcome.detail = "error " + format_real(error) + " <= tolerance " + format_real(tolerance);
  return outcome;
}

check_outcome check_outputs(const std::vector<double>& expected, const std::vector<double>& got,
                            const std::function<double(std::size_t)>& tolerance) {
  check_outcome outcome;
  if (got.size() != expected.size()) {
    outcome.detail = "expected " + std::to_string(expected.size()) + " outputs, got " + std::to_string(got.size());
    return outcome;
  }
  std::int64_t wrong = 0, first = -1;
  double worst_share = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double allowed = tolerance(i);
    const double error = std::fabs(got[i] - expected[i]);
    if (!std::isfinite(got[i]) || !(error <= allowed)) {  // a NaN fails here too
      if (wrong++ == 0) first = static_cast<std::int64_t>(i);
      continue;
    }
    worst_share = std::max(worst_share, error / allowed);
  }
  outcome.ok = wrong == 0;
  if (outcome.ok) {
    char share[32];
    std::snprintf(share, sizeof share, "%.3g", worst_share);
    outcome.detail = std::to_string(got.size()) + " outputs within tolerance (worst error " + share + " of it)";
    return outcome;
  }
  const std::size_t f = static_cast<std::size_t>(first);
  outcome.detail = std::to_string(wrong) + " of " + std::to_string(got.size()) + " outputs wrong; first, output " +
                   std::to_string(first) + ": expected " + format_output(expected[f]) + ", got " +
                   format_output(got[f]) + " (tolerance " + format_output(tolerance(f)) + ")";
  return outcome;
}

}  // namespace warpfold::bench
