// An independent CPU reference for reducing a row-major array over a set of axes, for every
// op of the axis API. It shares no code with the library's planner (axis/plan.hpp) or its
// ops: strides and multi-indices are counted here with plain odometers, integer sums and
// products wrap in uint64 and are truncated to the accumulator (the definition of "wraps
// modulo 2^bits"), float sums are compensated long double sums, and the NaN rules are
// spelled out from the documentation in ops.hpp (NaN propagates through min and max; for
// argmin/argmax a NaN counts as the extreme, so the first NaN wins; ties give the first index).
// Only the result types come from the library (axis_result_t): they are its declared API.
//
//   const axis_test::layout l = axis_test::make_layout({2, 3, 4}, {0, 2});
//   const auto expected = axis_test::expected_for<warpfold::op::sum>(host_values, l);
//   EXPECT_TRUE(axis_test::matches_all(expected, got, l));
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <warpfold/axes.hpp>

#include "warpfold_test/generate.hpp"
#include "warpfold_test/reference.hpp"
#include "warpfold_test/tolerance.hpp"
#include "warpfold_test/types.hpp"

namespace axis_test {

using warpfold_test::format_real;
using warpfold_test::is_integer_v;
using warpfold_test::to_real;

template <typename Op, typename T>
using result_t = warpfold::axis_result_t<Op, T>;

// "(2, 3, 4)", and "(2, 3, 4) over {0, -1}": for traces and failure messages.
inline std::string shape_text(const std::vector<std::int64_t>& extents) {
  std::ostringstream text;
  text << "(";
  for (std::size_t a = 0; a < extents.size(); ++a) text << (a ? ", " : "") << extents[a];
  text << (extents.size() == 1 ? ",)" : ")");
  return text.str();
}
inline std::string describe(const std::vector<std::int64_t>& extents, const std::vector<int>& axes) {
  std::ostringstream text;
  text << shape_text(extents) << " over {";
  for (std::size_t i = 0; i < axes.size(); ++i) text << (i ? ", " : "") << axes[i];
  text << "}";
  return text.str();
}

// Which input elements each output reduces, in the documented orders: outputs row-major over
// the kept axes, and within an output the reduced elements row-major over the reduced axes
// (the order argmin/argmax indices count in). Element r of output o is at input offset
// output_base[o] + reduced_offset[r].
struct layout {
  std::vector<std::int64_t> extents;
  std::vector<bool> reduced;                 // per axis
  std::vector<std::int64_t> output_base;     // one per output
  std::vector<std::int64_t> reduced_offset;  // one per reduced element of an output
  std::int64_t elements = 1;                 // of the input
  std::string text;                          // describe(extents, axes)

