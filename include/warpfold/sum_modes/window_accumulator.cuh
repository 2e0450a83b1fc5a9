// The fast path of the exact sum: what one warp keeps in registers so that most elements never
// touch the superaccumulator (superaccumulator.cuh).
//
// The idea (binned summation, as in Demmel and Nguyen's ReproBLAS, made exact here): a double
// S that stays within one binade [2^e, 2^(e+1)) has a fixed step of 2^(e-52). Adding r to it
// and taking back what it kept, t = (S + r) - S, splits r exactly into t, a multiple of that
// step, and r - t, the part below it; S grows by exactly t. A few such "folds" with steps 40
// bits apart cover a window of 40 bits per fold below a top 2^top, and every piece of an
// element lands in one of them without any rounding. Three adds per fold and element, all in
// double, which the H100 runs at 64 per SM and clock; a warp whose batch lies within the first
// one or two folds uses only those (data of a narrow range: bfloat16 sums of uniform or normal
// values went from 71% to 88% of the read ceiling at 2^28, H100, 2026-11-24).
//
// - The window is shared by a warp: its top follows the largest element the warp has seen
//   (one __reduce_max_sync per batch). An element above it moves the window up, after the
//   folds are emptied into the superaccumulator. Bits below the window's bottom (from data
//   spread over more than the folds cover) go to the superaccumulator one by one: exact,
//   only slower. Whether a lane has any is known per batch from its smallest element, so
//   the common batch is the folds' adds alone, with no test per element. (The test per
//   element, its branch and the index arithmetic of guarded loads were half of the
//   instructions of the loop; without them, H100, 2026-11-24, wide data at 2^28: f32 385.7
//   -> 367.2 us, f64 771.6 -> 752.2 us, bf16 345.7 -> 255.7 us.)
// - A fold may drift by 2^-12 of its binade per element, so every 512 elements it hands
//   whole quarters of the binade to a carry counter ("renormalize"), which keeps it inside.
// - When the warp is done (or moves its window), each fold's content, an integer number of
//   steps, is summed over the warp in int64 and added to the superaccumulator by one lane.
//
// Half values need none of this: every one is a multiple of 2^-24 below 2^16, so a double
// adds 4096 of them exactly, and the warp empties it into the superaccumulator as an integer
// every 4096 elements (direct_accumulator).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>
#include <cstdint>

#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/sum_modes/superaccumulator.cuh"

namespace warpfold::sum_modes {

// The high 32 bits of |x| (all of a float): ordered like |x|, with infinities and NaNs above
// every finite value, so one integer max per element finds both the largest magnitude and
// any special value.
WARPFOLD_DEVICE unsigned magnitude_bits(float x) { return __float_as_uint(x) & 0x7fffffffu; }
// For a double, its high word with the lowest bit set if any low-word bit is: the smallest
// subnormals have a zero high word but are not zero. (Adding one instead would carry the
// largest finite double, 0x7fefffff ffffffff, into the infinities.)
WARPFOLD_DEVICE unsigned magnitude_bits(double x) {
  const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(x));
  return (static_cast<unsigned>(bits >> 32) & 0x7fffffffu) | (static_cast<unsigned>(bits) != 0u ? 1u : 0u);
}

// Per element type: where non-finite values start, and the exponent of |x| from its magnitude
// bits (floor(log2 |x|), or below the normal range for subnormals).
template <typename E> struct element_bits;
template <> struct element_bits<float> {
  static constexpr unsigned non_finite = 0x7f800000u;
  static constexpr int significand_bits = 24, lowest_normal_exponent = -126;
  WARPFOLD_DEVICE static int exponent(unsigned m) { return static_cast<int>(m >> 23) - 127; }
  WARPFOLD_DEVICE static unsigned magnitude_of_power(int e) { return static_cast<unsigned>(e + 127) << 23; }
};
template <> struct element_bits<double> {
  static constexpr unsigned non_finite = 0x7ff00000u;
  static constexpr int significand_bits = 53, lowest_normal_exponent = -1022;
  WARPFOLD_DEVICE static int exponent(unsigned m) { return static_cast<int>(m >> 20) - 1023; }
  WARPFOLD_DEVICE static unsigned magnitude_of_power(int e) { return static_cast<unsigned>(e + 1023) << 20; }
};

