// The host half of the axis API, which needs no GPU: warpfold::shape, reduced_shape(), and
// axis::make_plan(), the step from (shape, axes) to the few problem kinds the kernels know.
// Hand-worked plans for every kind (nothing, full, rows, columns), the merging of
// neighbouring axes and the dropping of extent-1 axes, every error with its message, and a
// brute-force check on random shapes: the plan's offsets must visit, for each output, exactly
// the input elements a naive multi-index loop visits, in the same reduced-axes row-major
// order (the order that argmin/argmax indices count in).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/axis/plan.hpp"
#include "warpfold/axis/transposed_tiles_plan.hpp"
#include "warpfold/error.hpp"
#include "warpfold_test/generate.hpp"

namespace {

using warpfold::axes;
using warpfold::shape;
using warpfold::axis::make_plan;
using warpfold::axis::plan;
using warpfold::axis::plan_kind;
using warpfold::axis::strided_dims;

using dims = std::vector<std::pair<std::int64_t, std::int64_t>>;  // (extent, stride), outermost first

dims to_dims(const strided_dims& d) {
  dims out;
  for (int i = 0; i < d.count; ++i) out.emplace_back(d.extent[i], d.stride[i]);
  return out;
}

const char* kind_name(plan_kind kind) {
  switch (kind) {
    case plan_kind::nothing: return "nothing";
    case plan_kind::full: return "full";
    case plan_kind::rows: return "rows";
    case plan_kind::columns: return "columns";
  }
  return "?";
}

std::string describe(const shape& in, const axes& reduce) {
  std::string text = in.to_string() + " over {";
  for (std::size_t i = 0; i < reduce.list().size(); ++i) text += (i ? ", " : "") + std::to_string(reduce.list()[i]);
  return text + "}";
}

plan plan_of(const shape& in, const axes& reduce) { return make_plan(in, reduce, "test"); }

// Expects `call` to throw warpfold::invalid_argument whose message contains every one of `words`.
template <typename Call>
void expect_invalid(Call call, const std::vector<std::string>& words) {
  try {
    call();
    ADD_FAILURE() << "expected warpfold::invalid_argument";
  } catch (const warpfold::invalid_argument& e) {
    const std::string message = e.what();
    for (const std::string& w : words)
      EXPECT_NE(message.find(w), std::string::npos) << "the message should contain '" << w << "': " << message;
  }
}

// ---- shape ----

TEST(AxisShape, RankExtentsElementsAndText) {
  const shape scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.elements(), 1) << "a scalar is one element";
  EXPECT_EQ(scalar.to_string(), "()");

  const shape vector{7};
  EXPECT_EQ(vector.rank(), 1);
  EXPECT_EQ(vector[0], 7);
  EXPECT_EQ(vector.to_string(), "(7,)") << "rank 1 prints as a Python tuple";

  const shape matrix{4096, 16};
  EXPECT_EQ(matrix.rank(), 2);
  EXPECT_EQ(matrix[0], 4096);
  EXPECT_EQ(matrix[1], 16);
  EXPECT_EQ(matrix.elements(), 4096 * 16);
  EXPECT_EQ(matrix.to_string(), "(4096, 16)");
  EXPECT_EQ(std::vector<std::int64_t>(matrix.begin(), matrix.end()), (std::vector<std::int64_t>{4096, 16}));

  EXPECT_EQ(shape({3, 0, 5}).elements(), 0);
  EXPECT_EQ(shape(std::vector<std::int64_t>{2, 3, 4}), (shape{2, 3, 4}));
  EXPECT_NE((shape{2, 3}), (shape{3, 2}));
  EXPECT_NE((shape{2, 3}), (shape{2, 3, 1})) << "a trailing 1 is a different rank";
  EXPECT_NE(shape{}, (shape{1}));
}