  std::int64_t outputs() const { return static_cast<std::int64_t>(output_base.size()); }
  std::int64_t reduced_count() const { return static_cast<std::int64_t>(reduced_offset.size()); }
  // The multi-index of output o over the kept axes, as text: "(1, 7)".
  std::string output_index_text(std::int64_t o) const {
    std::vector<std::int64_t> index;
    for (int a = static_cast<int>(extents.size()) - 1; a >= 0; --a) {
      if (reduced[a]) continue;
      index.insert(index.begin(), o % extents[a]);
      o /= extents[a];
    }
    std::string text = "(";
    for (std::size_t i = 0; i < index.size(); ++i) text += (i ? ", " : "") + std::to_string(index[i]);
    return text + ")";
  }
};

// Axes may be negative; the caller passes only valid sets (this is the tests' own precondition,
// not the library's check, so a violation is a bug in the test and throws std::logic_error).
// `view_strides`: a strided view's element strides (none: row-major); `elements` is then the
// view's span, the input elements from its first to its last.
inline layout make_layout(const std::vector<std::int64_t>& extents, const std::vector<int>& axes,
                          const std::vector<std::int64_t>& view_strides = {}) {
  layout l;
  l.extents = extents;
  l.text = describe(extents, axes);
  const int rank = static_cast<int>(extents.size());
  l.reduced.assign(static_cast<std::size_t>(rank), false);
  for (int a : axes) {
    const int axis = a < 0 ? a + rank : a;
    if (axis < 0 || axis >= rank || l.reduced[axis]) throw std::logic_error("axis_test::make_layout: bad axes " + l.text);
    l.reduced[axis] = true;
  }
  std::vector<std::int64_t> stride(static_cast<std::size_t>(rank), 1);
  for (int a = rank - 2; a >= 0; --a) stride[a] = stride[a + 1] * extents[a + 1];
  for (std::int64_t e : extents) l.elements *= e;
  if (!view_strides.empty()) {
    if (static_cast<int>(view_strides.size()) != rank) throw std::logic_error("axis_test::make_layout: strides rank");
    stride = view_strides;
    std::int64_t last = 0;
    for (int a = 0; a < rank; ++a) last += (extents[a] - 1) * stride[a];
    l.elements = l.elements == 0 ? 0 : last + 1;
  }

  // Every multi-index over `list` (ascending axes) in row-major order; appends its offset.
  auto odometer = [&](const std::vector<int>& list, std::vector<std::int64_t>& offsets) {
    for (int a : list)
      if (extents[a] == 0) return;
    std::vector<std::int64_t> index(list.size(), 0);
    std::int64_t offset = 0;
    while (true) {
      offsets.push_back(offset);
      int i = static_cast<int>(list.size()) - 1;
      for (; i >= 0; --i) {
        offset += stride[list[i]];
        if (++index[i] < extents[list[i]]) break;
        offset -= index[i] * stride[list[i]];
        index[i] = 0;
      }
      if (i < 0) return;
    }
  };
  std::vector<int> kept_axes, reduced_axes;
  for (int a = 0; a < rank; ++a) (l.reduced[a] ? reduced_axes : kept_axes).push_back(a);
  odometer(kept_axes, l.output_base);
  odometer(reduced_axes, l.reduced_offset);
  return l;
}

// ---- what one output must be, per op ----

// Sums: integers exactly (wrapped to the accumulator), floats within sum_tolerance of the
// compensated sum of the finite elements; a NaN, or +inf and -inf together, make NaN, and an
// infinity of one sign makes that infinity.
template <typename Acc>
struct expected_total {
  warpfold_test::expected_sum<Acc> finite;
  int nans = 0, positive_infinities = 0, negative_infinities = 0;

  ::testing::AssertionResult matches(Acc got) const {
    if constexpr (!is_integer_v<Acc>) {
      const long double g = to_real(got);
      if (nans > 0 || (positive_infinities > 0 && negative_infinities > 0)) {
        if (std::isnan(g)) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "sum: got " << format_real(g) << ", expected NaN";
      }
      if (positive_infinities + negative_infinities > 0) {
        const long double inf = positive_infinities > 0 ? INFINITY : -INFINITY;
        if (g == inf) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "sum: got " << format_real(g) << ", expected " << format_real(inf);
      }
    }
    return finite.matches(got);
  }
};

// Products: integers exactly (each element converted to the accumulator, multiplied modulo
// 2^64, truncated); floats within eps * n * |p|, the proven first-order bound (n - 1) * eps/2
// * |p| with headroom (Higham, ch. 3), as the production tests use.
template <typename Acc>
struct expected_product {
  std::int64_t n = 0;
  Acc exact{};
  long double real = 1;

  ::testing::AssertionResult matches(Acc got) const {
    if constexpr (is_integer_v<Acc>) {
      if (got == exact) return ::testing::AssertionSuccess();
      return ::testing::AssertionFailure() << "product of " << n << " elements: got " << warpfold_test::format_value(got)
                                           << ", expected exactly " << warpfold_test::format_value(exact);
    } else {
      const long double tol = warpfold_test::epsilon<Acc>() * static_cast<long double>(n) * std::fabs(real);
      const long double g = to_real(got);
      if (std::fabs(g - real) <= tol) return ::testing::AssertionSuccess();
      return ::testing::AssertionFailure() << "product of " << n << " elements: got " << format_real(g) << ", expected "
                                           << format_real(real) << " +- " << format_real(tol);
    }
  }
};

// min, max and the bitwise ops: one exact value (every supported value converts to long double
// exactly), or NaN. -0.0 and +0.0 compare equal, as the ops document.
template <typename V>
struct expected_exact {
  long double value = 0;
  bool nan = false;
  const char* what = "";