// How many folds, how wide, per input type. A fold may drift by 2^(fold_bits - 52) of its
// binade per element, so it is renormalized every 2^(49 - fold_bits) elements (1/8 binade).
// - float and bfloat16 (added as float): 3 folds of 40 bits (120): float values spread over
//   2^-40 .. 2^40 need 104. (bfloat16 with 2 folds of 44 bits, 88, was 5% faster on data in
//   [0, 1) but sent a share of widely spread data to the slow path: H100, 2^28 elements,
//   23% of the read ceiling against 51% with 3 folds.)
// - double: 4 folds of 40 bits (160): double values over 2^-40 .. 2^40 need 133.
template <typename T> struct fold_policy;
template <> struct fold_policy<float> {
  static constexpr int folds = 3, fold_bits = 40, top_slack = 3;
};
// (Tried for bfloat16, H200, 2026-11-28: the lane's magnitudes from packed pairs, and batches
// whose elements lie within 12 binades summed in float before one pass through the folds.
// Data in [0, 1) 2-3% faster, widely spread data 3-5% slower: not kept. Branch
// experiment/bf16-presum; docs/results/H200/exact_half_2026-11-28.)
template <> struct fold_policy<__nv_bfloat16> : fold_policy<float> {};
template <> struct fold_policy<double> {
  static constexpr int folds = 4, fold_bits = 40, top_slack = 3;
};

template <typename E>
WARPFOLD_DEVICE bool is_plus_zero(E x) {
  if constexpr (sizeof(E) == 8) return __double_as_longlong(x) == 0;
  else return __float_as_uint(x) == 0u;
}

// Records x's special kind in `flags` and returns x, or 0 when x is not finite.
template <typename E>
WARPFOLD_DEVICE E without_specials(E x, unsigned& flags) {
  if (magnitude_bits(x) >= element_bits<E>::non_finite) {
    flags |= x != x ? saw_nan : (x > E(0) ? saw_plus_infinity : saw_minus_infinity);
    return E(0);
  }
  return x;
}

// The warp's folds, for elements of type E (float or double; bf16 comes as float), shaped by
// Policy (fold_policy).
template <typename E, int Lowest, typename Policy>
class fold_accumulator {
 public:
  static constexpr int folds = Policy::folds;
  static constexpr int fold_bits = Policy::fold_bits;
  static constexpr int renormalize_every = 1 << (49 - fold_bits);  // elements per lane
  static constexpr int top_slack = Policy::top_slack;  // bits of room above the largest element seen
  // The lowest fold's S must be a normal double (top - folds * fold_bits + 52 >= -1022), and
  // the highest fold's S finite (top - fold_bits + 52 <= 1023).
  static constexpr int lowest_top = folds * fold_bits - 1074;
  static constexpr int highest_top = 1023 + fold_bits - 52;