TEST(AxisShape, RankEightIsTheLimit) {
  const shape eight{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(eight.rank(), warpfold::max_rank);
  EXPECT_EQ(eight.elements(), 40320);
  EXPECT_EQ(shape(std::vector<std::int64_t>(8, 2)).rank(), 8);

  expect_invalid([] { shape nine{1, 2, 3, 4, 5, 6, 7, 8, 9}; }, {"warpfold::shape", "rank above 8"});
  expect_invalid([] { shape nine(std::vector<std::int64_t>(9, 1)); }, {"warpfold::shape", "rank above 8"});
  expect_invalid([] { shape many(std::vector<std::int64_t>(100, 2)); }, {"rank above 8"});
}

// ---- reduced_shape ----

TEST(AxisReducedShape, DropsOrKeepsTheReducedAxes) {
  const shape in{2, 3, 4, 5};
  EXPECT_EQ(warpfold::reduced_shape(in, {1}), (shape{2, 4, 5}));
  EXPECT_EQ(warpfold::reduced_shape(in, {1}, true), (shape{2, 1, 4, 5}));
  EXPECT_EQ(warpfold::reduced_shape(in, {3, 0}), (shape{3, 4})) << "axis order does not matter";
  EXPECT_EQ(warpfold::reduced_shape(in, {0, 3}, true), (shape{1, 3, 4, 1}));
  EXPECT_EQ(warpfold::reduced_shape(in, {}), in) << "no axes: nothing reduced";
  EXPECT_EQ(warpfold::reduced_shape(in, {}, true), in);
  EXPECT_EQ(warpfold::reduced_shape(in, {0, 1, 2, 3}), shape{}) << "every axis: a scalar";
  EXPECT_EQ(warpfold::reduced_shape(in, {0, 1, 2, 3}, true), (shape{1, 1, 1, 1}));
  EXPECT_EQ(warpfold::reduced_shape(in, {0, 1, 2, 3}).elements(), 1);
}

TEST(AxisReducedShape, NegativeAxesCountFromTheEnd) {
  const shape in{2, 3, 4, 5};
  EXPECT_EQ(warpfold::reduced_shape(in, {-1}), (shape{2, 3, 4}));
  EXPECT_EQ(warpfold::reduced_shape(in, {-4}), (shape{3, 4, 5}));
  EXPECT_EQ(warpfold::reduced_shape(in, {-1, -3}, true), (shape{2, 1, 4, 1}));
  EXPECT_EQ(warpfold::reduced_shape(in, {-2, 0}), warpfold::reduced_shape(in, {2, 0}));
}

TEST(AxisReducedShape, EmptyAndUnitExtents) {
  EXPECT_EQ(warpfold::reduced_shape({0, 5}, {1}), (shape{0}));
  EXPECT_EQ(warpfold::reduced_shape({0, 5}, {0}), (shape{5})) << "reducing an empty axis leaves identities";
  EXPECT_EQ(warpfold::reduced_shape({1, 1}, {0}), (shape{1}));
  EXPECT_EQ(warpfold::reduced_shape(shape{}, {}), shape{}) << "a scalar with no axes";
  EXPECT_EQ(warpfold::reduced_shape(shape{}, {}, true), shape{});
}

TEST(AxisReducedShape, RejectsWhatTheReductionsReject) {
  expect_invalid([] { warpfold::reduced_shape({3, 4}, {2}); }, {"warpfold::reduced_shape", "out of range"});
  expect_invalid([] { warpfold::reduced_shape({3, 4}, {0, -2}); }, {"warpfold::reduced_shape", "twice"});
  expect_invalid([] { warpfold::reduced_shape({3, -4}, {0}); }, {"warpfold::reduced_shape", "negative"});
  const std::int64_t big = std::int64_t{1} << 32;
  expect_invalid([&] { warpfold::reduced_shape({big, big}, {0}); }, {"warpfold::reduced_shape", "2^63 - 1"});
}

// ---- make_plan: one case per kind, worked out by hand ----

TEST(AxisPlan, NothingToWriteWhenAKeptExtentIsZero) {
  for (const auto& [in, reduce] : std::vector<std::pair<shape, axes>>{
           {{0, 5}, {1}}, {{5, 0}, {0}}, {{0}, {}}, {{2, 0, 3}, {0, 2}}, {{0, 0}, {}}, {{3, 0, 0}, {2}}}) {
    SCOPED_TRACE(describe(in, reduce));
    const plan p = plan_of(in, reduce);
    EXPECT_EQ(p.kind, plan_kind::nothing);
    EXPECT_EQ(p.outputs, 0);
  }
}

TEST(AxisPlan, EmptyReducedAxesGiveIdentityRows) {
  // Outputs exist but reduce no elements: each is the op's identity.
  for (const auto& [in, reduce, outputs] : std::vector<std::tuple<shape, axes, std::int64_t>>{
           {{3, 0}, {1}, 3}, {{0, 3}, {0}, 3}, {{3, 0, 4}, {1}, 12}, {{0}, {0}, 1}, {{2, 0, 5}, {0, 1}, 5}}) {
    SCOPED_TRACE(describe(in, reduce));
    const plan p = plan_of(in, reduce);
    EXPECT_EQ(p.kind, plan_kind::rows);
    EXPECT_EQ(p.outputs, outputs);
    EXPECT_EQ(p.reduced, 0);
    EXPECT_EQ(p.run_length * p.runs.size(), 0) << "no element may be read";
  }
}

TEST(AxisPlan, EveryNonUnitAxisReducedIsOneFullReduction) {
  for (const auto& [in, reduce, reduced] : std::vector<std::tuple<shape, axes, std::int64_t>>{
           {{7}, {0}, 7},
           {{3, 5}, {0, 1}, 15},
           {{3, 5}, {-1, -2}, 15},
           {{1, 5, 1}, {1}, 5},      // the kept axes have extent 1
           {{3, 1}, {0}, 3},
           {{3, 1, 5}, {0, 2}, 15},  // reduced axes around a unit axis merge
           {{2, 3, 4, 5, 6}, {0, 1, 2, 3, 4}, 720},
           {{1, 1}, {}, 1},          // nothing reduced, one output: a "reduction" of one element
           {{}, {}, 1}}) {           // a scalar
    SCOPED_TRACE(describe(in, reduce));
    const plan p = plan_of(in, reduce);
    EXPECT_EQ(p.kind, plan_kind::full);
    EXPECT_EQ(p.outputs, 1);
    EXPECT_EQ(p.reduced, reduced);
  }
}

TEST(AxisPlan, NoReducedAxisIsACopyAsColumnsOfOneRow) {
  const plan p = plan_of({3, 5}, {});
  EXPECT_EQ(p.kind, plan_kind::columns);
  EXPECT_EQ(p.outputs, 15);
  EXPECT_EQ(p.reduced, 1);
  EXPECT_EQ(p.columns, 15);
  EXPECT_EQ(p.inner_stride, 1);
  EXPECT_EQ(p.kept.count, 0);
  EXPECT_EQ(p.runs.count, 0);

  const plan unit = plan_of({3, 1, 5}, {1});  // only an extent-1 axis is reduced
  EXPECT_EQ(unit.kind, plan_kind::columns);
  EXPECT_EQ(unit.outputs, 15);
  EXPECT_EQ(unit.reduced, 1);
  EXPECT_EQ(unit.columns, 15);
  EXPECT_EQ(unit.runs.count, 0);

  // A sliced copy: the rows of 8 columns are 10 apart, so the kept axes stay two.
  const std::int64_t sliced[] = {10, 1};
  const plan slice = make_plan(shape{4, 8}, sliced, axes{}, true, "test");
  EXPECT_EQ(slice.kind, plan_kind::columns);
  EXPECT_EQ(slice.columns, 8);
  EXPECT_EQ(to_dims(slice.kept), (dims{{4, 10}}));

  // Only broadcast axes: nothing to read along, so runs of one element.
  const std::int64_t broadcast[] = {0, 0};
  const plan same = make_plan(shape{3, 5}, broadcast, axes{}, true, "test");
  EXPECT_EQ(same.kind, plan_kind::rows);
  EXPECT_EQ(same.run_length, 1);
  EXPECT_EQ(same.runs.count, 0);
}

TEST(AxisPlan, MatrixAlongTheLastAxisIsRows) {
  const plan p = plan_of({4096, 16}, {1});
  EXPECT_EQ(p.kind, plan_kind::rows);
  EXPECT_EQ(p.outputs, 4096);
  EXPECT_EQ(p.reduced, 16);
  EXPECT_EQ(p.run_length, 16);
  EXPECT_EQ(to_dims(p.kept), (dims{{4096, 16}}));
  EXPECT_EQ(p.runs.count, 0) << "one run per output";
}

TEST(AxisPlan, MatrixAlongTheFirstAxisIsColumns) {
  const plan p = plan_of({4096, 16}, {0});
  EXPECT_EQ(p.kind, plan_kind::columns);
  EXPECT_EQ(p.outputs, 16);
  EXPECT_EQ(p.reduced, 4096);
  EXPECT_EQ(p.columns, 16);
  EXPECT_EQ(p.kept.count, 0);
  EXPECT_EQ(to_dims(p.runs), (dims{{4096, 16}}));
}

TEST(AxisPlan, NeighbouringAxesOfOneKindMerge) {
  const plan inner = plan_of({2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(inner.kind, plan_kind::rows);
  EXPECT_EQ(inner.run_length, 20);
  EXPECT_EQ(to_dims(inner.kept), (dims{{6, 20}}));
  EXPECT_EQ(inner.runs.count, 0);

  const plan outer = plan_of({2, 3, 4, 5}, {0, 1});
  EXPECT_EQ(outer.kind, plan_kind::columns);
  EXPECT_EQ(outer.columns, 20);
  EXPECT_EQ(outer.kept.count, 0);
  EXPECT_EQ(to_dims(outer.runs), (dims{{6, 20}}));

  const plan middle = plan_of({2, 3, 4, 5}, {1, 2});
  EXPECT_EQ(middle.kind, plan_kind::columns);
  EXPECT_EQ(middle.columns, 5);
  EXPECT_EQ(to_dims(middle.kept), (dims{{2, 60}}));
  EXPECT_EQ(to_dims(middle.runs), (dims{{12, 5}}));
  EXPECT_EQ(middle.outputs, 10);
  EXPECT_EQ(middle.reduced, 12);
}

TEST(AxisPlan, AlternatingAxesKeepTheirStrides) {
  // (2, 3, 4, 5) has strides (60, 20, 5, 1).
  const plan odd = plan_of({2, 3, 4, 5}, {1, 3});
  EXPECT_EQ(odd.kind, plan_kind::rows);
  EXPECT_EQ(odd.outputs, 8);
  EXPECT_EQ(odd.reduced, 15);
  EXPECT_EQ(odd.run_length, 5);
  EXPECT_EQ(to_dims(odd.kept), (dims{{2, 60}, {4, 5}}));
  EXPECT_EQ(to_dims(odd.runs), (dims{{3, 20}}));

  const plan even = plan_of({2, 3, 4, 5}, {0, 2});
  EXPECT_EQ(even.kind, plan_kind::columns);
  EXPECT_EQ(even.outputs, 15);
  EXPECT_EQ(even.reduced, 8);
  EXPECT_EQ(even.columns, 5);
  EXPECT_EQ(to_dims(even.kept), (dims{{3, 20}}));
  EXPECT_EQ(to_dims(even.runs), (dims{{2, 60}, {4, 5}}));
}

TEST(AxisPlan, UnitExtentsAreDroppedWhereverTheyAre) {
  // Axes 0, 2 and 4 have extent 1: the plan is that of (3, 5) over {0}.
  const plan p = plan_of({1, 3, 1, 5, 1}, {1, 4});
  EXPECT_EQ(p.kind, plan_kind::columns);
  EXPECT_EQ(p.outputs, 5);
  EXPECT_EQ(p.reduced, 3);
  EXPECT_EQ(p.columns, 5);
  EXPECT_EQ(p.kept.count, 0);
  EXPECT_EQ(to_dims(p.runs), (dims{{3, 5}}));

  // A unit axis between a kept and a reduced one, reduced or kept, changes nothing.
  for (const axes& reduce : {axes{0}, axes{0, 1}}) {
    SCOPED_TRACE(describe({3, 1, 5}, reduce));
    const plan q = plan_of({3, 1, 5}, reduce);
    EXPECT_EQ(q.kind, plan_kind::columns);
    EXPECT_EQ(q.columns, 5);
    EXPECT_EQ(to_dims(q.runs), (dims{{3, 5}}));
  }
  // A unit axis between two kept ones: they still merge into one.
  const plan merged = plan_of({3, 1, 5, 7}, {3});
  EXPECT_EQ(merged.kind, plan_kind::rows);
  EXPECT_EQ(to_dims(merged.kept), (dims{{15, 7}}));
  EXPECT_EQ(merged.run_length, 7);
}

TEST(AxisPlan, RankEightAlternatingFillsFourDimensions) {
  // Strides of (2, 3, 2, 3, 2, 3, 2, 3): 648, 216, 108, 36, 18, 6, 3, 1.
  const shape in{2, 3, 2, 3, 2, 3, 2, 3};
  const plan rows = plan_of(in, {1, 3, 5, 7});
  EXPECT_EQ(rows.kind, plan_kind::rows);
  EXPECT_EQ(rows.run_length, 3);
  EXPECT_EQ(to_dims(rows.kept), (dims{{2, 648}, {2, 108}, {2, 18}, {2, 3}}));
  EXPECT_EQ(to_dims(rows.runs), (dims{{3, 216}, {3, 36}, {3, 6}}));
  EXPECT_EQ(rows.outputs, 16);
  EXPECT_EQ(rows.reduced, 81);

  const plan columns = plan_of(in, {0, 2, 4, 6});
  EXPECT_EQ(columns.kind, plan_kind::columns);
  EXPECT_EQ(columns.columns, 3);
  EXPECT_EQ(to_dims(columns.kept), (dims{{3, 216}, {3, 36}, {3, 6}}));
  EXPECT_EQ(to_dims(columns.runs), (dims{{2, 648}, {2, 108}, {2, 18}, {2, 3}}));
  EXPECT_EQ(columns.outputs, 81);
  EXPECT_EQ(columns.reduced, 16);
}

TEST(AxisPlan, NegativeAxesPlanLikeTheirPositiveSpelling) {
  const shape in{2, 3, 4, 5};
  for (const auto& [negative, positive] : std::vector<std::pair<axes, axes>>{
           {{-1}, {3}}, {{-4}, {0}}, {{-1, -3}, {3, 1}}, {{0, -2}, {0, 2}}, {{-4, -3, -2, -1}, {0, 1, 2, 3}}}) {
    SCOPED_TRACE(describe(in, negative));
    const plan a = plan_of(in, negative), b = plan_of(in, positive);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.outputs, b.outputs);
    EXPECT_EQ(a.reduced, b.reduced);
    EXPECT_EQ(to_dims(a.kept), to_dims(b.kept));
    EXPECT_EQ(to_dims(a.runs), to_dims(b.runs));
    EXPECT_EQ(a.run_length, b.run_length);
    EXPECT_EQ(a.columns, b.columns);
  }
}

TEST(AxisPlan, ExtentsNearTheInt64LimitAreAccepted) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const plan p = plan_of({max}, {0});
  EXPECT_EQ(p.kind, plan_kind::full);
  EXPECT_EQ(p.reduced, max);
  const plan q = plan_of({2, max / 2}, {1});
  EXPECT_EQ(q.kind, plan_kind::rows);
  EXPECT_EQ(q.outputs, 2);
  EXPECT_EQ(q.run_length, max / 2);
  EXPECT_EQ(q.kept.offset(1), max / 2);
}

TEST(AxisPlan, StridedDimsOffsetIsRowMajor) {
  strided_dims d;
  EXPECT_EQ(d.size(), 1);
  EXPECT_EQ(d.offset(0), 0);
  d.push(3, 100);
  d.push(4, 10);
  d.push(5, 1);
  EXPECT_EQ(d.size(), 60);
  EXPECT_EQ(d.offset(0), 0);
  EXPECT_EQ(d.offset(1), 1);
  EXPECT_EQ(d.offset(5), 10);
  EXPECT_EQ(d.offset(7), 12);
  EXPECT_EQ(d.offset(20), 100);
  EXPECT_EQ(d.offset(59), 234);
}

// ---- errors ----

TEST(AxisPlanErrors, AxisOutOfRangeNamesTheAxisTheRankAndTheValidRange) {
  expect_invalid([] { plan_of({3, 4}, {2}); },
                 {"test: ", "axis 2 is out of range for an array of rank 2", "valid: -2 to 1"});
  expect_invalid([] { plan_of({3, 4}, {-3}); }, {"axis -3 is out of range", "rank 2"});
  expect_invalid([] { plan_of({3, 4, 5}, {0, 7}); }, {"axis 7", "rank 3", "-3 to 2"});
  expect_invalid([] { plan_of(shape{}, {0}); }, {"axis 0 is out of range", "a scalar has no axes"});
  expect_invalid([] { plan_of(shape{}, {-1}); }, {"axis -1", "a scalar has no axes"});
  expect_invalid([] { plan_of({5}, {std::numeric_limits<int>::min()}); }, {"out of range"});
  expect_invalid([] { plan_of({5}, {std::numeric_limits<int>::max()}); }, {"out of range"});
}

TEST(AxisPlanErrors, DuplicateAxisNamesTheAxis) {
  expect_invalid([] { plan_of({3, 4}, {1, 1}); }, {"test: ", "axis 1 is listed twice"});
  expect_invalid([] { plan_of({3, 4, 5}, {0, 2, 0}); }, {"axis 0 is listed twice"});
  // -1 and rank - 1 are one axis, in either order.
  expect_invalid([] { plan_of({3, 4, 5}, {-1, 2}); }, {"axis 2", "twice"});
  expect_invalid([] { plan_of({3, 4, 5}, {2, -1}); }, {"axis 2", "twice"});
  expect_invalid([] { plan_of({3, 4, 5}, {-3, 0}); }, {"axis 0", "twice"});
  expect_invalid([] { plan_of({3, 4, 5}, {-2, -2}); }, {"axis 1", "twice"});
}

TEST(AxisPlanErrors, NegativeExtentNamesTheExtentTheAxisAndTheShape) {
  expect_invalid([] { plan_of({3, -1}, {0}); },
                 {"test: ", "extent -1 of axis 1 in shape (3, -1) is negative"});
  expect_invalid([] { plan_of({-5}, {}); }, {"extent -5 of axis 0", "(-5,)", "negative"});
  expect_invalid([] { plan_of({0, -2}, {1}); }, {"extent -2", "negative"});  // an empty array is still checked
}

TEST(AxisPlanErrors, ElementCountOverflowNamesTheShape) {
  const std::int64_t big = std::int64_t{1} << 32;
  expect_invalid([&] { plan_of({big, big}, {0}); },
                 {"test: ", "shape (4294967296, 4294967296) has more than 2^63 - 1 elements"});
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  expect_invalid([&] { plan_of({2, max / 2 + 1}, {1}); }, {"2^63 - 1"});
  expect_invalid([&] { plan_of({3, 3, max / 8}, {}); }, {"2^63 - 1"});
  // Documented in plan.hpp: a zero extent does not excuse the others from multiplying out.
  expect_invalid([&] { plan_of({0, big, big}, {0}); }, {"2^63 - 1"});
}

// ---- brute force: the plan's offsets against a naive multi-index loop ----

struct naive_output {
  std::vector<std::int64_t> offsets;  // input offsets in row-major order over the reduced axes
};

std::vector<naive_output> naive_view_reduction(const std::vector<std::int64_t>& extents,
                                               const std::vector<std::int64_t>& strides, const std::vector<bool>& reduced);

// For each output, in row-major order over the kept axes, the input offsets it reduces.
// Shares nothing with make_plan: strides, odometers and flags are computed here from scratch.
std::vector<naive_output> naive_reduction(const std::vector<std::int64_t>& extents, const std::vector<bool>& reduced) {
  const int rank = static_cast<int>(extents.size());
  std::vector<std::int64_t> stride(rank, 1);
  for (int a = rank - 2; a >= 0; --a) stride[a] = stride[a + 1] * extents[a + 1];
  return naive_view_reduction(extents, stride, reduced);
}

// The same, read off the plan as the kernels read it (plan.hpp's comment on struct plan).
std::vector<naive_output> planned_reduction(const plan& p) {
  std::vector<naive_output> outputs(static_cast<std::size_t>(p.outputs));
  switch (p.kind) {
    case plan_kind::nothing: break;
    case plan_kind::full:
      for (std::int64_t i = 0; i < p.reduced; ++i) outputs[0].offsets.push_back(i);
      break;
    case plan_kind::rows:
      for (std::int64_t o = 0; o < p.outputs; ++o)
        for (std::int64_t j = 0; j < p.runs.size() && p.run_length > 0; ++j)
          for (std::int64_t i = 0; i < p.run_length; ++i)
            outputs[o].offsets.push_back(p.kept.offset(o) + p.runs.offset(j) + i * p.inner_stride);
      break;
    case plan_kind::columns:
      for (std::int64_t b = 0; b < p.kept.size(); ++b)
        for (std::int64_t c = 0; c < p.columns; ++c)
          for (std::int64_t j = 0; j < p.runs.size(); ++j) {
            const std::int64_t o = p.kept_out.offset(b) + c * p.column_out_stride;
            if (o < p.outputs) outputs[o].offsets.push_back(p.kept.offset(b) + c * p.inner_stride + p.runs.offset(j));
          }
      break;
  }
  return outputs;
}

// Groups of neighbouring non-unit axes of one kind: what the plan's dimensions must add up to.
int group_count(const std::vector<std::int64_t>& extents, const std::vector<bool>& reduced) {
  int groups = 0;
  int last = -1;  // 0 kept, 1 reduced
  for (std::size_t a = 0; a < extents.size(); ++a) {
    if (extents[a] == 1) continue;
    const int kind = reduced[a] ? 1 : 0;
    if (kind != last) ++groups;
    last = kind;
  }
  return groups;
}

::testing::AssertionResult plan_matches_naive(const std::vector<std::int64_t>& extents, const std::vector<int>& list) {
  const int rank = static_cast<int>(extents.size());
  std::vector<bool> reduced(rank, false);
  for (int a : list) reduced[a < 0 ? a + rank : a] = true;
  const shape in(extents);
  const plan p = plan_of(in, axes(list));
  const std::vector<naive_output> expected = naive_reduction(extents, reduced);
  const std::int64_t elements = in.elements();

  std::int64_t expected_reduced = 1;
  for (int a = 0; a < rank; ++a)
    if (reduced[a]) expected_reduced *= extents[a];

  auto fail = [&]() {
    return ::testing::AssertionFailure() << describe(in, axes(list)) << ", plan kind " << kind_name(p.kind) << ": ";
  };
  if (p.outputs != static_cast<std::int64_t>(expected.size()))
    return fail() << "outputs " << p.outputs << ", expected " << expected.size();
  if (warpfold::reduced_shape(in, axes(list)).elements() != p.outputs)
    return fail() << "outputs differ from reduced_shape().elements()";
  if ((p.kind == plan_kind::nothing) != (p.outputs == 0)) return fail() << "kind nothing iff no outputs";
  if (p.outputs == 0) return ::testing::AssertionSuccess();
  if (p.reduced != expected_reduced) return fail() << "reduced " << p.reduced << ", expected " << expected_reduced;
  if (p.kind == plan_kind::rows && p.reduced > 0) {
    if (p.kept.size() != p.outputs) return fail() << "kept.size() " << p.kept.size() << " != outputs";
    if (p.runs.size() * p.run_length != p.reduced) return fail() << "runs x run_length != reduced";
  }
  if (p.kind == plan_kind::columns) {
    if (p.kept.size() * p.columns != p.outputs) return fail() << "kept.size() x columns != outputs";
    if (p.runs.size() != p.reduced) return fail() << "runs.size() != reduced";
  }
  // Merging and dropping: one plan dimension per group of neighbouring non-unit axes.
  if (p.reduced > 0 && (p.kind == plan_kind::rows || p.kind == plan_kind::columns)) {
    const int groups = group_count(extents, reduced);
    const bool copy = p.kind == plan_kind::rows && p.runs.count == 0 && p.run_length == 1 && p.reduced == 1;
    const int planned = p.kept.count + p.runs.count + (copy ? 0 : 1);
    if (planned != groups) return fail() << planned << " plan dimensions for " << groups << " groups of axes";
    for (const strided_dims* d : {&p.kept, &p.runs})
      for (int i = 0; i < d->count; ++i)
        if (d->extent[i] < 2 || d->stride[i] < 1) return fail() << "a plan dimension of extent < 2 or stride < 1";
  }

  const std::vector<naive_output> got = planned_reduction(p);
  for (std::size_t o = 0; o < expected.size(); ++o) {
    if (got[o].offsets != expected[o].offsets) {
      auto f = fail() << "output " << o << " reduces offsets {";
      for (std::size_t i = 0; i < got[o].offsets.size() && i < 12; ++i) f << (i ? ", " : "") << got[o].offsets[i];
      f << (got[o].offsets.size() > 12 ? ", ..." : "") << "}, expected {";
      for (std::size_t i = 0; i < expected[o].offsets.size() && i < 12; ++i)
        f << (i ? ", " : "") << expected[o].offsets[i];
      return f << (expected[o].offsets.size() > 12 ? ", ..." : "") << "} (in reduced-axes row-major order)";
    }
    for (std::int64_t offset : got[o].offsets)
      if (offset < 0 || offset >= elements) return fail() << "offset " << offset << " outside the input";
  }
  // Every input element is read exactly once over all outputs (when nothing is empty).
  if (p.reduced > 0) {
    std::vector<int> reads(static_cast<std::size_t>(elements), 0);
    for (const naive_output& out : got)
      for (std::int64_t offset : out.offsets) ++reads[static_cast<std::size_t>(offset)];
    if (std::any_of(reads.begin(), reads.end(), [](int r) { return r != 1; }))
      return fail() << "some input element is read other than exactly once";
  }
  return ::testing::AssertionSuccess();
}

TEST(AxisPlanBruteForce, ExhaustiveAxisSetsOfSmallShapes) {
  // Every axis subset of shapes with unit, empty and merged axes, in every position.
  const std::vector<std::vector<std::int64_t>> shapes = {
      {5},          {1},          {0},          {3, 4},          {1, 4},          {4, 1},
      {0, 3},       {3, 0},       {2, 3, 4},    {1, 3, 4},       {2, 1, 4},       {2, 3, 1},
      {3, 1, 1},    {1, 1, 3},    {1, 1, 1},    {2, 0, 3},       {2, 3, 4, 5},    {1, 3, 1, 5},
      {3, 1, 5, 1}, {2, 1, 1, 3}, {1, 1, 1, 1}, {2, 3, 2, 3, 2}, {2, 1, 3, 1, 2}, {2, 3, 2, 3, 2, 3},
      {2, 2, 2, 2, 2, 2, 2}, {2, 3, 2, 3, 2, 3, 2, 3}, {1, 2, 1, 2, 1, 2, 1, 2}};
  int checked = 0;
  for (const std::vector<std::int64_t>& extents : shapes) {
    const int rank = static_cast<int>(extents.size());
    for (int mask = 0; mask < (1 << rank); ++mask) {
      std::vector<int> list;
      for (int a = 0; a < rank; ++a)
        if (mask & (1 << a)) list.push_back(a);
      EXPECT_TRUE(plan_matches_naive(extents, list));
      ++checked;
    }
  }
  EXPECT_GT(checked, 800);
}

TEST(AxisPlanBruteForce, RandomShapesAndAxisSets) {
  // Ranks 1 to 8, extents 0 to 6 (1 and 2 often, 0 rarely), axes in random order and spelling.
  std::mt19937_64 random(warpfold_test::seed_for("axis-plan-brute-force", 0));
  const std::vector<std::int64_t> extent_pool = {1, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 0};
  for (int trial = 0; trial < 4000; ++trial) {
    const int rank = 1 + static_cast<int>(random() % (trial < 3000 ? 5 : 8));
    std::vector<std::int64_t> extents;
    std::int64_t elements = 1;
    for (int a = 0; a < rank; ++a) {
      std::int64_t e = extent_pool[random() % extent_pool.size()];
      if (e == 0 && random() % 3 != 0) e = 2;  // keep most shapes non-empty
      if (elements * std::max<std::int64_t>(e, 1) > 20000) e = 1;
      extents.push_back(e);
      elements *= std::max<std::int64_t>(e, 1);
    }
    std::vector<int> list;
    for (int a = 0; a < rank; ++a)
      if (random() % 2) list.push_back(random() % 2 ? a : a - rank);  // a or its negative spelling
    std::shuffle(list.begin(), list.end(), random);
    const ::testing::AssertionResult result = plan_matches_naive(extents, list);
    EXPECT_TRUE(result) << "trial " << trial;
    if (!result) break;
  }
}

// ---- strided views: the plan against a naive loop over the view's own strides ----

// For each output (row-major over the kept axes), the offsets it reduces, in row-major order
// over the reduced axes, computed from the extents and strides alone.
std::vector<naive_output> naive_view_reduction(const std::vector<std::int64_t>& extents,
                                               const std::vector<std::int64_t>& strides, const std::vector<bool>& reduced) {
  const int rank = static_cast<int>(extents.size());
  std::vector<int> kept_axes, reduced_axes;
  for (int a = 0; a < rank; ++a) (reduced[a] ? reduced_axes : kept_axes).push_back(a);
  auto odometer = [&](const std::vector<int>& list, auto&& f) {
    for (int a : list)
      if (extents[a] == 0) return;
    std::vector<std::int64_t> index(list.size(), 0);
    while (true) {
      std::int64_t offset = 0;
      for (std::size_t i = 0; i < list.size(); ++i) offset += index[i] * strides[list[i]];
      f(offset);
      int i = static_cast<int>(list.size()) - 1;
      while (i >= 0 && ++index[i] == extents[list[i]]) index[i--] = 0;
      if (i < 0) return;
    }
  };
  std::vector<naive_output> outputs;
  odometer(kept_axes, [&](std::int64_t base) {
    naive_output out;
    odometer(reduced_axes, [&](std::int64_t offset) { out.offsets.push_back(base + offset); });
    outputs.push_back(std::move(out));
  });
  return outputs;
}

// `in_order`: the plan must visit each output's elements in the view's reduced row-major
// order (argmin/argmax); otherwise in any order, each exactly as often as the view holds it.
::testing::AssertionResult view_plan_matches_naive(const std::vector<std::int64_t>& extents,
                                                   const std::vector<std::int64_t>& strides, const std::vector<int>& list,
                                                   bool in_order) {
  const int rank = static_cast<int>(extents.size());
  std::vector<bool> reduced(rank, false);
  for (int a : list) reduced[a] = true;
  const shape in(extents);
  const plan p = make_plan(in, strides.data(), axes(list), in_order, "test");
  std::vector<naive_output> expected = naive_view_reduction(extents, strides, reduced);
  auto fail = [&]() {
    auto f = ::testing::AssertionFailure() << describe(in, axes(list)) << " strides (";
    for (int a = 0; a < rank; ++a) f << (a ? ", " : "") << strides[a];
    return f << "), " << (in_order ? "in order" : "any order") << ", plan kind " << kind_name(p.kind) << ": ";
  };
  if (p.outputs != static_cast<std::int64_t>(expected.size()))
    return fail() << "outputs " << p.outputs << ", expected " << expected.size();
  if (p.outputs == 0) return ::testing::AssertionSuccess();
  std::vector<naive_output> got = planned_reduction(p);
  if (p.kind == plan_kind::columns) {
    // The same outputs read as rows of one-element runs (kept_all in the output's order).
    for (std::int64_t o = 0; o < p.outputs; ++o) {
      std::vector<std::int64_t> as_rows;
      for (std::int64_t j = 0; j < p.runs.size(); ++j) as_rows.push_back(p.kept_all.offset(o) + p.runs.offset(j));
      if (as_rows != got[o].offsets) return fail() << "kept_all reads output " << o << " elsewhere";
    }
    // And as rows whose runs are the innermost reduced axis, strided (as_strided_rows): the
    // same elements in the same order, so argmin/argmax count the same indices.
    const std::vector<naive_output> strided = planned_reduction(warpfold::axis::as_strided_rows(p));
    for (std::int64_t o = 0; o < p.outputs; ++o)
      if (strided[o].offsets != got[o].offsets) return fail() << "as strided rows, output " << o << " reads elsewhere";
  }
  const std::int64_t span = warpfold::axis::view_span(in, strides.data(), "test");
  for (std::size_t o = 0; o < expected.size(); ++o) {
    if (!in_order) {
      std::sort(got[o].offsets.begin(), got[o].offsets.end());
      std::sort(expected[o].offsets.begin(), expected[o].offsets.end());
    }
    if (got[o].offsets != expected[o].offsets) {
      auto f = fail() << "output " << o << " reduces {";
      for (std::size_t i = 0; i < got[o].offsets.size() && i < 12; ++i) f << (i ? ", " : "") << got[o].offsets[i];
      f << "}, expected {";
      for (std::size_t i = 0; i < expected[o].offsets.size() && i < 12; ++i) f << (i ? ", " : "") << expected[o].offsets[i];
      return f << "}";
    }
    for (std::int64_t offset : got[o].offsets)
      if (offset < 0 || offset >= span) return fail() << "offset " << offset << " outside the view's span " << span;
  }
  return ::testing::AssertionSuccess();
}

TEST(AxisPlanViews, TransposedMatrixPlansAsTheContiguousMatrixItIs) {
  // x is a row-major 4096 x 16 matrix; x.T has shape (16, 4096) and strides (1, 16).
  const std::int64_t transposed[] = {1, 16};
  const plan over_rows = make_plan(shape{16, 4096}, transposed, axes{1}, false, "test");  // x.T.sum(1) = x.sum(0)
  EXPECT_EQ(over_rows.kind, plan_kind::columns);
  EXPECT_EQ(over_rows.columns, 16);
  EXPECT_EQ(over_rows.column_out_stride, 1);
  EXPECT_EQ(to_dims(over_rows.runs), (dims{{4096, 16}}));
  const plan over_columns = make_plan(shape{16, 4096}, transposed, axes{0}, false, "test");  // = x.sum(1)
  EXPECT_EQ(over_columns.kind, plan_kind::rows);
  EXPECT_EQ(over_columns.run_length, 16);
  EXPECT_EQ(to_dims(over_columns.kept), (dims{{4096, 16}}));
  EXPECT_EQ(over_columns.runs.count, 0);
  // Every axis of a permutation of a contiguous array is one contiguous run: a full reduction,
  // unless indices matter (argmin/argmax count in the view's order).
  EXPECT_EQ(make_plan(shape{16, 4096}, transposed, axes{0, 1}, false, "test").kind, plan_kind::full);
  EXPECT_EQ(make_plan(shape{16, 4096}, transposed, axes{0, 1}, true, "test").kind, plan_kind::rows);
}

TEST(AxisPlanViews, PermutedKeptAxesWriteTheOutputInTheViewsOrder) {
  // A contiguous [A=3, B=5, C=7] permuted to (C, A, B): strides (1, 35, 7). Reducing A leaves
  // (C, B) in that order, while memory holds B outside C: columns of C, out stride B.
  const std::int64_t permuted[] = {1, 35, 7};
  const plan p = make_plan(shape{7, 3, 5}, permuted, axes{1}, false, "test");
  EXPECT_EQ(p.kind, plan_kind::columns);
  EXPECT_EQ(p.columns, 7);
  EXPECT_EQ(p.column_out_stride, 5);
  EXPECT_EQ(to_dims(p.kept), (dims{{5, 7}}));
  EXPECT_EQ(to_dims(p.kept_out), (dims{{5, 1}}));
  EXPECT_TRUE(view_plan_matches_naive({7, 3, 5}, {1, 35, 7}, {1}, true));
}

TEST(AxisPlanViews, SlicesKeepTheirParentsStrides) {
  // x[:, 1:-1] of a 6 x 10 matrix: shape (6, 8), strides (10, 1); rows of 8, 10 apart.
  const std::int64_t sliced[] = {10, 1};
  const plan p = make_plan(shape{6, 8}, sliced, axes{1}, false, "test");
  EXPECT_EQ(p.kind, plan_kind::rows);
  EXPECT_EQ(p.run_length, 8);
  EXPECT_EQ(to_dims(p.kept), (dims{{6, 10}}));
  const plan q = make_plan(shape{6, 8}, sliced, axes{0}, false, "test");
  EXPECT_EQ(q.kind, plan_kind::columns);
  EXPECT_EQ(to_dims(q.runs), (dims{{6, 10}}));
}

TEST(AxisPlanViews, SteppedViewsReadAlongTheSmallestStride) {
  // x[:, ::2] of a 4 x 10 matrix: rows of 5 elements 2 apart, or columns 2 apart.
  const std::int64_t every_other[] = {10, 2};
  const plan p = make_plan(shape{4, 5}, every_other, axes{1}, false, "test");
  EXPECT_EQ(p.kind, plan_kind::rows);
  EXPECT_EQ(p.run_length, 5);
  EXPECT_EQ(p.inner_stride, 2);
  EXPECT_EQ(to_dims(p.kept), (dims{{4, 10}}));
  const plan q = make_plan(shape{4, 5}, every_other, axes{0}, false, "test");
  EXPECT_EQ(q.kind, plan_kind::columns);
  EXPECT_EQ(q.columns, 5);
  EXPECT_EQ(q.inner_stride, 2);
  EXPECT_TRUE(view_plan_matches_naive({4, 5}, {10, 2}, {0}, false));
  EXPECT_TRUE(view_plan_matches_naive({4, 5}, {10, 2}, {1}, true));
}

TEST(AxisPlanViews, OnlyBroadcastAxesAreRunsOfOneElement) {
  const std::int64_t broadcast[] = {0, 0};
  const plan p = make_plan(shape{4, 5}, broadcast, axes{1}, false, "test");
  EXPECT_EQ(p.kind, plan_kind::rows);
  EXPECT_EQ(p.run_length, 1);
  EXPECT_EQ(to_dims(p.runs), (dims{{5, 0}}));
  EXPECT_TRUE(view_plan_matches_naive({4, 5}, {0, 1}, {0}, false)) << "a broadcast row, summed over rows";
  EXPECT_TRUE(view_plan_matches_naive({4, 5}, {1, 0}, {1}, true)) << "a broadcast row, argmax along it";
  EXPECT_TRUE(view_plan_matches_naive({4, 5}, {0, 0}, {0, 1}, true)) << "a broadcast scalar";
}

TEST(AxisPlanViews, NegativeStridesAreRefusedWithTheAxis) {
  const std::int64_t reversed[] = {4, -1};
  expect_invalid([&] { make_plan(shape{3, 4}, reversed, axes{1}, false, "test"); },
                 {"test", "stride -1", "axis 1", "negative"});
}

TEST(AxisPlanViews, SpanCoversTheLastElement) {
  const std::int64_t sliced[] = {10, 1};
  EXPECT_EQ(warpfold::axis::view_span(shape{6, 8}, sliced, "test"), 5 * 10 + 7 + 1);
  const std::int64_t broadcast[] = {0, 0};
  EXPECT_EQ(warpfold::axis::view_span(shape{6, 8}, broadcast, "test"), 1);
  EXPECT_EQ(warpfold::axis::view_span(shape{6, 0}, sliced, "test"), 0);
  EXPECT_EQ(warpfold::axis::view_span(shape{6, 8}, nullptr, "test"), 48);
  const std::int64_t huge[] = {std::int64_t{1} << 62, 1};
  expect_invalid([&] { warpfold::axis::view_span(shape{3, 2}, huge, "test"); }, {"2^63 - 1"});
}

TEST(AxisPlanBruteForce, RandomViewsPermutedSlicedSteppedAndBroadcast) {
  std::mt19937_64 random(warpfold_test::seed_for("axis-plan-views", 0));
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int rank = 1 + static_cast<int>(random() % 6);
    // A contiguous parent, then a view of it: a permutation, a slice or step per axis, and
    // now and then a broadcast axis.
    std::vector<std::int64_t> parent(rank), extents(rank), strides(rank);
    std::int64_t elements = 1;
    for (int a = 0; a < rank; ++a) {
      parent[a] = 1 + static_cast<std::int64_t>(random() % 6);
      if (elements * parent[a] > 4000) parent[a] = 1;
      elements *= parent[a];
    }
    std::vector<std::int64_t> parent_stride(rank, 1);
    for (int a = rank - 2; a >= 0; --a) parent_stride[a] = parent_stride[a + 1] * parent[a + 1];
    std::vector<int> order(rank);
    for (int a = 0; a < rank; ++a) order[a] = a;
    if (random() % 2) std::shuffle(order.begin(), order.end(), random);
    for (int a = 0; a < rank; ++a) {
      const int from = order[a];
      const int kind = static_cast<int>(random() % 8);
      if (kind == 0) {  // broadcast
        extents[a] = 1 + static_cast<std::int64_t>(random() % 4);
        strides[a] = 0;
      } else if (kind == 1 && parent[from] >= 2) {  // every other element
        extents[a] = (parent[from] + 1) / 2;
        strides[a] = 2 * parent_stride[from];
      } else if (kind == 2 && parent[from] >= 3) {  // drop the first and last
        extents[a] = parent[from] - 2;
        strides[a] = parent_stride[from];
      } else {
        extents[a] = parent[from];
        strides[a] = parent_stride[from];
      }
    }
    std::vector<int> list;
    for (int a = 0; a < rank; ++a)
      if (random() % 2) list.push_back(a);
    for (bool in_order : {true, false}) {
      const ::testing::AssertionResult result = view_plan_matches_naive(extents, strides, list, in_order);
      EXPECT_TRUE(result) << "trial " << trial;
      if (!result) return;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000);
}

// The rows that the row stream kernel's warps split (axis/row_stream_kernel.cuh), counted by
// the host with additions only, against a count from each row's first and last element: the
// scratch's finished units must be exactly the rows whose parts meet on a counter. Random rows,
// strides with gaps, starts 0 to V - 1 elements past alignment, grids from one warp to more
// warps than rows, for 1-, 2-, 4- and 8-byte elements.
TEST(RowStreamSplits, CountedBoundaryByBoundaryAsRowByRow) {
  std::mt19937_64 random(20261128);
  int with_splits = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const std::int64_t size = std::int64_t{1} << (random() % 4);
    const std::int64_t V = 16 / size;
    warpfold::axis::row_stream_shape s{};
    s.rows = 2 + static_cast<std::int64_t>(random() % 300);
    s.row_length = 1 + static_cast<std::int64_t>(random() % 400);
    s.row_stride = s.row_length + static_cast<std::int64_t>(random() % 3 == 0 ? random() % 50 : 0);
    s.head = static_cast<std::int64_t>(random() % V);
    s.vectors = (s.end(s.rows - 1) + V - 1) / V;
    s.warps = 1 + static_cast<std::int64_t>(random() % std::min<std::int64_t>(s.vectors, 700));
    std::int64_t expected = 0;
    for (std::int64_t r = 0; r < s.rows; ++r)
      if (s.warp_holding(s.start(r), size) != s.warp_holding(s.end(r) - 1, size)) ++expected;
    ASSERT_EQ(warpfold::axis::row_stream_split_rows(s, size), expected)
        << "trial " << trial << ": " << s.rows << " rows of " << s.row_length << ", stride " << s.row_stride
        << ", head " << s.head << ", " << s.warps << " warps, " << size << "-byte elements";
    with_splits += expected > 0;
  }
  EXPECT_GT(with_splits, 1000);
}

