// Every op (sum, prod, min, max, argmin, argmax, and and/or/xor for integers) through its
// named function (sum_axes, ...), blocking and async, on int8, int32, uint64, half, bf16,
// float and double, over every subset of the axes of a shorter shape list, against the
// independent CPU reference. Each op gets inputs that keep it informative (values_for):
// quarter-rounded floats with many ties for argmin/argmax, values near 1 for products,
// sparse bits for and/or.
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

using extents_list = std::vector<std::vector<std::int64_t>>;

const extents_list op_shapes = {{0},       {1},        {1000},     {0, 5},      {5, 0},       {1, 1},
                                {7, 1},    {33, 31},   {31, 1025}, {1025, 31},  {64, 256},    {3, 1, 257},
                                {5, 7, 33}, {2, 3, 5, 7}, {3, 1, 33, 5}, {2, 0, 3, 4}};

// Op over every subset of the axes of every shape in op_shapes, both forms, alternating the
// default stream and a created one. Stops at the first shape with a failure.
template <typename Op, typename T>
void sweep_op() {
  owned_stream stream;
  std::size_t cases = 0;
  for (std::size_t i = 0; i < op_shapes.size(); ++i) {
    const std::vector<std::int64_t>& extents = op_shapes[i];
    const std::int64_t n = element_count(extents);
    const std::uint64_t seed = seed_for(std::string("ops/") + op_name<Op>() + "/" + type_name<T>() + shape_text(extents), n);
    SCOPED_TRACE(::testing::Message() << op_name<Op>() << " " << type_name<T>() << " " << shape_text(extents)
                                      << " seed = " << seed);
    const device_input<T> input(values_for<Op, T>(n, seed));
    bool ok = true;
    for (const std::vector<int>& axes : every_axis_subset(static_cast<int>(extents.size())))
      ok = expect_axes<Op>(input, extents, axes, i % 2 ? stream.get() : cudaStream_t{}, sweep_forms(cases++)) && ok;
    EXPECT_TRUE(input.unchanged());
    if (!ok) break;
  }
}

template <typename T>
class AxisOps : public gpu_test {};
TYPED_TEST_SUITE(AxisOps, op_element_types, type_names);

TYPED_TEST(AxisOps, Sum) { sweep_op<op::sum, TypeParam>(); }
TYPED_TEST(AxisOps, Prod) { sweep_op<op::prod, TypeParam>(); }
TYPED_TEST(AxisOps, Min) { sweep_op<op::min, TypeParam>(); }
TYPED_TEST(AxisOps, Max) { sweep_op<op::max, TypeParam>(); }
TYPED_TEST(AxisOps, Argmin) { sweep_op<op::argmin, TypeParam>(); }
TYPED_TEST(AxisOps, Argmax) { sweep_op<op::argmax, TypeParam>(); }

template <typename T>
class AxisBitwiseOps : public gpu_test {};
using integer_types = ::testing::Types<std::int8_t, std::uint16_t, std::int32_t, std::uint64_t>;
TYPED_TEST_SUITE(AxisBitwiseOps, integer_types, type_names);

TYPED_TEST(AxisBitwiseOps, BitAnd) { sweep_op<op::bit_and, TypeParam>(); }
TYPED_TEST(AxisBitwiseOps, BitOr) { sweep_op<op::bit_or, TypeParam>(); }
TYPED_TEST(AxisBitwiseOps, BitXor) { sweep_op<op::bit_xor, TypeParam>(); }

// The generic entry point names the op as a type; it must agree with the named functions.
class AxisGenericEntryPoint : public gpu_test {};

TEST_F(AxisGenericEntryPoint, ReduceAxesWithAnOpTypeMatchesTheReference) {
  const std::vector<std::int64_t> extents = {33, 7, 31};
  const std::int64_t n = element_count(extents);
  const device_input<std::int16_t> input(make_values<std::int16_t>(n, seed_for("generic", n)));
  const layout l = make_layout(extents, {0, 2});
  const std::vector<std::int64_t> sums = warpfold::reduce_axes<op::sum>(input.data(), to_shape(extents), {0, 2});
  EXPECT_TRUE(matches_all(expected_for<op::sum>(input.host_values(), l), sums, l));
  const std::vector<warpfold::value_index<std::int16_t>> lows =
      warpfold::reduce_axes<op::argmin>(input.data(), to_shape(extents), {0, 2});
  EXPECT_TRUE(matches_all(expected_for<op::argmin>(input.host_values(), l), lows, l));

  const sentinel_output<std::int16_t> out(l.outputs());
  warpfold::reduce_axes<op::bit_or>(input.data(), to_shape(extents), {0, 2}, out.data(), out.size(), cudaStream_t{});
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(matches_all(expected_for<op::bit_or>(input.host_values(), l), out.download(l.outputs()), l));
  EXPECT_TRUE(input.unchanged());
}

}  // namespace