  // Adds a batch: `count` elements per lane, `x`. Every lane of the warp calls it.
  template <int Count>
  WARPFOLD_DEVICE void add(E (&x)[Count], long long* digits, unsigned& flags) {
    // The largest magnitude, for the window; and the smallest nonzero one, less one (zeros
    // wrap to the top), to know whether the folds hold every bit of this lane's elements.
    unsigned largest = 0, smallest_less_one = ~0u;
#pragma unroll
    for (int k = 0; k < Count; ++k) {
      const unsigned m = magnitude_bits(x[k]);
      largest = ::max(largest, m);
      smallest_less_one = ::min(smallest_less_one, m - 1u);
    }
    unsigned warp_largest = __reduce_max_sync(blocks::full_warp_mask, largest);
    const unsigned warp_smallest_less_one = __reduce_min_sync(blocks::full_warp_mask, smallest_less_one);
    if (largest != 0) flags |= saw_other_than_minus_zero;
    bool held_whole = smallest_less_one >= held_by_from_[folds - 1];
    if (warp_largest >= limit_) {  // rare: a special value, an element above the window, or no window yet
      if (warp_largest >= element_bits<E>::non_finite) {
        largest = 0;
#pragma unroll
        for (int k = 0; k < Count; ++k) {
          x[k] = without_specials(x[k], flags);
          largest = ::max(largest, magnitude_bits(x[k]));
        }
        warp_largest = __reduce_max_sync(blocks::full_warp_mask, largest);
      }
      if (warp_largest == 0) {
        note_plus_zeros(x, flags);
        return;
      }
      if (warp_largest >= limit_) move_window(element_bits<E>::exponent(warp_largest) + 1 + top_slack, digits);
      if (warp_largest >= limit_) {  // beyond what any window holds (f64 above 2^1007)
#pragma unroll
        for (int k = 0; k < Count; ++k)
          if (magnitude_bits(x[k]) >= limit_) {
            add_double<Lowest>(digits, static_cast<double>(x[k]));
            x[k] = E(0);
          }
      }
      // Whether the (new) window holds this lane's elements whole: the lane's smallest nonzero
      // magnitude still bounds what is left (specials and elements beyond every window are now
      // zeros). A warp's first batch, which always lands here, then takes the fewest folds
      // instead of every fold with a check per element.
      held_whole = smallest_less_one >= held_by_from_[folds - 1];
    } else if (warp_largest == 0) {
      note_plus_zeros(x, flags);
      return;
    }
    if (held_whole) {  // the common case: no bits below the lowest fold, nothing to check
      fold_batch_in_fewest<1>(x, warp_smallest_less_one);
    } else {
#pragma unroll
      for (int k = 0; k < Count; ++k) add_in_window(static_cast<double>(x[k]), digits);
    }
    added_ += Count;
    if (added_ >= renormalize_every) renormalize();
  }

  // Empties the folds into the superaccumulator: each fold's steps and carried quarters,
  // summed over the warp as integers, in one warp_add_scaled. Every lane of the warp calls it.
  WARPFOLD_DEVICE void flush(long long* digits) {
    if (top_ == no_window) return;
    long long terms[2 * folds];
    int exponents[2 * folds];
#pragma unroll
    for (int f = 0; f < folds; ++f) {
      const int e = binade(f);
      // A fold or carry that no lane used holds nothing: one vote instead of a warp's sum. (A
      // warp of a small sum flushes once, after a batch or two, mostly with one fold used and no
      // carry; summing them all was most of its time.)
      const long long steps = steps_from_middle(sums_[f]);
      terms[2 * f] = __any_sync(blocks::full_warp_mask, steps != 0) ? warp_sum(steps) : 0;  // below 2^51 each
      exponents[2 * f] = e - 52;
      terms[2 * f + 1] = __any_sync(blocks::full_warp_mask, carries_[f] != 0) ? warp_sum(carries_[f]) : 0;
      exponents[2 * f + 1] = e - 2;
      sums_[f] = middle_of_binade(e);
      carries_[f] = 0;
    }
    warp_add_scaled<Lowest>(digits, terms, exponents);
    added_ = 0;
  }

 private:
  static constexpr int no_window = INT_MIN;

  // Fold f's S lives in [2^binade, 2^(binade+1)), with steps of 2^(binade-52).
  WARPFOLD_DEVICE int binade(int f) const { return top_ - (f + 1) * fold_bits + 52; }

  WARPFOLD_DEVICE static long long warp_sum(long long v) {
#pragma unroll
    for (int delta = blocks::warp_size / 2; delta > 0; delta /= 2) v += __shfl_xor_sync(blocks::full_warp_mask, v, delta);
    return v;
  }

  template <int Count>
  WARPFOLD_DEVICE static void note_plus_zeros(const E (&x)[Count], unsigned& flags) {
#pragma unroll
    for (int k = 0; k < Count; ++k)
      if (is_plus_zero(x[k])) flags |= saw_other_than_minus_zero;
  }