// ---- transposed tiles: the tile walk against the naive loop ----

// The elements that transposed_tiles_kernel folds into each output, read off the shape as the
// kernel walks it (axis/transposed_tiles_plan.hpp): tiles, their outputs, each output's places
// in the staged tile, and each place's elements. Sets `problem` where the walk leaves the
// outputs, or reads a staged place that none of the tile's rows fills.
std::vector<naive_output> tiled_reduction(const warpfold::axis::transposed_tiles_shape& s, std::int64_t outputs,
                                          std::string& problem) {
  std::vector<naive_output> got(static_cast<std::size_t>(outputs));
  const std::int64_t pitch = s.staged_row_pitch;
  for (std::int64_t outer = 0; outer < s.outer_kept.size(); ++outer)
    for (std::int64_t rt = 0; rt < s.rows_tiles; ++rt)
      for (std::int64_t mt = 0; mt < s.row_axis_tiles; ++mt) {
        const std::int64_t first_slab = mt * s.row_axis_tile, first_row = rt * s.rows_tile;
        const std::int64_t slabs = std::min(s.row_axis_tile, s.row_axis_extent - first_slab);
        const std::int64_t rows = std::min(s.rows_tile, s.rows_extent - first_row);
        const std::int64_t in0 = s.outer_kept.offset(outer) + first_slab * s.slab + first_row * s.rows_in_stride;
        const std::int64_t out0 =
            s.outer_kept_out.offset(outer) + first_slab * s.row_axis_out_stride + first_row * s.rows_out_stride;
        std::int64_t extent[3];
        for (int a = 0; a < 3; ++a)
          extent[a] = s.out_axes[a].along == 1 ? slabs : s.out_axes[a].along == 2 ? rows : s.out_axes[a].extent;
        for (std::int64_t i0 = 0; i0 < extent[0]; ++i0)
          for (std::int64_t i1 = 0; i1 < extent[1]; ++i1)
            for (std::int64_t i2 = 0; i2 < extent[2]; ++i2) {
              const std::int64_t staged = i0 * s.out_axes[0].staged_stride + i1 * s.out_axes[1].staged_stride +
                                          i2 * s.out_axes[2].staged_stride;
              const std::int64_t o = out0 + i0 * s.out_axes[0].out_stride + i1 * s.out_axes[1].out_stride +
                                     i2 * s.out_axes[2].out_stride;
              if (o < 0 || o >= outputs) {
                problem = "output " + std::to_string(o) + " is outside the " + std::to_string(outputs) + " outputs";
                return got;
              }
              for (std::int64_t r1 = 0; r1 < s.slab_reduced_extent[1]; ++r1)
                for (std::int64_t r0 = 0; r0 < s.slab_reduced_extent[0]; ++r0) {
                  const std::int64_t place = staged + r1 * s.slab_reduced_stride[1] + r0 * s.slab_reduced_stride[0];
                  const std::int64_t row = place / pitch, at = place % pitch;
                  if (row >= rows || at >= slabs * s.slab) {
                    problem = "staged place " + std::to_string(place) + " is outside the tile's rows";
                    return got;
                  }
                  for (std::int64_t j = 0; j < s.outer_reduced.size(); ++j)
                    got[o].offsets.push_back(in0 + row * s.rows_in_stride + at + s.outer_reduced.offset(j));
                }
            }
      }
  return got;
}

