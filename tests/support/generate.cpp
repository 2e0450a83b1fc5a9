// Counter-based input generation: element i is a hash of (seed, i), so slices can be made
// independently and in parallel, and the same seed always gives the same input.
#include "warpfold_test/generate.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

namespace warpfold_test {

const char* mode_name(value_mode mode) { return mode == value_mode::moderate ? "moderate" : "full-range"; }

std::uint64_t splitmix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

namespace {

constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ull;

template <typename T>
T largest_below_two() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return std::nextafter(T(2), T(0));
  else return from_double<T>(1.96875);  // representable in half and bfloat16
}

}  // namespace

template <typename T>
T value_at(std::uint64_t seed, std::int64_t index, value_mode mode) {
  const std::uint64_t h = splitmix64(seed + (static_cast<std::uint64_t>(index) + 1) * golden_gamma);
  if constexpr (is_integer_v<T>) {
    if (mode == value_mode::full_range) return static_cast<T>(h);
    const std::uint64_t span = sizeof(T) == 1 ? 201 : 2001;  // [-100, 100] or [-1000, 1000]
    const std::int64_t offset = std::is_signed_v<T> ? static_cast<std::int64_t>(span / 2) : 0;
    return static_cast<T>(static_cast<std::int64_t>(h % span) - offset);
  } else {
    if (mode == value_mode::moderate) {
      const double unit = static_cast<double>(h >> 11) * 0x1p-53;  // [0, 1)
      T x = from_double<T>(-1.0 + 3.0 * unit);
      if (to_real(x) >= 2.0L) x = largest_below_two<T>();  // rounding can reach 2
      return x;
    }
    const int decades = is_half_like_v<T> ? 8 : 16;
    const int exponent = static_cast<int>((h >> 1) % (2 * decades + 1)) - decades;
    const double mantissa = 1.0 + static_cast<double>(h >> 12) * 0x1p-52;  // [1, 2)
    return from_double<T>(((h & 1) ? -1.0 : 1.0) * std::ldexp(mantissa, exponent));
  }
}

template <typename T>
void fill_values(T* out, std::int64_t count, std::uint64_t seed, std::int64_t first_index, value_mode mode) {
  for (std::int64_t j = 0; j < count; ++j) out[j] = value_at<T>(seed, first_index + j, mode);
}

template <typename T>
std::vector<T> make_values(std::int64_t n, std::uint64_t seed, value_mode mode) {
  std::vector<T> values(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  parallel_for_chunks(n, std::int64_t{1} << 20, [&](std::int64_t, std::int64_t begin, std::int64_t end) {
    fill_values(values.data() + begin, end - begin, seed, begin, mode);
  });
  return values;
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const char* text = std::getenv("WARPFOLD_TEST_SEED");
    return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 0) : 20261122ull;
  }();
  return seed;
}

std::uint64_t seed_for(const std::string& what, std::int64_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the description
  for (unsigned char c : what) h = (h ^ c) * 0x100000001b3ull;
  return splitmix64(base_seed() ^ splitmix64(h + static_cast<std::uint64_t>(n) * golden_gamma));
}

parent_array random_parent(std::mt19937_64& random, int rank, double max_log2, std::int64_t max_elements,
                           std::int64_t extra) {
  parent_array p;
  p.extents.resize(static_cast<std::size_t>(rank));
  for (std::int64_t& e : p.extents) {
    e = std::max<std::int64_t>(1, extra + static_cast<std::int64_t>(std::exp2(std::uniform_real_distribution<double>(0, max_log2)(random))));
    while (p.elements * e > max_elements && e > 1) e /= 2;
    p.elements *= e;
  }
  p.strides.assign(static_cast<std::size_t>(rank), 1);
  for (int a = rank - 2; a >= 0; --a) p.strides[a] = p.strides[a + 1] * p.extents[a + 1];
  return p;
}

void parallel_for_chunks(std::int64_t count, std::int64_t chunk,
                         const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& body,
                         int max_threads) {
  if (count <= 0) return;
  const std::int64_t pieces = (count + chunk - 1) / chunk;
  std::int64_t threads = std::max(1u, std::thread::hardware_concurrency());
  if (max_threads > 0) threads = std::min<std::int64_t>(threads, max_threads);
  threads = std::min(threads, pieces);

  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (;;) {
      const std::int64_t k = next.fetch_add(1);
      if (k >= pieces) return;
      try {
        body(k, k * chunk, std::min(count, (k + 1) * chunk));
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next.store(pieces);  // stop handing out work
      }
    }
  };
  std::vector<std::thread> helpers;
  for (std::int64_t t = 1; t < threads; ++t) helpers.emplace_back(worker);
  worker();
  for (std::thread& t : helpers) t.join();
  if (failure) std::rethrow_exception(failure);
}

#define WARPFOLD_TEST_INSTANTIATE(T)                                                                      \
  template T value_at<T>(std::uint64_t, std::int64_t, value_mode);                                        \
  template void fill_values<T>(T*, std::int64_t, std::uint64_t, std::int64_t, value_mode);               \
  template std::vector<T> make_values<T>(std::int64_t, std::uint64_t, value_mode);
WARPFOLD_TEST_INSTANTIATE(std::int8_t)
WARPFOLD_TEST_INSTANTIATE(std::int16_t)
WARPFOLD_TEST_INSTANTIATE(std::int32_t)
WARPFOLD_TEST_INSTANTIATE(std::int64_t)
WARPFOLD_TEST_INSTANTIATE(std::uint8_t)
WARPFOLD_TEST_INSTANTIATE(std::uint16_t)
WARPFOLD_TEST_INSTANTIATE(std::uint32_t)
WARPFOLD_TEST_INSTANTIATE(std::uint64_t)
WARPFOLD_TEST_INSTANTIATE(__half)
WARPFOLD_TEST_INSTANTIATE(__nv_bfloat16)
WARPFOLD_TEST_INSTANTIATE(float)
WARPFOLD_TEST_INSTANTIATE(double)
#undef WARPFOLD_TEST_INSTANTIATE

}  // namespace warpfold_test