  WARPFOLD_DEVICE void move_window(int top, long long* digits) {
    if (top < lowest_top) top = lowest_top;
    if (top > highest_top) top = highest_top;
    if (top_ != no_window && top <= top_) return;
    flush(digits);
    top_ = top;
    // A float window may reach above float's range (top up to 131, still within 32 bits); its
    // limit then stays at the non-finite values, which must still take the rare path.
    limit_ = ::min(element_bits<E>::magnitude_of_power(top), element_bits<E>::non_finite);
    // From which magnitudes all the folds, and the first 1, 2, ... of them, hold an element whole.
    held_by_from_[folds - 1] = held_by_first_from(folds, top);
#pragma unroll
    for (int used = 1; used < folds; ++used) held_by_from_[used - 1] = held_by_first_from(used, top);
#pragma unroll
    for (int f = 0; f < folds; ++f) {
      sums_[f] = middle_of_binade(binade(f));
      carries_[f] = 0;
    }
  }

  // Magnitude bits, less one, from which the first `used` folds under a window of top `top`
  // hold every bit of an element: an element of exponent e has no bits below
  // 2^(e - significand_bits + 1), and the used folds' lowest step is 2^(top - used * fold_bits).
  // Below the normal range every element qualifies; at or above the top, none does.
  WARPFOLD_DEVICE static unsigned held_by_first_from(int used, int top) {
    const int exponent = top - used * fold_bits + element_bits<E>::significand_bits - 1;
    if (exponent <= element_bits<E>::lowest_normal_exponent) return 0u;
    if (exponent >= top) return ~0u;
    return element_bits<E>::magnitude_of_power(exponent) - 1u;
  }

  // The batch of a lane whose elements the folds hold whole: through the fewest folds that
  // hold every element of the warp's batch (the choice is the warp's, so that its lanes do not
  // diverge). Data of a narrow range need one or two folds of three or four: uniform [0, 1)
  // floats need fold 0 alone unless an element of the warp's batch lies below 2^-14.
  template <int Used, int Count>
  WARPFOLD_DEVICE void fold_batch_in_fewest(const E (&x)[Count], unsigned warp_smallest_less_one) {
    if constexpr (Used < folds) {
      if (warp_smallest_less_one >= held_by_from_[Used - 1]) {
#pragma unroll
        for (int k = 0; k < Count; ++k) fold_in_window<Used>(static_cast<double>(x[k]));
        return;
      }
      fold_batch_in_fewest<Used + 1>(x, warp_smallest_less_one);
    } else {
#pragma unroll
      for (int k = 0; k < Count; ++k) fold_in_window<folds>(static_cast<double>(x[k]));
    }
  }

  // |x| < 2^top_: splits x over the first Used folds and returns what lies below the lowest
  // one's step.
  template <int Used = folds>
  WARPFOLD_DEVICE double fold_in_window(double x) {
    double rest = x;
#pragma unroll
    for (int f = 0; f < Used; ++f) {
      const double grown = sums_[f] + rest;
      const double kept = grown - sums_[f];
      rest -= kept;
      sums_[f] = grown;
    }
    return rest;
  }

  // The same for an element that may have bits below the lowest fold: they go to the
  // superaccumulator.
  WARPFOLD_DEVICE void add_in_window(double x, long long* digits) {
    const double rest = fold_in_window(x);
    if (rest != 0) add_double<Lowest>(digits, rest);
  }

  // S stays within a quarter of its binade [2^e, 2^(e+1)) of the middle, 1.5 * 2^e, so its
  // exponent field is e's and its 52 stored bits alone say where it is: S - 1.5 * 2^e is
  // (stored bits - 2^51) steps of 2^(e - 52). Integer operations on the bits, where scalbn
  // with an exponent known only at run time took chains of multiplications.
  WARPFOLD_DEVICE static double middle_of_binade(int e) {  // 1.5 * 2^e, -1022 <= e <= 1023
    return __longlong_as_double((static_cast<long long>(e + 1023) << 52) | (1ll << 51));
  }
  WARPFOLD_DEVICE static long long steps_from_middle(double s) {
    return (__double_as_longlong(s) & ((1ll << 52) - 1)) - (1ll << 51);
  }