// Whether a view takes transposed tiles for elements of T with accumulators of Acc and, if it
// does, whether their walk folds into each output exactly the view's elements (in any order),
// within the staging.
template <typename T, typename Acc>
::testing::AssertionResult tiles_match_naive(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides,
                                             const std::vector<int>& list, bool& taken, std::int64_t wave = 1) {
  const int rank = static_cast<int>(extents.size());
  std::vector<bool> reduced(rank, false);
  for (int a : list) reduced[a] = true;
  const plan p = make_plan(shape(extents), strides.data(), axes(list), false, "test");
  warpfold::axis::transposed_tiles_shape s{};
  taken = warpfold::axis::transposed_tiles_for<T, Acc>(p, [wave] { return wave; }, s);
  if (!taken) return ::testing::AssertionSuccess();
  auto fail = [&]() {
    auto f = ::testing::AssertionFailure() << describe(shape(extents), axes(list)) << " strides (";
    for (int a = 0; a < rank; ++a) f << (a ? ", " : "") << strides[a];
    return f << "), " << sizeof(T) << "-byte elements: ";
  };
  constexpr std::int64_t vector_size = 16 / sizeof(T);
  const std::int64_t capacity = std::int64_t(warpfold::axis::transposed_block) *
                                warpfold::axis::transposed_vectors_per_thread<T, Acc>;
  if (s.rows_tile * s.vectors_per_row > capacity)
    return fail() << s.rows_tile << " rows of " << s.vectors_per_row << " vectors, more than " << capacity;
  if (s.staged_row_pitch < s.vectors_per_row * vector_size ||
      s.rows_tile * s.staged_row_pitch * std::int64_t(sizeof(Acc)) > warpfold::axis::transposed_staged_bytes)
    return fail() << s.rows_tile << " staged rows of " << s.staged_row_pitch << " accumulators, rows of "
                  << s.vectors_per_row << " vectors: not within the staging";
  std::int64_t last = 0;
  for (int a = 0; a < rank; ++a) last += (extents[a] - 1) * strides[a];
  if (s.end != last + 1) return fail() << "end " << s.end << ", expected " << last + 1;
  std::string problem;
  std::vector<naive_output> got = tiled_reduction(s, p.outputs, problem);
  if (!problem.empty()) return fail() << problem;
  std::vector<naive_output> expected = naive_view_reduction(extents, strides, reduced);
  for (std::size_t o = 0; o < expected.size(); ++o) {
    std::sort(expected[o].offsets.begin(), expected[o].offsets.end());
    std::sort(got[o].offsets.begin(), got[o].offsets.end());
    if (got[o].offsets != expected[o].offsets)
      return fail() << "output " << o << " folds " << got[o].offsets.size() << " elements, expected "
                    << expected[o].offsets.size();
  }
  return ::testing::AssertionSuccess();
}

