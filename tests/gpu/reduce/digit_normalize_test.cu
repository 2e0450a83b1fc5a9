// The exact sum's carry propagation (warp_normalize in sum_modes/superaccumulator.cuh) against a
// serial carry on the host. The warp passes carries lane to lane and, when a carry of +-1 keeps
// rippling, switches to a lookahead over the lanes; both paths must give every digit a serial
// ripple gives. The digit vectors are built to ripple: long runs of 2^30 - 1 under a +1, long
// runs of 0 under a -1, digits on the boundaries (-1, 0, 2^30 - 1, 2^30), large digits of both
// signs, and already normalized negatives. Digit counts: those of half, bfloat16, float and
// double, and rows that end exactly at, or just past, a warp's 32 lanes.
#include <warpfold/sum_modes/superaccumulator.cuh>

#include <cstdint>
#include <random>
#include <vector>

#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;
namespace sm = warpfold::sum_modes;

// One warp per digit vector.
template <int Digits>
__global__ void normalize_each_vector(long long* digits, int vectors) {
  const int vector = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (vector >= vectors) return;  // whole warps return together: blockDim.x is a multiple of 32
  sm::warp_normalize<Digits>(digits + static_cast<std::int64_t>(vector) * Digits);
}

// The reference: digit i hands floor(d / 2^30) to digit i + 1; the top digit keeps the sign.
void normalize_serially(long long* d, int digits) {
  for (int i = 0; i + 1 < digits; ++i) {
    const long long carry = d[i] >> sm::digit_bits;  // arithmetic shift: floor division
    d[i] -= carry * (1ll << sm::digit_bits);
    d[i + 1] += carry;
  }
}

enum class vector_kind { large_both_signs, sparse_negatives, boundaries, plus_one_chains, minus_one_chains, normalized_negative, count };

long long digit_of(vector_kind kind, int index, int digits, std::mt19937_64& random) {
  const long long base = 1ll << sm::digit_bits;
  const long long anywhere = static_cast<long long>(random() % (2 * base)) - base;
  if (index == digits - 1 && kind != vector_kind::normalized_negative) return static_cast<long long>(random() % 7) - 3;
  switch (kind) {
    case vector_kind::large_both_signs:  // as unnormalized partials leave them: up to 2^60
      return static_cast<long long>(random() >> 3) - (1ll << 60);
    case vector_kind::sparse_negatives:
      return random() % 8 == 0 ? -static_cast<long long>(random() % 1000) : 0;
    case vector_kind::boundaries: {
      const long long pick[] = {0, base - 1, -1, base};
      return pick[random() % 4];
    }
    case vector_kind::plus_one_chains:
      return random() % 16 == 0 ? anywhere : base - 1;
    case vector_kind::minus_one_chains:
      return random() % 16 == 0 ? anywhere : 0;
    default:  // normalized_negative: every digit in [0, 2^30), a top digit of -1
      return index == digits - 1 ? -1 : static_cast<long long>(random() % base);
  }
}

template <int Digits>
void check_against_serial_carries(int vectors, unsigned seed) {
  std::mt19937_64 random(seed);
  constexpr int kinds = static_cast<int>(vector_kind::count);
  std::vector<long long> digits(static_cast<std::size_t>(vectors) * Digits);
  for (int v = 0; v < vectors; ++v)
    for (int i = 0; i < Digits; ++i)
      digits[static_cast<std::size_t>(v) * Digits + i] = digit_of(static_cast<vector_kind>(v % kinds), i, Digits, random);

  device_array<long long> d_digits(digits.size());
  copy_to_device(d_digits.data(), digits.data(), digits.size());
  constexpr int warps_per_block = 8;
  normalize_each_vector<Digits><<<(vectors + warps_per_block - 1) / warps_per_block, warps_per_block * 32>>>(d_digits.data(), vectors);
  WARPFOLD_TEST_CUDA(cudaGetLastError());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<long long> got(digits.size());
  copy_to_host(got.data(), d_digits.data(), got.size());

  int failures = 0;
  for (int v = 0; v < vectors && failures < 5; ++v) {
    long long* expected = digits.data() + static_cast<std::size_t>(v) * Digits;
    normalize_serially(expected, Digits);
    for (int i = 0; i < Digits; ++i)
      if (got[static_cast<std::size_t>(v) * Digits + i] != expected[i]) {
        ADD_FAILURE() << Digits << " digits, vector " << v << " (kind " << v % kinds << "), digit " << i << ": got "
                      << got[static_cast<std::size_t>(v) * Digits + i] << ", expected " << expected[i];
        ++failures;
        break;
      }
  }
}

class DigitNormalize : public gpu_test {};

TEST_F(DigitNormalize, MatchesSerialCarriesForEveryValueType) {
  check_against_serial_carries<sm::superaccumulator_format<double>::digits>(30000, 1);
  check_against_serial_carries<sm::superaccumulator_format<float>::digits>(30000, 2);
  check_against_serial_carries<sm::superaccumulator_format<__nv_bfloat16>::digits>(6000, 3);
  check_against_serial_carries<sm::superaccumulator_format<__half>::digits>(6000, 4);
}

TEST_F(DigitNormalize, MatchesSerialCarriesAtTheEdgesOfAWarpsRows) {
  check_against_serial_carries<31>(6000, 5);
  check_against_serial_carries<32>(6000, 6);
  check_against_serial_carries<33>(6000, 7);
  check_against_serial_carries<64>(6000, 8);
  check_against_serial_carries<65>(6000, 9);
}

}  // namespace
