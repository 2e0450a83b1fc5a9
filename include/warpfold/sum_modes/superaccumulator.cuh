// A fixed-point number wide enough to hold any sum of the values of one float type exactly:
// the "superaccumulator" of the exact sum (Kulisch's long accumulator, kept in carry-save
// form). Every float is an integer multiple of the type's smallest subnormal and smaller than
// 2^(max exponent + 1), so a sum of up to 2^64 of them is an integer of a few hundred bits
// (f32) or about two thousand bits (f64) in units of that subnormal. Integer additions are
// exact and associative: the total is the same whatever order blocks and atomics land in.
//
// Layout: `digits` signed 64-bit words, word i worth 2^(lowest + 30 i). Each addition puts at
// most 30 bits into a word, so a word absorbs 2^33 additions before it could overflow, far
// more than one block ever makes; carries are only propagated (warp_normalize) when a sum is
// rounded, or when a block of a large grid is done. A block keeps one in shared memory and
// adds to it with shared atomics.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>
#include <cstdint>

#include "warpfold/config.hpp"

namespace warpfold::sum_modes {

constexpr int digit_bits = 30;
constexpr long long digit_mask = (1ll << digit_bits) - 1;

// The exponents that bound the values of T: each is a multiple of 2^lowest and below 2^highest.
template <typename T> struct value_range;
template <> struct value_range<__half> { static constexpr int lowest = -24, highest = 16; };
template <> struct value_range<__nv_bfloat16> { static constexpr int lowest = -133, highest = 128; };
template <> struct value_range<float> { static constexpr int lowest = -149, highest = 128; };
template <> struct value_range<double> { static constexpr int lowest = -1074, highest = 1024; };

// Digits for sums of up to 2^64 values of T, plus one for the sign.
template <typename T>
struct superaccumulator_format {
  static constexpr int lowest = value_range<T>::lowest;
  static constexpr int digits = (value_range<T>::highest + 64 - lowest) / digit_bits + 2;
};

// Adds v * 2^exponent, an exact multiple of 2^Lowest, to the digits with atomics (any thread,
// any number of threads at once). v must not be INT64_MIN.
template <int Lowest>
WARPFOLD_DEVICE void add_scaled(long long* digits, long long v, int exponent) {
  if (v == 0) return;
  if (exponent < Lowest) {  // v carries zero bits below 2^Lowest: drop them
    const int drop = Lowest - exponent;
    v = drop >= 63 ? 0 : v >> drop;
    exponent = Lowest;
    if (v == 0) return;
  }
  const int position = exponent - Lowest;
  const int first = position / digit_bits;
  const bool negative = v < 0;
  const unsigned long long magnitude = negative ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
  unsigned __int128 wide = static_cast<unsigned __int128>(magnitude) << (position % digit_bits);  // below 2^92
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const unsigned long long d = static_cast<unsigned long long>(wide) & static_cast<unsigned long long>(digit_mask);
    if (d != 0) atomicAdd(reinterpret_cast<unsigned long long*>(digits + first + j), negative ? 0ull - d : d);
    wide >>= digit_bits;
  }
}

// Adds sum_k v[k] * 2^exponent[k], each an exact multiple of 2^Lowest, with one atomic per
// digit touched instead of up to four per term: lane j gathers the 30-bit pieces that fall
// into digit (lowest digit touched + j). Every lane of the warp calls it with the same terms,
// which must touch at most 32 digits. No v[k] may be INT64_MIN.
template <int Lowest, int Terms>
WARPFOLD_DEVICE void warp_add_scaled(long long* digits, const long long (&v)[Terms], const int (&exponent)[Terms]) {
  int first_digit[Terms];
  int shift[Terms];
  unsigned long long magnitude[Terms];
  int lowest_digit = INT_MAX;
#pragma unroll
  for (int k = 0; k < Terms; ++k) {
    long long value = v[k];
    int e = exponent[k];
    if (e < Lowest) {  // no bits below 2^Lowest: drop the zeros
      const int drop = Lowest - e;
      value = drop >= 63 ? 0 : value >> drop;
      e = Lowest;
    }
    magnitude[k] = value < 0 ? 0ull - static_cast<unsigned long long>(value) : static_cast<unsigned long long>(value);
    if (value < 0) shift[k] = -1 - (e - Lowest) % digit_bits;  // the sign rides in the shift's sign
    else shift[k] = (e - Lowest) % digit_bits;
    first_digit[k] = (e - Lowest) / digit_bits;
    if (value != 0 && first_digit[k] < lowest_digit) lowest_digit = first_digit[k];
  }
  if (lowest_digit == INT_MAX) return;
  const int lane = threadIdx.x % 32;
  const int digit = lowest_digit + lane;
  long long mine = 0;
#pragma unroll
  for (int k = 0; k < Terms; ++k) {
    const int piece = digit - first_digit[k];
    if (magnitude[k] == 0 || piece < 0 || piece > 3) continue;
    const bool negative = shift[k] < 0;
    const int s = negative ? -1 - shift[k] : shift[k];
    const unsigned __int128 wide = static_cast<unsigned __int128>(magnitude[k]) << s;
    const long long d = static_cast<long long>(static_cast<unsigned long long>(wide >> (piece * digit_bits)) & digit_mask);
    mine += negative ? -d : d;
  }
  if (mine != 0) atomicAdd(reinterpret_cast<unsigned long long*>(digits + digit), static_cast<unsigned long long>(mine));
}