template <typename T, typename Acc>
void expect_tiles(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides,
                  const std::vector<int>& list, bool expect_taken, std::int64_t wave = 1) {
  bool taken = false;
  EXPECT_TRUE((tiles_match_naive<T, Acc>(extents, strides, list, taken, wave)));
  EXPECT_EQ(taken, expect_taken) << describe(shape(extents), axes(list)) << ", " << sizeof(T) << "-byte elements";
}

// Views whose outputs lie in memory in another order than in the output: the GPU test's
// kinds (axis_views_test.cpp: TransposedOutputsThroughTiles), in 1-, 2-, 4- and 8-byte
// elements (the planner reads only their sizes), and views that must not take the tiles.
TEST(TransposedTiles, ListedViewsFoldEveryElementOnce) {
  using std::int8_t, std::int64_t, std::uint16_t;
  const std::int64_t w = 301, c = 1001;
  const std::vector<std::tuple<std::vector<std::int64_t>, std::vector<std::int64_t>, std::vector<int>>> views{
      {{27, w, 3}, {1, 81, 27}, {2}},
      {{27, w, 3}, {1, 83, 27}, {2}},
      {{c, 17, 3}, {1, 3 * c, c}, {2}},
      {{2, 9, c / 2, 7}, {9 * 7 * (c / 2), 7 * (c / 2), 1, c / 2}, {0}},
      {{3, 2, 5, 39, w}, {2 * 5 * 39 * w, 5 * 39 * w, 39 * w, 1, 39}, {2}},
      {{5, w, 3, 2}, {1, 30, 5, 15}, {2, 3}},
      {{13, w, 4, 3}, {1, 13, 13 * w, 52 * w}, {2}},
      {{27, 5, 3}, {1, 81, 27}, {2}},
  };
  for (const auto& [extents, strides, list] : views) {
    expect_tiles<float, float>(extents, strides, list, true);
    expect_tiles<uint16_t, float>(extents, strides, list, true);  // halves summed in float
    expect_tiles<double, double>(extents, strides, list, true);
  }
  // Outputs of 64 elements: 256 bytes of floats are taken, 512 of doubles are not.
  expect_tiles<float, float>({27, w / 4, 64}, {1, 27 * 64, 27}, {2}, true);
  expect_tiles<double, double>({27, w / 4, 64}, {1, 27 * 64, 27}, {2}, false);
  // Copies whose output's order is not memory's (transposes): every element its own output.
  expect_tiles<float, float>({1, 89, 2, 4501, 7}, {0, 63014, 31507, 1, 4501}, {0}, true);
  expect_tiles<float, float>({15, 27, 1, 117, 124}, {392108, 14508, 14508, 1, 117}, {2}, true);
  expect_tiles<std::uint16_t, float>({w, 7}, {1, w}, {}, true);
  expect_tiles<float, float>({w, 7}, {7, 1}, {}, false);  // a plain copy
  // Outputs in memory's order (a matrix along either axis), and a broadcast axis: not taken.
  expect_tiles<float, float>({w, 27}, {27, 1}, {0}, false);
  expect_tiles<float, float>({w, 27}, {27, 1}, {1}, false);
  expect_tiles<float, float>({27, w, 3}, {1, 0, 27}, {2}, false);
  // int8 sums in int64: one vector a thread.
  expect_tiles<int8_t, int64_t>({27, w, 3}, {1, 81, 27}, {2}, true);
  // Too few tiles for a wave of 396 blocks: cut smaller where each still gives every thread a
  // vector, otherwise not taken.
  expect_tiles<float, float>({24, 1319, 11, 5}, {72545, 55, 1, 11}, {0}, false, 396);
  expect_tiles<float, float>({27, 10000, 3}, {1, 81, 27}, {2}, true, 396);
  // A few tiles that each fold many outer reduced indices: not taken for a wave, taken forced.
  expect_tiles<float, float>({2, 17, 19, 26, 28}, {1, 2, 34, 646, 16796}, {0, 3}, false, 396);
  expect_tiles<float, float>({2, 17, 19, 26, 28}, {1, 2, 34, 646, 16796}, {0, 3}, true, 1);
  warpfold::axis::transposed_tiles_shape cut{};
  const plan tall = make_plan(shape({27, 10000, 3}), std::vector<int64_t>{1, 81, 27}.data(), axes({2}), false, "test");
  ASSERT_TRUE((warpfold::axis::transposed_tiles_for<float, float>(tall, [] { return std::int64_t{396}; }, cut)));
  EXPECT_GE(cut.row_axis_tiles, 396);
}