  // Moves whole quarters of each fold's binade (2^50 steps) to its carry count, leaving S
  // within 1/8 of the binade of the middle.
  WARPFOLD_DEVICE void renormalize() {
#pragma unroll
    for (int f = 0; f < folds; ++f) {
      const long long quarters = (steps_from_middle(sums_[f]) + (1ll << 49)) >> 50;  // the nearest, ties up
      sums_[f] = __longlong_as_double(__double_as_longlong(sums_[f]) - (quarters << 50));
      carries_[f] += quarters;
    }
    added_ = 0;
  }

  double sums_[folds] = {};
  long long carries_[folds] = {};
  int top_ = no_window;
  unsigned limit_ = 0;  // magnitude bits of 2^top_ (or of infinity): elements at or above it need a new window
  // Magnitude bits, less one, from which the first 1, 2, ..., folds folds hold every bit of
  // an element (0: every element).
  unsigned held_by_from_[folds] = {};
  int added_ = 0;
};

// Half elements: one double per lane holds 4096 of them exactly (multiples of 2^-24 below
// 2^16: at most 2^40 steps each, 2^52 together).
class direct_accumulator {
 public:
  static constexpr int flush_every = 4096;

  // A lane's batch is summed on its own first, from its first element on: exact (multiples
  // of 2^-24 below 2^(16 + log2 Count)), -0 only when every element is -0, and not finite only
  // when an element is an infinity or NaN. So one test per batch, on its sum, stands for the
  // test per element that took a third of the loop's instructions (a magnitude, a maximum
  // and the 16-bit moves they needed). H200, 2026-11-28, exact half sums 6% faster at 2^24
  // to 2^28 (docs/results/H200/exact_half_2026-11-28). A tree of adds in place of the row of
  // dependent ones did not change the time: the row's latency was not what held the loop.
  // Nor did moving each half's bits into a double (x * 2^-1008, subnormals included) in place
  // of the two conversions, with three loads in flight instead of two: 2^28 halves 138.9 us
  // against 138.0-138.3 (H200, 2026-11-30; docs/results/H200/exact_half_moved_2026-11-30).
  template <int Count>
  WARPFOLD_DEVICE void add(__half (&x)[Count], long long* digits, unsigned& flags) {
    double batch = batch_sum(x);
    if (!isfinite(batch)) {  // rare: specials, which the sum ignores but the flags keep
#pragma unroll
      for (int k = 0; k < Count; ++k) {
        const unsigned short bits = __half_as_ushort(x[k]);
        if ((bits & 0x7fffu) >= 0x7c00u) {
          flags |= (bits & 0x7fffu) > 0x7c00u ? saw_nan : ((bits & 0x8000u) != 0 ? saw_minus_infinity : saw_plus_infinity);
          x[k] = __ushort_as_half(0x8000u);  // -0: adds nothing, and says nothing of the sign of a zero sum
        }
      }
      batch = batch_sum(x);
    }
    if (__double_as_longlong(batch) != static_cast<long long>(0x8000000000000000ull)) flags |= saw_other_than_minus_zero;
    sum_ += batch;
    added_ += Count;
    if (added_ >= flush_every) flush(digits);
  }

  WARPFOLD_DEVICE void flush(long long* digits) {
    long long steps[1] = {static_cast<long long>(scalbn(sum_, 24))};
    const int exponents[1] = {-24};
#pragma unroll
    for (int delta = blocks::warp_size / 2; delta > 0; delta /= 2)
      steps[0] += __shfl_xor_sync(blocks::full_warp_mask, steps[0], delta);
    warp_add_scaled<value_range<__half>::lowest>(digits, steps, exponents);
    sum_ = 0;
    added_ = 0;
  }

 private:
  template <int Count>
  WARPFOLD_DEVICE static double batch_sum(const __half (&x)[Count]) {
    double sum = static_cast<double>(__half2float(x[0]));
#pragma unroll
    for (int k = 1; k < Count; ++k) sum += static_cast<double>(__half2float(x[k]));
    return sum;
  }

  double sum_ = 0;
  int added_ = 0;
};

}  // namespace warpfold::sum_modes
