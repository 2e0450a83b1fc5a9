// warpfold::reduce with a user's functor and init: the generic entry point. This is a .cu
// file because the functor must be compiled for the device, as in a user's own code.
#include <warpfold/warpfold.cuh>

#include <cmath>
#include <vector>

#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;

struct max_magnitude {
  __host__ __device__ float operator()(float a, float b) const { return fmaxf(fabsf(a), fabsf(b)); }
};

struct plus_int32 {
  __host__ __device__ std::int32_t operator()(std::int32_t a, std::int32_t b) const { return a + b; }
};

class ReduceCustomOp : public gpu_test {};

TEST_F(ReduceCustomOp, UserFunctorWithInitMatchesTheCpu) {
  for (std::int64_t n : standard_sizes()) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const std::vector<float> values = make_values<float>(n, seed_for("custom", n));
    const device_input<float> input(values);
    float expected = 0.25f;  // init enters once
    for (float x : values) expected = std::fmax(std::fabs(expected), std::fabs(x));
    EXPECT_EQ(warpfold::reduce(input.data(), n, max_magnitude{}, 0.25f), expected);
    EXPECT_TRUE(input.unchanged());
    if (HasFailure()) break;
  }
}

TEST_F(ReduceCustomOp, AsyncFormAndAWiderAccumulator) {
  // int8 summed into int32 with the user's own plus: the accumulator is whatever init is.
  const std::int64_t n = 1000003;
  const std::vector<std::int8_t> values = make_values<std::int8_t>(n, seed_for("custom-i8", n));
  const device_input<std::int8_t> input(values);
  std::int32_t expected = 7;
  for (std::int8_t x : values) expected += x;
  device_array<std::int32_t> out(1);
  warpfold::reduce(input.data(), n, plus_int32{}, std::int32_t{7}, out.data(), cudaStream_t{});
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  std::int32_t got;
  copy_to_host(&got, out.data(), 1);
  EXPECT_EQ(got, expected);
}

}  // namespace
