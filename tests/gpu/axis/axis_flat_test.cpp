// The flat kernels: [R, C] arrays whose rows are 1, 2, 4, 8, 16 or 32 16-byte vectors, along
// dim 1 (flat_rows_kernel) and dim 0 (flat_columns_kernel), for every op on every op type.
// Row lengths of 64 vectors, and rows that are not whole vectors, sit on either side of the
// boundary and take the other kernels. R runs from 1 to a few thousand (a prime), so the
// groups of lanes, the grid's last partial step and several blocks' partials are all met;
// [B, R, C] arrays reduced along their last axis are contiguous rows too, and along the
// middle axis they are column tiles, not one matrix.
#include <cstring>
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

template <typename T>
std::vector<std::vector<std::int64_t>> flat_shapes() {
  std::vector<std::vector<std::int64_t>> shapes;
  const std::int64_t per_vector = 16 / sizeof(T);
  for (std::int64_t row_vectors : {1, 2, 4, 8, 16, 32, 64}) {
    const std::int64_t columns = row_vectors * per_vector;
    for (std::int64_t rows : {1, 3, 257, 4099}) shapes.push_back({rows, columns});
    shapes.push_back({3, 5, columns});
  }
  shapes.push_back({1031, per_vector + 1});  // rows that are not whole vectors
  return shapes;
}

template <typename Op, typename T>
void sweep_flat() {
  owned_stream stream;
  std::size_t cases = 0;
  for (const std::vector<std::int64_t>& extents : flat_shapes<T>()) {
    const std::int64_t n = element_count(extents);
    const std::uint64_t seed = seed_for(std::string("flat/") + op_name<Op>() + "/" + type_name<T>() + shape_text(extents), n);
    SCOPED_TRACE(::testing::Message() << op_name<Op>() << " " << type_name<T>() << " " << shape_text(extents)
                                      << " seed = " << seed);
    const device_input<T> input(values_for<Op, T>(n, seed));
    const int last = static_cast<int>(extents.size()) - 1;
    bool ok = true;
    for (const std::vector<int>& axes : {std::vector<int>{last}, std::vector<int>{last - 1}}) {
      const cudaStream_t on = cases % 2 ? stream.get() : cudaStream_t{};
      ok = expect_axes<Op>(input, extents, axes, on, sweep_forms(cases)) && ok;
      ++cases;
    }
    EXPECT_TRUE(input.unchanged());
    if (!ok) break;
  }
}

template <typename T>
class AxisFlat : public gpu_test {};
TYPED_TEST_SUITE(AxisFlat, op_element_types, type_names);

TYPED_TEST(AxisFlat, Sum) { sweep_flat<op::sum, TypeParam>(); }
TYPED_TEST(AxisFlat, Prod) { sweep_flat<op::prod, TypeParam>(); }
TYPED_TEST(AxisFlat, Min) { sweep_flat<op::min, TypeParam>(); }
TYPED_TEST(AxisFlat, Max) { sweep_flat<op::max, TypeParam>(); }
TYPED_TEST(AxisFlat, Argmin) { sweep_flat<op::argmin, TypeParam>(); }
TYPED_TEST(AxisFlat, Argmax) { sweep_flat<op::argmax, TypeParam>(); }

template <typename T>
class AxisFlatBitwise : public gpu_test {};
using integer_types = ::testing::Types<std::int8_t, std::uint16_t, std::int32_t, std::uint64_t>;
TYPED_TEST_SUITE(AxisFlatBitwise, integer_types, type_names);

TYPED_TEST(AxisFlatBitwise, BitXor) { sweep_flat<op::bit_xor, TypeParam>(); }

// Rows of one vector write 16-byte vectors of results when the output is 16-byte aligned; an
// output one element further on takes the element-wise path. Both against the reference, and
// the element before the output stays as it was.
class AxisFlatOutput : public gpu_test {};

TEST_F(AxisFlatOutput, OneVectorRowsIntoAlignedAndUnalignedOutputs) {
  const std::vector<std::int64_t> extents = {20011, 4};
  const std::int64_t n = element_count(extents);
  const device_input<float> input(make_values<float>(n, seed_for("flat/unaligned-output", n)));
  const layout l = make_layout(extents, {1});
  const auto expected = expected_for<op::sum>(input.host_values(), l);
  for (std::int64_t shift : {0, 1, 3}) {
    SCOPED_TRACE(::testing::Message() << "output at element " << shift);
    const sentinel_output<float> out(shift + l.outputs());
    warpfold::sum_axes(input.data(), to_shape(extents), {1}, out.data() + shift, l.outputs(), cudaStream_t{});
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
    const std::vector<float> all = out.download(shift + l.outputs());
    EXPECT_TRUE(matches_all(expected, std::vector<float>(all.begin() + shift, all.end()), l));
    std::vector<unsigned char> before(static_cast<std::size_t>(shift) * sizeof(float));
    std::memcpy(before.data(), all.data(), before.size());
    for (unsigned char byte : before) EXPECT_EQ(byte, sentinel_byte);
  }
  EXPECT_TRUE(input.unchanged());
}

}  // namespace
