// The sizes every reduction is tested at. Endpoints where off-by-one errors live (0, 1, a
// warp, a block, two blocks' worth of elements, each +-1), primes (no power of two divides
// them, so every tail is ragged), 2^20 +- 1, and random sizes from a fixed seed.
//
// WARPFOLD_TEST_QUICK=1 (used under compute-sanitizer, which is 10-100x slower) keeps only the
// sizes up to 70000 and two random ones below that.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold_test {

bool quick_mode();

// Sorted, no duplicates.
std::vector<std::int64_t> standard_sizes();

// The tests a sanitizer should skip: run them with a name containing "Large", which the
// sanitizer runs filter out with --gtest_filter=-*Large*.
std::vector<std::int64_t> large_sizes();  // 10^8 + 7

// Above 2^31 elements: catches 32-bit index arithmetic. 8.6 GB as int32.
constexpr std::int64_t beyond_int32_size = (std::int64_t{1} << 31) + 17;

// `count` sizes drawn log-uniformly from [low, high] with a fixed seed.
std::vector<std::int64_t> random_sizes(int count, std::int64_t low, std::int64_t high, std::uint64_t seed);

// Keeps the sizes <= limit (for tests that loop over many configurations per size).
std::vector<std::int64_t> sizes_up_to(const std::vector<std::int64_t>& sizes, std::int64_t limit);

// "n_1009": for INSTANTIATE_TEST_SUITE_P's name generator.
std::string size_name(std::int64_t n);
struct size_param_name {
  template <typename ParamInfo>
  std::string operator()(const ParamInfo& info) const { return size_name(info.param); }
};

}  // namespace warpfold_test
