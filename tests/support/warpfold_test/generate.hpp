// Deterministic, varied test input. Element i is a pure function of (seed, i): a splitmix64
// hash of the index, mapped to the type. So any slice can be generated on its own (threads
// fill disjoint slices; a 2^31-element input is made chunk by chunk and can be regenerated
// later to check the device copy), and a failure reproduces from the seed printed with it.
// Never all zeros or ones: sums of the wrong elements, or of too many, come out different.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "warpfold_test/types.hpp"

namespace warpfold_test {

enum class value_mode {
  // Integers: uniform in [-1000, 1000] (signed) or [0, 2000] (unsigned); 8-bit types use
  //   [-100, 100] and [0, 200]. Sums stay far from overflow in 32 bits up to ~2^21 elements.
  // Floats: uniform in [-1, 2): both signs, mean 0.5, so sums grow with n and cancel a bit.
  moderate,
  // Integers: every bit random, uniform over the whole type: int32 sums wrap within a few
  //   elements, which is what the ladder's modulo-2^32 contract is about.
  // Floats: random sign times 2^u, u uniform in [-16, 16] (half types: [-8, 8]): magnitudes
  //   spread over ten decades, with heavy cancellation.
  full_range,
};

const char* mode_name(value_mode mode);

// 64-bit hash of one counter (splitmix64's output function).
std::uint64_t splitmix64(std::uint64_t x);

// Element `index` of the sequence (seed, mode).
template <typename T>
T value_at(std::uint64_t seed, std::int64_t index, value_mode mode);

// out[j] = value_at(seed, first_index + j, mode) for j < count. Single-threaded.
template <typename T>
void fill_values(T* out, std::int64_t count, std::uint64_t seed, std::int64_t first_index, value_mode mode);

// The first n values of (seed, mode); uses all cores for large n (the result does not depend
// on the number of threads).
template <typename T>
std::vector<T> make_values(std::int64_t n, std::uint64_t seed, value_mode mode = value_mode::moderate);

// A seed for one test input, derived from a base seed (WARPFOLD_TEST_SEED if set, else a
// fixed constant) and whatever distinguishes the input (type, size, offset...).
std::uint64_t seed_for(const std::string& what, std::int64_t n);
std::uint64_t base_seed();

// The parent array of a random view: `rank` extents, each max(1, extra + floor(2^u)) with u
// uniform in [0, max_log2) (log-uniform, odd and prime extents included), halved until the
// product stays within max_elements; row-major strides; and the product.
struct parent_array {
  std::vector<std::int64_t> extents;
  std::vector<std::int64_t> strides;
  std::int64_t elements = 1;
};
parent_array random_parent(std::mt19937_64& random, int rank, double max_log2, std::int64_t max_elements,
                           std::int64_t extra = 0);

// Runs body(index, begin, end) for each `chunk`-sized piece [begin, end) of [0, count), on all
// cores (at most `max_threads` if > 0). Piece `index` covers [index * chunk, ...), so a caller
// that stores per-piece results by index and combines them in order gets the same answer
// whatever the number of threads.
void parallel_for_chunks(std::int64_t count, std::int64_t chunk,
                         const std::function<void(std::int64_t index, std::int64_t begin, std::int64_t end)>& body,
                         int max_threads = 0);

}  // namespace warpfold_test
