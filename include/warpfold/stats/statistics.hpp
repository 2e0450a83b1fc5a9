// The statistics that warpfold computes beyond the plain ops, each written once as
// "transform each element, combine with an op, finish once":
//   accumulator transform(x)          (or transform(x, y) for two arrays)
//   op                                 the combine, with an identity
//   result finish(accumulator)
// The same definitions serve a whole array (statistics.cuh), and many arrays in one launch
// (many.cuh), so a norm is the same norm everywhere.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "warpfold/accumulator.hpp"
#include "warpfold/blocks/fold_traits.hpp"
#include "warpfold/config.hpp"
#include "warpfold/ops.hpp"
#include "warpfold/stats/moments.hpp"
#include "warpfold/stats/scaled_squares.hpp"

namespace warpfold {

template <typename T>
inline constexpr bool is_float_element_v =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, float> || std::is_same_v<T, double>;

// What norms, dot products and means of T return: float for half, bfloat16 and float; double
// for double (the sum's accumulator).
template <typename T>
using float_result_t = accumulator_t<op::sum, T>;

// var_mean's and std_mean's result.
template <typename R>
struct mean_var {
  R mean;
  R var;  // the variance, or for std_mean the standard deviation
};

namespace detail {

template <typename T>
constexpr void check_counted_element() {
  check_op_fits<op::sum, T>();
}

template <typename T>
constexpr void check_float_statistic() {
  static_assert(is_float_element_v<T>,
                "warpfold: norms, dot, mean, var_mean, std_mean and any_nonfinite take __half, __nv_bfloat16, float or double");
}

// Statistics of two arrays (dot) say so with `static constexpr bool reads_pairs = true`.
template <typename Stat, typename = void>
struct takes_pairs : std::false_type {};
template <typename Stat>
struct takes_pairs<Stat, std::enable_if_t<Stat::reads_pairs>> : std::true_type {};

// The element step of a reduction kernel: element i (of one array, or the pair at i) becomes
// an accumulator; the index is not needed.
template <typename Stat>
struct statistic_element {
  Stat stat;
  template <typename T>
  WARPFOLD_HOST_DEVICE typename Stat::accumulator operator()(T x, std::int64_t) const { return stat.transform(x); }
  template <typename T>
  WARPFOLD_HOST_DEVICE typename Stat::accumulator operator()(T x, T y, std::int64_t) const {
    return stat.transform(x, y);
  }
};

}  // namespace detail

namespace stat {

template <typename T>
WARPFOLD_HOST_DEVICE float_result_t<T> widen(T x) {
  return static_cast<float_result_t<T>>(x);
}

// sum, min and max of floats as statistics, for many arrays in one launch (many.hpp); a
// whole array's are warpfold::sum, min and max.
template <typename T, typename Op>
struct plain {
  using accumulator = float_result_t<T>;
  using result = float_result_t<T>;
  using combine = Op;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return widen(x); }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a; }
};
template <typename T>
using sum = plain<T, op::sum>;
template <typename T>
using min = plain<T, op::min>;
template <typename T>
using max = plain<T, op::max>;

// sum |x|
template <typename T>
struct norm_l1 {
  using accumulator = float_result_t<T>;
  using result = float_result_t<T>;
  using combine = op::sum;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return fabs(widen(x)); }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a; }
};

// sqrt(sum x^2), with no overflow or underflow unless the norm itself is out of range:
// - float and bfloat16 squares are summed in double, whose range holds the square of every
//   float (and whose 53 bits hold it exactly);
// - half squares in float: the square of every half (2^-48 to 2^32) is a normal float, and so
//   is a sum of 2^64 of them. In double (a conversion and a double add per element), f16 at
//   2^28 ran at 97.6-97.8% of the read ceiling against the sum's 98.9% (H100, 2026-11-24);
// - doubles go through Blue's scaled sums.
template <typename T>
struct norm_l2 {
  static constexpr bool scaled = std::is_same_v<T, double>;
  static constexpr bool in_float = std::is_same_v<T, __half>;
  using accumulator = std::conditional_t<scaled, scaled_squares, std::conditional_t<in_float, float, double>>;
  using result = float_result_t<T>;
  using combine = std::conditional_t<scaled, op::add_scaled_squares, op::sum>;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const {
    if constexpr (scaled) {
      return square_into_range(x);
    } else if constexpr (in_float) {
      const float f = widen(x);
      return f * f;
    } else {
      const double d = static_cast<double>(widen(x));
      return d * d;
    }
  }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const {
    if constexpr (scaled) return finish_scaled_squares(a);
    else return static_cast<result>(sqrt(a));
  }
};

// max |x|; NaN if any element is NaN; 0 for no elements.
template <typename T>
struct norm_linf {
  using accumulator = float_result_t<T>;
  using result = float_result_t<T>;
  struct combine {
    template <typename A>
    WARPFOLD_HOST_DEVICE static A identity() { return A(0); }
    template <typename A>
    WARPFOLD_HOST_DEVICE A operator()(A a, A b) const { return op::max{}(a, b); }
  };
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return fabs(widen(x)); }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a; }
};

