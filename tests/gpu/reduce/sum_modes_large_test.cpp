// The exact and reproducible sums beyond 2^31 elements (64-bit indexing), on constant data
// whose exact sum long double holds: n copies of one value v, so the sum is n * v, which
// has at most 24 + 32 significant bits. Skipped by sanitizer runs (the suite name contains
// "Large").
#include <cstring>

#include <warpfold/reduce.hpp>
#include <warpfold/sum_modes/grid_override.hpp>

#include "reduce_test_util.hpp"

namespace {

using namespace warpfold_test;

class SumModesLarge : public gpu_test {};

template <typename T>
void check_constant_input(unsigned char byte) {
  const std::int64_t n = beyond_int32_size;
  device_array<T> d(static_cast<std::size_t>(n));
  warpfold_test::fill_device_bytes(d.data(), byte, static_cast<std::size_t>(n) * sizeof(T));
  T v;
  std::memset(static_cast<void*>(&v), byte, sizeof(T));
  const float expected = static_cast<float>(static_cast<long double>(n) * to_real(v));  // rounds to nearest even
  const float exact = warpfold::sum_exact(d.data(), n);
  EXPECT_EQ(std::memcmp(&exact, &expected, sizeof(float)), 0) << exact << " vs " << expected;
  const float reproducible = warpfold::sum_reproducible(d.data(), n);
  warpfold::testing::scoped_sum_grid other_grid(37);
  const float again = warpfold::sum_reproducible(d.data(), n);
  EXPECT_EQ(std::memcmp(&reproducible, &again, sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(&exact, &expected, sizeof(float)), 0);
}

TEST_F(SumModesLarge, FloatAbove2To31Elements) { check_constant_input<float>(0x3f); }
TEST_F(SumModesLarge, HalfAbove2To31Elements) { check_constant_input<__half>(0x3c); }

}  // namespace
