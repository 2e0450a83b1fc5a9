// Shapes big enough to take the multi-block paths: rows split over several blocks, columns
// split along their rows, few long outputs and many short ones, each along every axis, with
// their partials combined in one launch. WARPFOLD_TEST_QUICK=1 (the sanitizer runs, which
// look for races in exactly these paths) scales every shape down to a few hundred thousand
// elements. The suite whose name contains "Large" (skipped under the sanitizers) goes beyond
// 2^31 elements, which proves 64-bit offsets in the row and column kernels.
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

struct split_case {
  std::vector<std::int64_t> extents;
  std::vector<std::vector<int>> axis_sets;
};

std::vector<split_case> split_cases() {
  const bool quick = quick_mode();
  const std::int64_t long_axis = quick ? 65539 : (std::int64_t{1} << 20) + 3;
  const std::int64_t prime = quick ? 100003 : 1000003;
  return {
      {{16, long_axis}, {{0}, {1}}},
      {{long_axis, 16}, {{0}, {1}}},
      {{3, prime}, {{0}, {1}}},
      {{prime, 3}, {{0}, {1}}},
      {{2, 3, quick ? 10007 : 100003}, {{0, 2}, {1, 2}, {0}, {2}}},
      {{quick ? 1025 : 4097, quick ? 1027 : 4099}, {{0}, {1}, {0, 1}}},
      {{quick ? std::int64_t{1} << 16 : std::int64_t{1} << 22, 4}, {{0}, {1}}},
      {{64, quick ? std::int64_t{1} << 12 : std::int64_t{1} << 18}, {{0}, {1}}},
      {{5, 1, quick ? 20011 : 200003, 3}, {{2}, {0, 2}, {2, 3}}},
  };
}

template <typename T>
class AxisSplitPaths : public gpu_test {};
using split_types = ::testing::Types<float, std::int32_t, double>;
TYPED_TEST_SUITE(AxisSplitPaths, split_types, type_names);

TYPED_TEST(AxisSplitPaths, SumAndArgmaxAlongEachAxis) {
  using T = TypeParam;
  owned_stream stream;
  for (const split_case& c : split_cases()) {
    const std::int64_t n = element_count(c.extents);
    const std::uint64_t seed = seed_for(std::string("split/") + type_name<T>() + shape_text(c.extents), n);
    SCOPED_TRACE(::testing::Message() << type_name<T>() << " " << shape_text(c.extents) << " seed = " << seed);
    // Ties everywhere (quarter-rounded floats, integers in [-1000, 1000]): argmax must find
    // the first of many equal maxima across blocks.
    const device_input<T> input(values_with_ties<T>(n, seed));
    bool ok = true;
    for (const std::vector<int>& axes : c.axis_sets) {
      ok = expect_axes<op::sum>(input, c.extents, axes, stream.get()) && ok;
      ok = expect_axes<op::argmax>(input, c.extents, axes, cudaStream_t{}, forms::async) && ok;
      if constexpr (std::is_same_v<T, std::int32_t>)
        ok = expect_axes<op::min>(input, c.extents, axes, stream.get(), forms::blocking) && ok;
    }
    EXPECT_TRUE(input.unchanged());
    if (!ok) break;
  }
}

class AxisSplitPathsHalf : public gpu_test {};

TEST_F(AxisSplitPathsHalf, HalfSumsAccumulateInFloatAcrossBlocks) {
  // 2^20 + 3 halves in [0, 1) per output: a half accumulator would stop growing at 2048 and
  // overflow at 65504; a float one is within the bound.
  const std::int64_t long_axis = quick_mode() ? 65539 : (std::int64_t{1} << 20) + 3;
  for (const std::vector<std::int64_t>& extents : {std::vector<std::int64_t>{4, long_axis},
                                                   std::vector<std::int64_t>{long_axis, 4}}) {
    const std::int64_t n = element_count(extents);
    std::vector<__half> values(static_cast<std::size_t>(n));
    const std::vector<double> u = make_values<double>(n, seed_for("half-split", n));
    for (std::int64_t i = 0; i < n; ++i) values[i] = __double2half((u[i] + 1.0) / 3.0);
    const device_input<__half> input(values);
    expect_axes<op::sum>(input, extents, {extents[0] == 4 ? 1 : 0}, cudaStream_t{});
    expect_axes<op::argmin>(input, extents, {extents[0] == 4 ? 1 : 0}, cudaStream_t{});
  }
}