// A slab as deep as the staging holds can leave room for a few slabs a tile; where the output's
// innermost axis runs along the slabs or the rows, such a tile writes a few outputs side by side
// in each place. The planner takes a smaller slab then, whose tiles write a warp's worth of
// outputs side by side (32; 30 and 31 where balanced tiles cut the axis evenly), and keeps the
// deepest where its tiles already write more than a few.
TEST(TransposedTiles, TilesWriteLongRunsOfOutputs) {
  using warpfold::axis::transposed_tiles_policy, warpfold::axis::transposed_tiles_shape;
  auto tiles_of = [](const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides,
                     const std::vector<int>& list, auto element) {
    using T = decltype(element);
    const plan p = make_plan(shape(extents), strides.data(), axes(list), false, "test");
    transposed_tiles_shape s{};
    const bool taken = warpfold::axis::transposed_tiles_for<T, float>(p, [] { return std::int64_t{1}; }, s);
    std::int64_t run = 1;  // the outputs a tile writes side by side
    for (int a = 2; a >= 0 && s.out_axes[a].out_stride == run; --a) run *= s.out_axes[a].extent;
    return std::make_tuple(taken, s, run);
  };
  const struct {
    std::vector<std::int64_t> extents, strides;
    std::vector<int> list;
    bool half;
    std::int64_t run;  // at least
  } views[] = {
      // Batches of [1171, 124] transposed, copied (a unit axis reduced): slabs of the 1171 axis
      // would fit three to a tile, three outputs side by side; tiles of 31 of the 124 instead.
      {{2, 3, 1, 1171, 124}, {435612, 145204, 145204, 1, 1171}, {2}, false, 31},
      // [1500, 300] transposed, copied: two slabs of 1500 a tile; 30 of the 300 instead.
      {{1, 1500, 300}, {1, 1, 1500}, {0}, false, 30},
      // Halves: slabs of 2 x 94 x 15 (over the 15), two to a tile; 34 of the 100 instead.
      {{3, 1, 94, 2, 100, 15}, {2820, 2, 2, 1, 8460, 188}, {1, 5}, true, 32},
  };
  for (const auto& v : views) {
    bool taken = false;
    const auto [planned, s, run] = v.half ? tiles_of(v.extents, v.strides, v.list, std::uint16_t{})
                                          : tiles_of(v.extents, v.strides, v.list, float{});
    ASSERT_TRUE(planned) << describe(shape(v.extents), axes(v.list));
    EXPECT_GE(run, v.run) << describe(shape(v.extents), axes(v.list));
    EXPECT_TRUE((v.half ? tiles_match_naive<std::uint16_t, float>(v.extents, v.strides, v.list, taken)
                        : tiles_match_naive<float, float>(v.extents, v.strides, v.list, taken)));
  }
  // Where the deepest slab's tiles write more than max_scattered_run, it stays: 3 x 27 (over
  // the 3), and [644, 300] transposed with slabs of 644, six to a tile.
  {
    const auto [planned, s, run] = tiles_of({27, 301, 3}, {1, 81, 27}, {2}, float{});
    ASSERT_TRUE(planned);
    EXPECT_EQ(s.slab, 81);
    EXPECT_GT(run, transposed_tiles_policy::max_scattered_run);
  }
  {
    const auto [planned, s, run] = tiles_of({644, 300, 3}, {1, 644, 193200}, {2}, float{});
    ASSERT_TRUE(planned);
    EXPECT_EQ(s.slab, 644);
    EXPECT_GT(run, transposed_tiles_policy::max_scattered_run);
  }
}

