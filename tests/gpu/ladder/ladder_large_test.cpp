// Large inputs, in suites whose names contain "Large" so that sanitizer runs can leave them
// out (--gtest_filter=-*Large*):
// - 10^8 + 7 elements, every step x finisher x type: long grid-stride loops, many partials
//   for the finishers, and float error at a scale where a bad summation order shows;
// - 2^31 + 17 int32 elements (8.6 GB) for the grid-stride steps (7, 8, 9) with the last-block
//   finisher: any 32-bit index or element count wraps there, and the exact sum catches it.
#include "ladder_test_util.hpp"

namespace ladder_test {
namespace {

using warpfold_test::gpu_test;
using warpfold_test::gpu_test_with_param;
using warpfold_test::size_param_name;

class LadderLarge : public gpu_test_with_param<std::int64_t> {};

template <typename T>
void sweep_large(std::int64_t n) {
  const prepared_input<T> p("ladder-large", n, sweep_mode<T>);
  run_every_step_and_finisher(p);
  EXPECT_TRUE(p.input.unchanged_on_host());
}

TEST_P(LadderLarge, Int32) { sweep_large<std::int32_t>(GetParam()); }
TEST_P(LadderLarge, Float) { sweep_large<float>(GetParam()); }
TEST_P(LadderLarge, Double) { sweep_large<double>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sizes, LadderLarge, ::testing::ValuesIn(warpfold_test::large_sizes()), size_param_name{});

class LadderLargeBeyondInt32 : public gpu_test {};

TEST_F(LadderLargeBeyondInt32, GridStrideStepsWithLastBlock) {
  const std::int64_t n = warpfold_test::beyond_int32_size;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(std::int32_t);
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPFOLD_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < bytes + (std::size_t{1} << 30))
    GTEST_SKIP() << "needs " << (bytes >> 20) << " MiB of device memory plus 1 GiB, and only " << (free_bytes >> 20)
                 << " MiB are free";

  // Generated on the host on all cores, chunk by chunk, with the exact reference computed in
  // the same pass; the input never exists on the host as a whole.
  const warpfold_test::generated_device_input<std::int32_t, std::int32_t> input(
      n, warpfold_test::seed_for("ladder-beyond-int32", n), value_mode::full_range);
  for (step s : grid_stride_steps()) {
    SCOPED_TRACE(describe<std::int32_t>(s, finisher::last_block, warpfold::ladder::default_block_size, n));
    runner<std::int32_t> r(s, finisher::last_block);
    try {
      r.run(input.data(), n);
      EXPECT_TRUE(input.expected().matches(r.result()));
      EXPECT_EQ(r.launches(), 1);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw: " << e.what();
    }
    EXPECT_TRUE(input.unchanged());
  }
}

}  // namespace
}  // namespace ladder_test
