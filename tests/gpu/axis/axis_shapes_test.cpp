// Shapes: every rank 1-4 shape of a list with extents of 1 in every position, odd and prime
// extents, multiples of the 16-byte vector and empty (0) extents, each reduced over EVERY
// subset of its axes (none and all included), blocking and async, against the CPU reference.
// Sums on float, int32, uint8 (16 per vector) and double over the whole list; all twelve
// element types over a shorter one; ranks 5 to 8, where the planner merges up to eight axes
// into four kept and four reduced groups; and full-range integers, whose 64-bit sums wrap.
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

using extents_list = std::vector<std::vector<std::int64_t>>;

// Inserts an extent of 1 at every position of each base shape: (1, a, b), (a, 1, b), (a, b, 1).
extents_list with_unit_axes(const extents_list& bases) {
  extents_list shapes;
  for (const std::vector<std::int64_t>& base : bases)
    for (std::size_t at = 0; at <= base.size(); ++at) {
      std::vector<std::int64_t> s = base;
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), 1);
      shapes.push_back(s);
    }
  return shapes;
}

// Quick mode (under the sanitizers) keeps the shapes of at most 70000 elements.
extents_list keep_quick(extents_list shapes) {
  if (!quick_mode()) return shapes;
  extents_list kept;
  for (const auto& s : shapes)
    if (element_count(s) <= 70000) kept.push_back(s);
  return kept;
}

extents_list rank_one_to_four_shapes() {
  extents_list shapes = {
      // rank 1: empty, one, a warp +-1, a block's worth, primes, 2^16 + 1
      {0}, {1}, {2}, {3}, {5}, {7}, {31}, {32}, {33}, {127}, {257}, {1023}, {1024}, {1025}, {4099}, {65537},
      // rank 2
      {0, 0}, {0, 5}, {5, 0}, {1, 0}, {0, 1}, {1, 1}, {3, 5}, {5, 3}, {31, 33}, {33, 31}, {32, 32}, {16, 16},
      {127, 257}, {257, 127}, {2, 1023}, {1023, 2}, {3, 4099}, {4099, 3}, {33, 1025}, {1025, 33}, {5, 1024},
      {1024, 8}, {64, 256}, {256, 64}, {7, 8192}, {1023, 1025},
      // rank 3
      {0, 3, 5}, {3, 0, 5}, {3, 5, 0}, {1, 1, 1}, {7, 31, 33}, {33, 7, 31}, {31, 33, 7}, {2, 127, 3}, {5, 1, 257},
      {257, 5, 1}, {1, 1025, 1}, {31, 1, 31}, {3, 257, 33}, {127, 2, 127}, {4, 32, 8}, {2, 1023, 2}, {3, 5, 4096},
      // rank 4
      {0, 1, 2, 3}, {2, 3, 0, 1}, {3, 5, 7, 0}, {1, 1, 1, 1}, {1, 1, 1, 7}, {2, 3, 5, 7}, {7, 5, 3, 2},
      {31, 1, 33, 3}, {1, 7, 1, 127}, {5, 33, 1, 31}, {3, 1023, 1, 2}, {2, 1, 1, 1025}, {257, 3, 1, 5},
      {5, 7, 31, 33}, {2, 32, 4, 16}, {3, 3, 3, 3},
  };
  // A unit axis in every position of a few shapes (the list above has some; these are systematic).
  for (const auto& s : with_unit_axes({{7}, {3, 5}, {33, 127}, {1, 1}, {7, 31, 33}})) shapes.push_back(s);
  return keep_quick(shapes);
}

template <typename T>
class AxisShapes : public gpu_test {};
using shape_types = ::testing::Types<float, std::int32_t, std::uint8_t, double>;
TYPED_TEST_SUITE(AxisShapes, shape_types, type_names);