// Adds a finite double that is an exact multiple of 2^Lowest.
template <int Lowest>
WARPFOLD_DEVICE void add_double(long long* digits, double x) {
  const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(x));
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  long long mantissa = static_cast<long long>(bits & ((1ull << 52) - 1));
  if (biased != 0) mantissa |= 1ll << 52;
  const int exponent = (biased != 0 ? biased : 1) - 1075;
  add_scaled<Lowest>(digits, (bits >> 63) != 0 ? -mantissa : mantissa, exponent);
}

// A warp holds digits in registers as rows: lane l keeps digits l, l + 32, ...
template <int Digits>
inline constexpr int digit_rows = (Digits + 31) / 32;

// Propagates carries so that every digit but the top one is in [0, 2^30); the top one holds
// the sign. Every lane of the warp calls it.
//
// Each pass hands every digit's carry to its neighbour with shuffles. That ends in two or
// three passes for most sums, but a carry of +-1 ripples one digit per pass: a negative sum,
// or digits of both signs, send a borrow of -1 through every zero digit up to the top (up to
// 73 passes for double). So after `plain_carry_passes` passes, once every carry is within
// -1 .. +1 (every digit then in [-1, 2^30]), the rest is a carry-lookahead: each digit's carry
// out is a function of the carry it gets (-1, 0 or +1 in; -1, 0 or +1 out), and the carry into
// every digit is the composition of those below it, a prefix scan over the lanes (five rounds
// of shuffles a row). Short ripples, most positive sums, end in the plain passes: a lookahead
// from the first pass made positive double sums about 1 us slower (H100, 2026-11-25).
inline constexpr int plain_carry_passes = 4;

template <int Digits>
WARPFOLD_DEVICE void warp_pass_carries(long long (&d)[digit_rows<Digits>], long long (&carry)[digit_rows<Digits>]) {
  constexpr int rows = digit_rows<Digits>;
  const int lane = threadIdx.x % 32;
  long long from_last_row = 0;
#pragma unroll
  for (int r = 0; r < rows; ++r) {
    const long long from_left = __shfl_up_sync(0xffffffffu, carry[r], 1);
    const long long wrapped = __shfl_sync(0xffffffffu, carry[r], 31);  // lane 31's carry goes to the next row
    d[r] += lane == 0 ? from_last_row : from_left;
    from_last_row = wrapped;
  }
}

// What a digit t in [-1, 2^30] passes on for each carry it gets: out(c) = floor((t + c) / 2^30)
// for c = -1, 0, +1, as three fields of two bits (out + 1), field c + 1.
WARPFOLD_DEVICE unsigned carry_function(long long t) {
  constexpr long long base = 1ll << digit_bits;
  unsigned f = 0;
#pragma unroll
  for (int c = -1; c <= 1; ++c) {
    const long long v = t + c;
    const unsigned out = v < 0 ? 0u : (v >= base ? 2u : 1u);
    f |= out << (2 * (c + 1));
  }
  return f;
}
// `later` after `earlier`.
WARPFOLD_DEVICE unsigned compose_carry_functions(unsigned later, unsigned earlier) {
  unsigned f = 0;
#pragma unroll
  for (int x = 0; x < 3; ++x) f |= ((later >> (2 * ((earlier >> (2 * x)) & 3u))) & 3u) << (2 * x);
  return f;
}
WARPFOLD_DEVICE int apply_carry_function(unsigned f, int c) { return static_cast<int>((f >> (2 * (c + 1))) & 3u) - 1; }

