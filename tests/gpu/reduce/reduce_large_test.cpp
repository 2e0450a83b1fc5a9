// Sizes a sanitizer run skips (the suite name contains "Large"): above 2^31 elements, which
// proves 64-bit indexing, and 10^8 + 7.
#include "reduce_test_util.hpp"

namespace {

using namespace warpfold_test;

class ReduceLarge : public gpu_test {};

TEST_F(ReduceLarge, Int32SumAbove2To31ElementsIsExact) {
  const generated_device_input<std::int32_t, std::int64_t> input(beyond_int32_size, seed_for("large-i32", beyond_int32_size),
                                                                  value_mode::moderate);
  EXPECT_TRUE(input.expected().matches(warpfold::sum(input.data(), input.size())));
  EXPECT_TRUE(input.unchanged());
}

TEST_F(ReduceLarge, FloatAndDoubleAt10To8Plus7) {
  for (std::int64_t n : large_sizes()) {
    const device_input<float> f(make_values<float>(n, seed_for("large-f32", n)));
    EXPECT_TRUE(expect_sum<float>(f.host_values(), n).matches(warpfold::sum(f.data(), n)));
    const expected_extrema<float> e = expect_extrema(f.host_values(), n);
    EXPECT_EQ(warpfold::argmax(f.data(), n).index, e.argmax);
    EXPECT_TRUE(f.unchanged());
    const device_input<double> d(make_values<double>(n, seed_for("large-f64", n)));
    EXPECT_TRUE(expect_sum<double>(d.host_values(), n).matches(warpfold::sum(d.data(), n)));
  }
}

}  // namespace