// ---- beyond 2^31 elements ----

// Exact int64 sums of value_at<T>(seed, ·) over each output of a shape too big to lay out on
// the host: the reduced multi-index is decoded from its row-major number, on all cores.
template <typename T>
std::vector<warpfold_test::expected_sum<std::int64_t>> generated_sums(const std::vector<std::int64_t>& extents,
                                                                        const std::vector<int>& axes, std::uint64_t seed) {
  const int rank = static_cast<int>(extents.size());
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (int a : axes) reduced[a] = true;
  std::vector<std::int64_t> stride(static_cast<std::size_t>(rank), 1);
  for (int a = rank - 2; a >= 0; --a) stride[a] = stride[a + 1] * extents[a + 1];
  std::vector<int> kept_axes, reduced_axes;
  for (int a = 0; a < rank; ++a) (reduced[a] ? reduced_axes : kept_axes).push_back(a);
  auto offset_of = [&](const std::vector<int>& list, std::int64_t number) {
    std::int64_t offset = 0;
    for (int i = static_cast<int>(list.size()) - 1; i >= 0; --i) {
      offset += (number % extents[list[i]]) * stride[list[i]];
      number /= extents[list[i]];
    }
    return offset;
  };
  std::int64_t outputs = 1, count = 1;
  for (int a : kept_axes) outputs *= extents[a];
  for (int a : reduced_axes) count *= extents[a];

  std::vector<warpfold_test::expected_sum<std::int64_t>> result;
  constexpr std::int64_t chunk = std::int64_t{1} << 20;
  for (std::int64_t o = 0; o < outputs; ++o) {
    const std::int64_t base = offset_of(kept_axes, o);
    std::vector<warpfold_test::sum_accumulator<std::int64_t>> pieces(static_cast<std::size_t>((count + chunk - 1) / chunk));
    parallel_for_chunks(count, chunk, [&](std::int64_t k, std::int64_t begin, std::int64_t end) {
      std::vector<T> x(static_cast<std::size_t>(end - begin));
      for (std::int64_t r = begin; r < end; ++r)
        x[static_cast<std::size_t>(r - begin)] = value_at<T>(seed, base + offset_of(reduced_axes, r), value_mode::moderate);
      pieces[static_cast<std::size_t>(k)].add(x.data(), end - begin);
    });
    warpfold_test::sum_accumulator<std::int64_t> total;
    for (const auto& p : pieces) total.add(p);
    result.push_back(total.result());
  }
  return result;
}

class AxisLarge : public gpu_test {};

TEST_F(AxisLarge, Int8RowsAndColumnsBeyond2To31Elements) {
  // 2^31 + 20 int8 elements (2 GB), viewed as several shapes of the same memory.
  const std::int64_t n = (std::int64_t{1} << 31) + 20;
  const std::uint64_t seed = seed_for("large-axis-i8", n);
  const generated_device_input<std::int8_t, std::int64_t> input(n, seed, value_mode::moderate);
  struct view {
    std::vector<std::int64_t> extents;
    std::vector<int> axes;
  };
  for (const view& v : std::vector<view>{{{2, n / 2}, {1}},                // rows of 2^30 + 10
                                         {{n / 2, 2}, {0}},                // two columns of 2^30 + 10 rows
                                         {{4, n / 4}, {0, 1}},             // everything
                                         {{2, n / 4, 2}, {1}},             // columns at strides beyond 2^31
                                         {{n / 4, 2, 2}, {0, 2}}}) {      // runs of 2 at strides of 4
    SCOPED_TRACE(describe(v.extents, v.axes));
    const auto expected = generated_sums<std::int8_t>(v.extents, v.axes, seed);
    const std::vector<std::int64_t> got = warpfold::sum_axes(input.data(), to_shape(v.extents), to_axes(v.axes));
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t o = 0; o < got.size(); ++o) EXPECT_TRUE(expected[o].matches(got[o])) << "output " << o;
  }
  EXPECT_TRUE(input.unchanged());
}

}  // namespace