template <int Digits>
WARPFOLD_DEVICE void warp_normalize_held(long long (&d)[digit_rows<Digits>]) {
  constexpr int rows = digit_rows<Digits>;
  constexpr long long base = 1ll << digit_bits;
  const int lane = threadIdx.x % 32;
  for (int pass = 1;; ++pass) {
    long long carry[rows];
    bool any = false;
    bool beyond_one = false;
#pragma unroll
    for (int r = 0; r < rows; ++r) {
      const bool top = r * 32 + lane >= Digits - 1;  // the top digit keeps its carry: the sign
      carry[r] = top ? 0 : d[r] >> digit_bits;
      d[r] -= carry[r] * base;
      any = any || carry[r] != 0;
      beyond_one = beyond_one || carry[r] > 1 || carry[r] < -1;
    }
    if (!__any_sync(0xffffffffu, any)) return;
    warp_pass_carries<Digits>(d, carry);
    if (pass >= plain_carry_passes && !__any_sync(0xffffffffu, beyond_one)) break;
  }
  // Every digit below the top is in [-1, 2^30] now. The carry into the row's first digit, then
  // the scan of the carry functions within each row.
  int into_row = 0;
#pragma unroll
  for (int r = 0; r < rows; ++r) {
    const bool top = r * 32 + lane >= Digits - 1;
    unsigned f = top ? 0x24u : carry_function(d[r]);  // the top (and past it): passes what it gets
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
      const unsigned below = __shfl_up_sync(0xffffffffu, f, delta);
      if (lane >= delta) f = compose_carry_functions(f, below);
    }
    // f: the carry out of this digit as a function of the carry into the row.
    const unsigned below = __shfl_up_sync(0xffffffffu, f, 1);
    const int in = lane == 0 ? into_row : apply_carry_function(below, into_row);
    if (!top) {
      const long long v = d[r] + in;
      d[r] = v - base * (v < 0 ? -1 : (v >= base ? 1 : 0));
    } else if (r * 32 + lane == Digits - 1) {
      d[r] += in;
    }
    into_row = __shfl_sync(0xffffffffu, apply_carry_function(f, into_row), 31);
  }
}

template <int Digits>
WARPFOLD_DEVICE void load_digits(const long long* digits, long long (&d)[digit_rows<Digits>]) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int r = 0; r < digit_rows<Digits>; ++r) d[r] = r * 32 + lane < Digits ? digits[r * 32 + lane] : 0;
}

// The same, on digits in memory (the result is in `digits` afterwards).
template <int Digits>
WARPFOLD_DEVICE void warp_normalize(long long* digits) {
  long long d[digit_rows<Digits>];
  load_digits<Digits>(digits, d);
  warp_normalize_held<Digits>(d);
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int r = 0; r < digit_rows<Digits>; ++r)
    if (r * 32 + lane < Digits) digits[r * 32 + lane] = d[r];
}

// Digit `index` (the same in every lane) of the digits a warp holds, in every lane.
template <int Rows>
WARPFOLD_DEVICE long long held_digit(const long long (&d)[Rows], int index) {
  long long mine = 0;
#pragma unroll
  for (int r = 0; r < Rows; ++r)
    if (r == index / 32) mine = d[r];
  return __shfl_sync(0xffffffffu, mine, index % 32);
}

// What a sum saw besides finite values, and whether every element was -0 (whose sum is -0).
enum special_flags : unsigned {
  saw_nan = 1u,
  saw_plus_infinity = 2u,
  saw_minus_infinity = 4u,
  saw_other_than_minus_zero = 8u,
};

template <typename Out> struct out_format;
template <> struct out_format<float> { static constexpr int precision = 24, lowest = -149; };
template <> struct out_format<double> { static constexpr int precision = 53, lowest = -1074; };