// Runs op over every subset of the axes of each shape, both forms; the default stream for
// even shapes and a created one for odd shapes. Stops at the first shape with a failure.
template <typename Op, typename T>
void sweep_every_subset(const extents_list& shapes, const std::string& tag, value_mode mode = value_mode::moderate) {
  owned_stream stream;
  std::size_t cases = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<std::int64_t>& extents = shapes[i];
    const std::int64_t n = element_count(extents);
    const std::uint64_t seed = seed_for(tag + "/" + type_name<T>() + "/" + shape_text(extents), n);
    SCOPED_TRACE(::testing::Message() << type_name<T>() << " " << shape_text(extents) << " seed = " << seed);
    const device_input<T> input(make_values<T>(n, seed, mode));
    bool ok = true;
    for (const std::vector<int>& axes : every_axis_subset(static_cast<int>(extents.size())))
      ok = expect_axes<Op>(input, extents, axes, i % 2 ? stream.get() : cudaStream_t{}, sweep_forms(cases++)) && ok;
    EXPECT_TRUE(input.unchanged());
    if (!ok) break;
  }
}

TYPED_TEST(AxisShapes, SumOverEverySubsetOfAxesOfRankOneToFour) {
  sweep_every_subset<op::sum, TypeParam>(rank_one_to_four_shapes(), "shapes");
}

template <typename T>
class AxisShapesEveryType : public gpu_test {};
TYPED_TEST_SUITE(AxisShapesEveryType, all_element_types, type_names);

TYPED_TEST(AxisShapesEveryType, SumOverEverySubsetOfAxes) {
  const extents_list shapes = {{0}, {1025}, {0, 7}, {7, 0}, {33, 31}, {16, 64}, {3, 1, 257},
                               {1, 4, 1}, {2, 3, 5, 7}, {4, 1, 33, 2}};
  sweep_every_subset<op::sum, TypeParam>(shapes, "every-type");
}

TYPED_TEST(AxisShapesEveryType, MaxOverEverySubsetOfAxes) {
  sweep_every_subset<op::max, TypeParam>({{33, 31}, {3, 1, 257}, {2, 3, 5, 7}}, "every-type-max");
}

class AxisHigherRanks : public gpu_test {};

// Ranks 5 to 8: alternating kept and reduced axes fill all four kept and reduced groups.
const extents_list higher_rank_shapes = {
    {3, 1, 4, 5, 2}, {2, 2, 2, 2, 2, 2}, {2, 3, 1, 5, 2, 1, 3, 2}, {2, 3, 2, 3, 2, 3, 2, 3}, {3, 2, 3, 2, 3, 2, 3, 5}};

TEST_F(AxisHigherRanks, Int32SumOverEverySubsetOfAxes) {
  sweep_every_subset<op::sum, std::int32_t>(higher_rank_shapes, "higher-ranks");
}

TEST_F(AxisHigherRanks, FloatArgmaxOverEverySubsetOfAxes) {
  sweep_every_subset<op::argmax, float>(higher_rank_shapes, "higher-ranks-argmax");
}

TEST_F(AxisHigherRanks, ScalarInputIsOneOutput) {
  // Rank 0: one element, no axes to name. The output is the element, in the accumulator type.
  const device_input<std::int32_t> input(std::vector<std::int32_t>{-7});
  expect_axes<op::sum>(input, {}, {}, cudaStream_t{});
  expect_axes<op::argmin>(input, {}, {}, cudaStream_t{});
  const device_input<__half> half(std::vector<__half>{__float2half(1.5f)});
  expect_axes<op::prod>(half, {}, {}, cudaStream_t{});
}

template <typename T>
class AxisFullRange : public gpu_test {};
using wrapping_types = ::testing::Types<std::int32_t, std::int64_t, std::uint64_t, std::uint32_t>;
TYPED_TEST_SUITE(AxisFullRange, wrapping_types, type_names);

TYPED_TEST(AxisFullRange, SumsWrapExactlyInTheAccumulator) {
  // Every bit random: 64-bit sums wrap modulo 2^64 within a few elements, and must still be exact.
  sweep_every_subset<op::sum, TypeParam>({{1025}, {33, 31}, {3, 1, 257}, {5, 7, 31, 33}, {4099, 3}}, "full-range",
                                         value_mode::full_range);
}

}  // namespace