// Random permuted views of random parents, some sliced, reduced over a random set of axes: the
// walk must fold every element of every output once wherever the planner takes the tiles, and
// it must take them often enough for this to mean something. Half the time for a wave of 264
// blocks, which cuts tiles smaller.
TEST(TransposedTiles, RandomViewsFoldEveryElementOnce) {
  std::mt19937_64 random(warpfold_test::seed_for("transposed-tiles", 0));
  int taken_count = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int rank = 2 + static_cast<int>(random() % 4);
    const warpfold_test::parent_array p = warpfold_test::random_parent(random, rank, 9, 200000);
    const std::vector<std::int64_t>& parent = p.extents;
    const std::vector<std::int64_t>& parent_stride = p.strides;
    std::vector<int> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random);
    std::vector<std::int64_t> extents(rank), strides(rank);
    for (int a = 0; a < rank; ++a) {
      const int from = order[a];
      const bool slice = parent[from] >= 3 && random() % 5 == 0;
      extents[a] = slice ? parent[from] - 2 : parent[from];
      strides[a] = parent_stride[from];
    }
    std::vector<int> list;  // few elements an output; none in some trials: a copy, which a tile transposes
    for (int a = 0; a < rank; ++a)
      if (extents[a] <= 16 && random() % 2) list.push_back(a);
    if (list.empty() && trial % 3 != 0) continue;
    bool taken = false;
    // Tiles as large as the staging holds, or cut for a wave of 264 blocks.
    ::testing::AssertionResult result = tiles_match_naive<float, float>(extents, strides, list, taken, trial % 2 ? 264 : 1);
    EXPECT_TRUE(result) << "trial " << trial;
    taken_count += taken;
    result = tiles_match_naive<std::uint16_t, float>(extents, strides, list, taken);
    EXPECT_TRUE(result) << "trial " << trial;
    result = tiles_match_naive<std::int8_t, std::int64_t>(extents, strides, list, taken);
    EXPECT_TRUE(result) << "trial " << trial;
    if (!result) return;
  }
  EXPECT_GT(taken_count, 100);
}

}  // namespace
