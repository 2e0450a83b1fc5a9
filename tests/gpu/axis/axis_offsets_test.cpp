// Inputs at d_in + 1, + 2 and + 3 elements: rows and columns that are not 16-byte aligned even
// when their length is a multiple of the vector, over every axis subset, for sum, max and
// argmax on float, int8, double and half.
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

using extents_list = std::vector<std::vector<std::int64_t>>;

// Inputs that start 0-3 elements into their allocation: rows (and columns) that are not
// 16-byte aligned even when their length is a multiple of the vector. Odd offsets end at the
// allocation's end (memcheck sees a read past it); even ones have poisoned guards behind
// (NaN for floats, an odd value for integers), so a stray read changes the answer.
template <typename T>
class AxisOffsets : public gpu_test {};
using offset_types = ::testing::Types<float, std::int8_t, double, __half>;
TYPED_TEST_SUITE(AxisOffsets, offset_types, type_names);

TYPED_TEST(AxisOffsets, UnalignedInputsEveryAxisSubset) {
  using T = TypeParam;
  const extents_list shapes = {{64, 256}, {256, 64}, {5, 1024}, {1024, 8}, {3, 5, 4096}, {16, 16}, {2, 33, 64}};
  owned_stream stream;
  std::size_t cases = 0;
  for (const auto& extents : shapes) {
    const std::int64_t n = element_count(extents);
    for (std::int64_t offset = 0; offset <= 3; ++offset) {
      const std::uint64_t seed = seed_for(std::string("offsets/") + type_name<T>() + shape_text(extents), offset);
      SCOPED_TRACE(::testing::Message() << type_name<T>() << " " << shape_text(extents) << " at d_in + " << offset
                                        << ", seed = " << seed);
      const device_input<T> input(make_values<T>(n, seed), guard_layout{offset, offset % 2 ? 0 : 9});
      bool ok = true;
      for (const std::vector<int>& axes : every_axis_subset(static_cast<int>(extents.size()))) {
        ok = expect_axes<op::sum>(input, extents, axes, stream.get(), sweep_forms(cases++)) && ok;
        ok = expect_axes<op::max>(input, extents, axes, cudaStream_t{}, forms::blocking) && ok;
        ok = expect_axes<op::argmax>(input, extents, axes, stream.get(), forms::async) && ok;
      }
      EXPECT_TRUE(input.unchanged());
      if (!ok) return;
    }
  }
}

}  // namespace
