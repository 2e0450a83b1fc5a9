// The size lists. Kept in one place so that the ladder tests and the production API tests
// cover the same endpoints.
#include "warpfold_test/sizes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "warpfold_test/generate.hpp"

namespace warpfold_test {

bool quick_mode() {
  static const bool quick = [] {
    const char* text = std::getenv("WARPFOLD_TEST_QUICK");
    return text != nullptr && std::string(text) == "1";
  }();
  return quick;
}

std::vector<std::int64_t> random_sizes(int count, std::int64_t low, std::int64_t high, std::uint64_t seed) {
  std::vector<std::int64_t> sizes;
  const double log_low = std::log(static_cast<double>(low)), log_high = std::log(static_cast<double>(high));
  for (int i = 0; i < count; ++i) {
    const double unit = static_cast<double>(splitmix64(seed + static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull) >> 11) * 0x1p-53;
    const auto n = static_cast<std::int64_t>(std::exp(log_low + unit * (log_high - log_low)));
    sizes.push_back(std::clamp(n, low, high));
  }
  return sizes;
}

std::vector<std::int64_t> sizes_up_to(const std::vector<std::int64_t>& sizes, std::int64_t limit) {
  std::vector<std::int64_t> kept;
  for (std::int64_t n : sizes)
    if (n <= limit) kept.push_back(n);
  return kept;
}

std::vector<std::int64_t> standard_sizes() {
  constexpr std::int64_t quick_limit = 70000;
  std::vector<std::int64_t> sizes = {
      0, 1, 2,                               // empty, single, pair
      31, 32, 33,                            // one warp
      255, 256, 257,                         // one block of 256
      511, 512, 513,                         // one block of 512; two blocks' worth for steps 4-6 at 256
      1023, 1024, 1025,                      // two blocks' worth at 512; one vector tile at 256
      1009, 4099, 65521, 1000003,            // primes: ragged tails everywhere
      (1 << 20) - 1, (1 << 20) + 1,          // around a power of two, many blocks
  };
  const std::uint64_t seed = splitmix64(base_seed() ^ 0x51e5ull);
  std::vector<std::int64_t> random = quick_mode() ? random_sizes(2, 3, quick_limit, seed)
                                                  : random_sizes(6, 3, 3000000, seed);
  sizes.insert(sizes.end(), random.begin(), random.end());
  if (quick_mode()) sizes = sizes_up_to(sizes, quick_limit);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<std::int64_t> large_sizes() { return {100000007}; }

std::string size_name(std::int64_t n) { return "n_" + std::to_string(n); }

}  // namespace warpfold_test
