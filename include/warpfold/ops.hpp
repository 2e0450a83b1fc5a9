// The reduction operators. Each is a stateless functor with an identity, usable on host and
// device. Integer sums and products wrap modulo 2^bits, as the accumulator type does: signed
// values are added as unsigned so that the wrap is defined behaviour, not an accident.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "warpfold/config.hpp"

namespace warpfold {
namespace detail {

template <typename T>
WARPFOLD_HOST_DEVICE bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  return false;
}

template <typename T>
WARPFOLD_HOST_DEVICE T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <typename T>
WARPFOLD_HOST_DEVICE T wrapping_multiply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Promote to at least unsigned int so that small types do not promote to signed int.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

}  // namespace detail

namespace op {

struct sum {
  template <typename T>
  WARPFOLD_HOST_DEVICE static T identity() { return T(0); }
  template <typename T>
  WARPFOLD_HOST_DEVICE T operator()(T a, T b) const { return detail::wrapping_add(a, b); }
};

struct prod {
  template <typename T>
  WARPFOLD_HOST_DEVICE static T identity() { return T(1); }
  template <typename T>
  WARPFOLD_HOST_DEVICE T operator()(T a, T b) const { return detail::wrapping_multiply(a, b); }
};

// NaN propagates: once a NaN is seen the result is NaN. -0.0 and +0.0 compare equal, so
// either may be returned; the choice is fixed by the reduction order and the same every run.
struct min {
  template <typename T>
  WARPFOLD_HOST_DEVICE static T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
  template <typename T>
  WARPFOLD_HOST_DEVICE T operator()(T a, T b) const {
    if (detail::is_nan(a)) return a;
    return (b < a || detail::is_nan(b)) ? b : a;
  }
};

struct max {
  template <typename T>
  WARPFOLD_HOST_DEVICE static T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  template <typename T>
  WARPFOLD_HOST_DEVICE T operator()(T a, T b) const {
    if (detail::is_nan(a)) return a;
    return (a < b || detail::is_nan(b)) ? b : a;
  }
};

#define WARPFOLD_BITWISE_OP(name, symbol, identity_value)                                    \
  struct name {                                                                              \
    template <typename T>                                                                    \
    WARPFOLD_HOST_DEVICE static T identity() {                                               \
      static_assert(std::is_integral_v<T>, "warpfold::op::" #name " needs an integer type"); \
      return static_cast<T>(identity_value);                                                 \
    }                                                                                        \
    template <typename T>                                                                    \
    WARPFOLD_HOST_DEVICE T operator()(T a, T b) const {                                      \
      static_assert(std::is_integral_v<T>, "warpfold::op::" #name " needs an integer type"); \
      return static_cast<T>(a symbol b);                                                     \
    }                                                                                        \
  };
WARPFOLD_BITWISE_OP(bit_and, &, ~T(0))
WARPFOLD_BITWISE_OP(bit_or, |, 0)
WARPFOLD_BITWISE_OP(bit_xor, ^, 0)
#undef WARPFOLD_BITWISE_OP

}  // namespace op

// A value with the index it came from, the accumulator of argmin and argmax.
// index == -1 means "no element": the answer for an empty input.
template <typename T>
struct value_index {
  T value;
  std::int64_t index;
};

namespace op {

// First index of the smallest value. A NaN counts as smaller than every number (as in NumPy),
// so the first NaN wins.
struct argmin {
  template <typename V>
  WARPFOLD_HOST_DEVICE static V identity() {
    return V{min::identity<decltype(V::value)>(), -1};
  }
  template <typename V>
  WARPFOLD_HOST_DEVICE V operator()(V a, V b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = detail::is_nan(a.value), b_nan = detail::is_nan(b.value);
    if (a_nan || b_nan) return (a_nan && (!b_nan || a.index < b.index)) ? a : b;
    if (b.value < a.value) return b;
    if (a.value < b.value) return a;
    return b.index < a.index ? b : a;
  }
};

// First index of the largest value; NaN counts as larger than every number.
struct argmax {
  template <typename V>
  WARPFOLD_HOST_DEVICE static V identity() {
    return V{max::identity<decltype(V::value)>(), -1};
  }
  template <typename V>
  WARPFOLD_HOST_DEVICE V operator()(V a, V b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = detail::is_nan(a.value), b_nan = detail::is_nan(b.value);
    if (a_nan || b_nan) return (a_nan && (!b_nan || a.index < b.index)) ? a : b;
    if (a.value < b.value) return b;
    if (b.value < a.value) return a;
    return b.index < a.index ? b : a;
  }
};

}  // namespace op
}  // namespace warpfold