  ::testing::AssertionResult matches(V got) const {
    const long double g = to_real(got);
    if (nan ? std::isnan(g) : g == value) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": got " << format_real(g) << ", expected "
                                         << (nan ? std::string("NaN") : format_real(value));
  }
};

// argmin/argmax: the index within the reduced axes, and its value (the identity, with index
// -1, when the reduced axes are empty).
template <typename V>
struct expected_arg {
  long double value = 0;
  bool nan = false;
  std::int64_t index = -1;
  const char* what = "";

  ::testing::AssertionResult matches(const warpfold::value_index<V>& got) const {
    const long double g = to_real(got.value);
    if (got.index == index && (nan ? std::isnan(g) : g == value)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": got index " << got.index << " value " << format_real(g)
                                         << ", expected index " << index << " value "
                                         << (nan ? std::string("NaN") : format_real(value));
  }
};

template <typename V>
long double min_identity() {
  if constexpr (is_integer_v<V>) return to_real(std::numeric_limits<V>::max());
  else return INFINITY;
}
template <typename V>
long double max_identity() {
  if constexpr (is_integer_v<V>) return to_real(std::numeric_limits<V>::lowest());
  else return -INFINITY;
}

template <typename Op>
inline constexpr bool is_bitwise_v = std::is_same_v<Op, warpfold::op::bit_and> ||
                                     std::is_same_v<Op, warpfold::op::bit_or> ||
                                     std::is_same_v<Op, warpfold::op::bit_xor>;

template <typename Op, typename T>
struct expectation {
  using R = result_t<Op, T>;
  using type = std::conditional_t<
      std::is_same_v<Op, warpfold::op::sum>, expected_total<R>,
      std::conditional_t<std::is_same_v<Op, warpfold::op::prod>, expected_product<R>,
                         std::conditional_t<warpfold::is_arg_op_v<Op>, expected_arg<warpfold::accumulator_t<warpfold::op::min, T>>,
                                            expected_exact<R>>>>;
};
template <typename Op, typename T>
using expectation_t = typename expectation<Op, T>::type;

// The expected value of one output: the elements x[base + offsets[r]], r in order.
template <typename Op, typename T>
expectation_t<Op, T> expected_output(const T* x, std::int64_t base, const std::vector<std::int64_t>& offsets) {
  using R = result_t<Op, T>;
  const std::int64_t n = static_cast<std::int64_t>(offsets.size());
  expectation_t<Op, T> e;
  if constexpr (std::is_same_v<Op, warpfold::op::sum>) {
    warpfold_test::real_sum real;
    std::uint64_t wrapped = 0;
    for (std::int64_t r = 0; r < n; ++r) {
      const T v = x[base + offsets[r]];
      if constexpr (is_integer_v<T>) {
        wrapped += static_cast<std::uint64_t>(static_cast<R>(v));
        real.add(to_real(v));
      } else {
        const long double y = to_real(v);
        if (std::isnan(y)) ++e.nans;
        else if (std::isinf(y)) ++(y > 0 ? e.positive_infinities : e.negative_infinities);
        else real.add(y);
      }
    }
    e.finite.n = n;
    if constexpr (is_integer_v<R>) e.finite.exact = static_cast<R>(static_cast<std::make_unsigned_t<R>>(wrapped));
    e.finite.real = real.value();
    e.finite.sum_abs = real.sum_abs;
  } else if constexpr (std::is_same_v<Op, warpfold::op::prod>) {
    e.n = n;
    std::uint64_t wrapped = 1;
    for (std::int64_t r = 0; r < n; ++r) {
      const T v = x[base + offsets[r]];
      if constexpr (is_integer_v<T>) wrapped *= static_cast<std::uint64_t>(static_cast<R>(v));
      e.real *= to_real(v);
    }
    if constexpr (is_integer_v<R>) e.exact = static_cast<R>(static_cast<std::make_unsigned_t<R>>(wrapped));
  } else if constexpr (std::is_same_v<Op, warpfold::op::min> || std::is_same_v<Op, warpfold::op::max>) {
    constexpr bool is_min = std::is_same_v<Op, warpfold::op::min>;
    e.what = is_min ? "min" : "max";
    e.value = is_min ? min_identity<R>() : max_identity<R>();
    for (std::int64_t r = 0; r < n; ++r) {
      const long double y = to_real(x[base + offsets[r]]);
      if (std::isnan(y)) e.nan = true;
      else if (is_min ? y < e.value : y > e.value) e.value = y;
    }
  } else if constexpr (is_bitwise_v<Op>) {
    T bits = std::is_same_v<Op, warpfold::op::bit_and> ? static_cast<T>(~T(0)) : T(0);
    for (std::int64_t r = 0; r < n; ++r) {
      const T v = x[base + offsets[r]];
      if constexpr (std::is_same_v<Op, warpfold::op::bit_and>) bits = static_cast<T>(bits & v);
      else if constexpr (std::is_same_v<Op, warpfold::op::bit_or>) bits = static_cast<T>(bits | v);
      else bits = static_cast<T>(bits ^ v);
    }
    e.what = std::is_same_v<Op, warpfold::op::bit_and> ? "bit_and" : std::is_same_v<Op, warpfold::op::bit_or> ? "bit_or" : "bit_xor";
    e.value = to_real(bits);
  } else {
    static_assert(warpfold::is_arg_op_v<Op>, "axis_test: no reference for this op");
    using V = warpfold::accumulator_t<warpfold::op::min, T>;
    constexpr bool is_min = std::is_same_v<Op, warpfold::op::argmin>;
    e.what = is_min ? "argmin" : "argmax";
    e.value = is_min ? min_identity<V>() : max_identity<V>();
    for (std::int64_t r = 0; r < n; ++r) {
      const long double y = to_real(x[base + offsets[r]]);
      if (std::isnan(y)) {  // the first NaN is the answer
        e.nan = true;
        e.index = r;
        break;
      }
      if (e.index < 0 || (is_min ? y < e.value : y > e.value)) e.value = y, e.index = r;
    }
  }
  return e;
}

// Every output's expectation, in output order. Outputs are independent, so large problems
// compute them on all cores (the result does not depend on the number of threads).
template <typename Op, typename T>
std::vector<expectation_t<Op, T>> expected_for(const T* x, const layout& l) {
  std::vector<expectation_t<Op, T>> expected(static_cast<std::size_t>(l.outputs()));
  const std::int64_t work = l.outputs() * std::max<std::int64_t>(l.reduced_count(), 1);
  const std::int64_t chunk = work < (std::int64_t{1} << 16) ? l.outputs() : std::max<std::int64_t>(1, l.outputs() / 256);
  warpfold_test::parallel_for_chunks(l.outputs(), std::max<std::int64_t>(chunk, 1),
                                     [&](std::int64_t, std::int64_t begin, std::int64_t end) {
                                       for (std::int64_t o = begin; o < end; ++o)
                                         expected[static_cast<std::size_t>(o)] =
                                             expected_output<Op, T>(x, l.output_base[o], l.reduced_offset);
                                     });
  return expected;
}

// All outputs at once: the count, then each value; names the first few that differ and
// counts the rest, so one broken kernel gives one readable failure, not a million.
template <typename E, typename R>
::testing::AssertionResult matches_all(const std::vector<E>& expected, const std::vector<R>& got, const layout& l) {
  if (got.size() != expected.size())
    return ::testing::AssertionFailure() << l.text << ": " << got.size() << " outputs, expected " << expected.size();
  std::int64_t wrong = 0;
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  for (std::size_t o = 0; o < expected.size(); ++o) {
    const ::testing::AssertionResult r = expected[o].matches(got[o]);
    if (r) continue;
    if (wrong < 5)
      failure << "\n  output " << o << " " << l.output_index_text(static_cast<std::int64_t>(o)) << ": " << r.message();
    ++wrong;
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  return failure << "\n  " << l.text << ": " << wrong << " of " << expected.size() << " outputs differ (each reduces "
                 << l.reduced_count() << " elements)";
}

}  // namespace axis_test
