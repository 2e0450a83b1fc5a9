// Element types the bench can carry, and what an implementation's result means for each.
// Plain C++ (no CUDA): the CLI's option parser and the CPU tests use it too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::bench {

enum class dtype { i32, f32, f64, f16, bf16 };

struct dtype_info {
  dtype id;
  std::string_view name;       // command-line and CSV name
  std::string_view c_type;     // what the buffer holds
  int element_bytes;
};

inline constexpr dtype_info dtypes[] = {
    {dtype::i32, "i32", "int32_t", 4},
    {dtype::f32, "f32", "float", 4},
    {dtype::f64, "f64", "double", 8},
    {dtype::f16, "f16", "__half", 2},
    {dtype::bf16, "bf16", "__nv_bfloat16", 2},
};

const dtype_info& info(dtype t);
inline std::string_view name(dtype t) { return info(t).name; }
inline int element_bytes(dtype t) { return info(t).element_bytes; }

// "i32", also "int32", "int", "f32", "float", "float32", "f64", "double", "float64", "f16",
// "half", "float16", "bf16", "bfloat16". Case-sensitive, as the help shows them.
std::optional<dtype> parse_dtype(std::string_view text);

// How an implementation's answer relates to the exact sum of the input, which decides how
// it is checked:
// - int32_wrapping: the sum of int32 taken in int32, so modulo 2^32 (the ladder, CUB, Thrust).
// - int64: the sum of int32 taken in int64, exact for any n the bench can allocate (production).
// - float32 / float64: a float sum in that accumulator type, checked within a tolerance.
enum class result_kind { int32_wrapping, int64, float32, float64 };

std::string_view name(result_kind k);

// An implementation's answer on the host. Integer kinds use `integer` (an int32_wrapping
// answer is sign-extended), float kinds use `real`.
struct result_value {
  std::int64_t integer = 0;
  double real = 0.0;
};

// How the float inputs' values spread (--data): what a sum's cost may depend on.
// - uniform: in [0, 1), at the type's resolution (the default: one binade's worth of bits);
// - normal: standard normal, both signs;
// - wide: magnitudes log-uniform over 2^-40 .. 2^40 (as far as the type reaches), both signs;
// - full: every finite exponent, subnormals included, up to 2^32 below the type's largest
//   (so that no sum of fewer than 2^31 elements overflows), both signs: the worst case
//   of an exact sum.
enum class value_spread { uniform, normal, wide, full };
std::string_view name(value_spread s);
std::optional<value_spread> parse_value_spread(std::string_view text);

// Host-side decoding of the 16-bit float formats, so that the reference needs no CUDA header.
float half_bits_to_float(std::uint16_t bits);
float bfloat16_bits_to_float(std::uint16_t bits);

}  // namespace warpfold::bench