// The value of the digits, rounded once to Out (round to nearest, ties to even), with IEEE's
// rules for the special values: NaN if any element was NaN or both infinities appeared, else
// the infinity that appeared; a finite sum too large for Out becomes an infinity; an exact zero
// is +0 unless every element was -0. Every lane of one warp calls it, with the same flags, and
// gets the value; the digits need not be normalized and are not changed. The carries, the
// sign, the highest digit and the bits below the kept ones are found by the warp at once
// (shuffles and ballots): one thread walking double's 74 digits one by one took 1-3 us of a
// small sum's time (H100, 2026-11-25).
template <typename Out, int Lowest, int Digits>
WARPFOLD_DEVICE Out warp_round_to_nearest(const long long* digits, unsigned flags) {
  static_assert(Lowest >= out_format<Out>::lowest, "the output type must hold the inputs' smallest step");
  constexpr int rows = digit_rows<Digits>;
  constexpr long long base = 1ll << digit_bits;
  if ((flags & saw_nan) != 0 || ((flags & saw_plus_infinity) != 0 && (flags & saw_minus_infinity) != 0))
    return static_cast<Out>(__longlong_as_double(0x7ff8000000000000ll));
  if ((flags & saw_plus_infinity) != 0) return static_cast<Out>(__longlong_as_double(0x7ff0000000000000ll));
  if ((flags & saw_minus_infinity) != 0) return static_cast<Out>(__longlong_as_double(static_cast<long long>(0xfff0000000000000ull)));

  const int lane = threadIdx.x % 32;
  long long d[rows];
  load_digits<Digits>(digits, d);
  warp_normalize_held<Digits>(d);

  // A negative sum: V = sum of d_i 2^(30 i) (0 <= d_i < 2^30 below the top) plus t 2^(30 (D-1))
  // with t < 0. With L the lowest nonzero digit below the top, -V has the digits 0 below L,
  // 2^30 - d_L at L, 2^30 - 1 - d_i above it, and -t - 1 at the top (-t if there is no L):
  // normalized already, with no carry to pass along.
  const bool negative = held_digit(d, Digits - 1) < 0;
  if (negative) {
    int lowest = Digits - 1;
#pragma unroll
    for (int r = rows - 1; r >= 0; --r) {
      const unsigned nonzero = __ballot_sync(0xffffffffu, d[r] != 0 && r * 32 + lane < Digits - 1);
      if (nonzero != 0) lowest = r * 32 + __ffs(nonzero) - 1;
    }
#pragma unroll
    for (int r = 0; r < rows; ++r) {
      const int i = r * 32 + lane;
      if (i == Digits - 1) d[r] = -d[r] - (lowest < Digits - 1 ? 1 : 0);
      else if (i < Digits - 1) d[r] = i < lowest ? 0 : (i == lowest ? base - d[r] : base - 1 - d[r]);
    }
  }
  int top = -1;
#pragma unroll
  for (int r = 0; r < rows; ++r) {
    const unsigned nonzero = __ballot_sync(0xffffffffu, d[r] != 0);  // lanes past the last digit hold 0
    if (nonzero != 0) top = r * 32 + 31 - __clz(static_cast<int>(nonzero));
  }
  if (top < 0) return (flags & saw_other_than_minus_zero) != 0 ? Out(0) : -Out(0);

  const long long high = held_digit(d, top);
  const int highest_bit = top * digit_bits + 63 - __clzll(high);
  int keep_from = highest_bit - out_format<Out>::precision + 1;
  if (keep_from < 0) keep_from = 0;
  // The top three digits hold at least 60 bits below the highest: the p kept bits and the
  // guard bit. Everything under the guard bit only matters as "any bit set" (sticky).
  const int window_first = top >= 2 ? top - 2 : 0;
  unsigned __int128 window = static_cast<unsigned long long>(high);
  for (int i = top - 1; i >= window_first; --i)
    window = (window << digit_bits) | static_cast<unsigned __int128>(static_cast<unsigned long long>(held_digit(d, i)));
  bool below_window = false;
#pragma unroll
  for (int r = 0; r < rows; ++r) below_window = below_window || (r * 32 + lane < window_first && d[r] != 0);
  const int offset = keep_from - window_first * digit_bits;  // bit of `window` that is bit keep_from
  unsigned long long mantissa = static_cast<unsigned long long>(window >> offset);
  bool guard = false, sticky = __any_sync(0xffffffffu, below_window);
  if (offset > 0) {
    guard = ((window >> (offset - 1)) & 1) != 0;
    sticky = sticky || (window & ((static_cast<unsigned __int128>(1) << (offset - 1)) - 1)) != 0;
  }
  if (guard && (sticky || (mantissa & 1) != 0)) ++mantissa;
  // At most p + 1 bits (a carry out of the top rounds up to a power of two): exact in double,
  // and exact in Out unless it overflows, which gives the right infinity.
  const double magnitude = scalbn(static_cast<double>(mantissa), keep_from + Lowest);
  const Out value = static_cast<Out>(magnitude);
  return negative ? -value : value;
}

}  // namespace warpfold::sum_modes