// sum x * y, in the sum's accumulator (products of halves are exact in float).
template <typename T>
struct dot {
  static constexpr bool reads_pairs = true;
  using accumulator = float_result_t<T>;
  using result = float_result_t<T>;
  using combine = op::sum;
  WARPFOLD_HOST_DEVICE accumulator transform(T x, T y) const { return widen(x) * widen(y); }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a; }
};

// The mean, as the sum divided by n (the sum's own accuracy, at the sum's speed); NaN for no
// elements, as in NumPy and torch. It counts its elements, as each array of a many-array call
// needs; a whole array's count is the call's n, so the whole-array form runs as
// mean_of_known_count (statistics.cuh: enqueue_statistic) and accumulates the sum alone.
template <typename T>
struct mean {
  using accumulator = moments<float_result_t<T>>;  // only count and mean are used: see transform
  using result = float_result_t<T>;
  struct combine {
    template <typename M>
    WARPFOLD_HOST_DEVICE static M identity() { return M{0, 0, 0}; }
    template <typename M>
    WARPFOLD_HOST_DEVICE M operator()(const M& a, const M& b) const { return M{a.count + b.count, a.mean + b.mean, 0}; }
  };
  // count and the running sum (held in `mean` until finish divides it).
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return {1, widen(x), 0}; }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const {
    return a.count == 0 ? std::numeric_limits<result>::quiet_NaN() : a.mean / static_cast<result>(a.count);
  }
};

// The mean of elements whose number is known before the launch, as of a whole array, or along
// axes, where every output reduces the same count: the sum alone is accumulated (4 bytes for
// float, against 16 for the count and running sum of `mean`), then divided once by the count,
// as `mean` divides. NaN for no elements (0 / 0).
template <typename T>
struct mean_of_known_count {
  using accumulator = float_result_t<T>;
  using result = float_result_t<T>;
  using combine = op::sum;
  std::int64_t count = 0;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return widen(x); }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a / static_cast<result>(count); }
};

// Mean and variance (or standard deviation) in one pass (stats/moments.hpp). The variance
// divides M2 by n - correction, as torch.var does: correction 1 (the default) is the unbiased
// sample variance, 0 the population variance. Where n - correction <= 0 the variance is NaN
// (inf when M2 > 0 and n - correction == 0 in torch; NaN here, as NumPy gives).
template <typename T>
struct var_mean {
  using accumulator = moments<float_result_t<T>>;
  using result = mean_var<float_result_t<T>>;
  using combine = op::combine_moments;
  double correction = 1;
  bool standard_deviation = false;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return {1, widen(x), 0}; }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const {
    using R = float_result_t<T>;
    const R nan = std::numeric_limits<R>::quiet_NaN();
    const double dof = double(a.count) - correction;
    R var = dof > 0 ? static_cast<R>(double(a.m2) / dof) : nan;
    if (standard_deviation) var = sqrt(var);
    return {a.count == 0 ? nan : a.mean, var};
  }
};

}  // namespace stat

// var_mean's element step gives each element's own moments {1, x, 0} (blocks/fold_traits.hpp).
template <typename T>
struct blocks::makes_unit_moments<detail::statistic_element<stat::var_mean<T>>> : std::true_type {};

// min and max's element step only widens; norm_linf's takes |x| for its NaN-keeping max.
template <typename T, typename Op>
struct blocks::only_widens<detail::statistic_element<stat::plain<T, Op>>> : std::true_type {};
template <typename T>
struct blocks::folds_largest_magnitude<detail::statistic_element<stat::norm_linf<T>>> : std::true_type {};

namespace stat {

// The number of elements that are not zero (NaN counts; -0.0 does not).
template <typename T>
struct count_nonzero {
  using accumulator = std::int64_t;
  using result = std::int64_t;
  using combine = op::sum;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return static_cast<float_or_int_t>(x) != float_or_int_t(0) ? 1 : 0; }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a; }
  using float_or_int_t = std::conditional_t<is_half_like_v<T>, float, T>;
};

// Whether any element is nonzero (false for no elements), whether all are (true for none).
template <typename T>
struct any {
  using accumulator = unsigned;
  using result = bool;
  using combine = op::bit_or;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return count_nonzero<T>{}.transform(x) != 0; }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a != 0; }
};
template <typename T>
struct all {
  using accumulator = unsigned;
  using result = bool;
  using combine = op::bit_and;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return count_nonzero<T>{}.transform(x) != 0; }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a != 0; }
};

// Whether any element is inf or NaN: the check behind dynamic loss scaling.
template <typename T>
struct any_nonfinite {
  using accumulator = unsigned;
  using result = bool;
  using combine = op::bit_or;
  WARPFOLD_HOST_DEVICE accumulator transform(T x) const { return isfinite(widen(x)) ? 0u : 1u; }
  WARPFOLD_HOST_DEVICE result finish(accumulator a) const { return a != 0; }
};

}  // namespace stat
}  // namespace warpfold
