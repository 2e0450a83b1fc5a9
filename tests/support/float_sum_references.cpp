#include "warpfold_test/float_sum_references.hpp"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "warpfold_test/types.hpp"

namespace warpfold_test {
namespace {

template <typename Out>
struct ieee_format;
template <>
struct ieee_format<float> {
  static constexpr int precision = 24;
  static constexpr mpfr_exp_t emin = -148, emax = 128;  // MPFR's exponents: x = 0.1b... * 2^e
};
template <>
struct ieee_format<double> {
  static constexpr int precision = 53;
  static constexpr mpfr_exp_t emin = -1073, emax = 1024;
};

// Rounds an exact value to Out as IEEE does: to nearest even, with Out's overflow and
// subnormals (rounded once: mpfr_check_range and mpfr_subnormalize take the first rounding's
// direction into account).
template <typename Out>
Out round_to(const mpfr_t exact) {
  if (mpfr_nan_p(exact)) return std::numeric_limits<Out>::quiet_NaN();
  mpfr_t r;
  mpfr_init2(r, ieee_format<Out>::precision);
  int ternary = mpfr_set(r, exact, MPFR_RNDN);
  const mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
  mpfr_set_emin(ieee_format<Out>::emin);
  mpfr_set_emax(ieee_format<Out>::emax);
  ternary = mpfr_check_range(r, ternary, MPFR_RNDN);
  mpfr_subnormalize(r, ternary, MPFR_RNDN);
  Out value;
  if constexpr (std::is_same_v<Out, float>) value = mpfr_get_flt(r, MPFR_RNDN);
  else value = mpfr_get_d(r, MPFR_RNDN);
  mpfr_set_emin(old_min);
  mpfr_set_emax(old_max);
  mpfr_clear(r);
  return value;
}

}  // namespace

template <typename T>
float_sum_result_t<T> exact_sum_reference(const T* x, std::int64_t n) {
  using Out = float_sum_result_t<T>;
  if (n == 0) return Out(0);
  // Enough bits for any sum of up to 2^40 values of the type, from its smallest subnormal up.
  const mpfr_prec_t bits = std::is_same_v<T, double> ? 2200 : 400;
  mpfr_t sum;
  mpfr_init2(sum, bits);
  mpfr_set_zero(sum, -1);  // -0: the sum of only -0 elements stays -0, and any other element clears the sign
  for (std::int64_t i = 0; i < n; ++i) mpfr_add_d(sum, sum, static_cast<double>(to_real(x[i])), MPFR_RNDN);
  const Out value = round_to<Out>(sum);
  mpfr_clear(sum);
  return value;
}

// The order of warpfold/sum_modes/reproducible_order.hpp, step by step.
template <typename T>
float_sum_result_t<T> reproducible_sum_reference(const T* x, std::int64_t n) {
  using A = float_sum_result_t<T>;
  constexpr std::int64_t lanes = 32, per_vector = 16 / sizeof(T), row = lanes * per_vector;
  const std::int64_t rows = (n + row - 1) / row;
  const std::int64_t chunks = std::min<std::int64_t>(16384, (rows + 3) / 4);

  auto element = [&](std::int64_t i) { return i < n ? static_cast<A>(to_real(x[i])) : A(0); };
  auto butterfly = [](std::vector<A> v) {  // 32 values
    for (std::size_t d = 16; d > 0; d /= 2) {
      std::vector<A> next(v.size());
      for (std::size_t l = 0; l < v.size(); ++l) next[l] = v[l] + v[l ^ d];
      v = next;
    }
    return v[0];
  };

  std::vector<A> chunk_sums(static_cast<std::size_t>(chunks));
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::vector<A> lane_values(lanes);
    for (std::int64_t l = 0; l < lanes; ++l) {
      A acc[4] = {A(0), A(0), A(0), A(0)};
      for (std::int64_t k = 0; c + k * chunks < rows; ++k)  // the chunk's k-th row: row c + k m
        for (std::int64_t j = 0; j < per_vector; ++j)
          acc[k % 4] = acc[k % 4] + element((c + k * chunks) * row + l * per_vector + j);
      lane_values[static_cast<std::size_t>(l)] = ((acc[0] + acc[1]) + acc[2]) + acc[3];
    }
    chunk_sums[static_cast<std::size_t>(c)] = butterfly(lane_values);
  }
  const std::int64_t groups = (chunks + 31) / 32;
  std::vector<A> group_sums(static_cast<std::size_t>(groups));
  for (std::int64_t g = 0; g < groups; ++g) {
    std::vector<A> members(32, A(0));
    for (std::int64_t w = 0; w < 32 && g * 32 + w < chunks; ++w) members[static_cast<std::size_t>(w)] = chunk_sums[static_cast<std::size_t>(g * 32 + w)];
    group_sums[static_cast<std::size_t>(g)] = butterfly(members);
  }
  std::vector<A> combine(1024, A(0));
  for (std::int64_t i = 0; i < groups; ++i) combine[static_cast<std::size_t>(i % 1024)] += group_sums[static_cast<std::size_t>(i)];
  std::vector<A> warp_values(32);
  for (std::size_t w = 0; w < 32; ++w) warp_values[w] = butterfly(std::vector<A>(combine.begin() + w * 32, combine.begin() + w * 32 + 32));
  return butterfly(warp_values);
}

#define WARPFOLD_TEST_FLOAT_SUMS(T)                                                        \
  template float_sum_result_t<T> exact_sum_reference<T>(const T*, std::int64_t);        \
  template float_sum_result_t<T> reproducible_sum_reference<T>(const T*, std::int64_t);
WARPFOLD_TEST_FLOAT_SUMS(__half)
WARPFOLD_TEST_FLOAT_SUMS(__nv_bfloat16)
WARPFOLD_TEST_FLOAT_SUMS(float)
WARPFOLD_TEST_FLOAT_SUMS(double)

}  // namespace warpfold_test
