#include "bench/dtype.hpp"

#include <utility>

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace warpfold::bench {

const dtype_info& info(dtype t) {
  for (const dtype_info& d : dtypes)
    if (d.id == t) return d;
  throw std::logic_error("warpfold::bench: unknown dtype");
}

std::optional<dtype> parse_dtype(std::string_view text) {
  struct alias {
    std::string_view name;
    dtype id;
  };
  static constexpr alias aliases[] = {
      {"i32", dtype::i32},  {"int32", dtype::i32},   {"int", dtype::i32},      {"f32", dtype::f32},
      {"float", dtype::f32}, {"float32", dtype::f32}, {"f64", dtype::f64},      {"double", dtype::f64},
      {"float64", dtype::f64}, {"f16", dtype::f16},  {"half", dtype::f16},     {"float16", dtype::f16},
      {"bf16", dtype::bf16}, {"bfloat16", dtype::bf16},
  };
  for (const alias& a : aliases)
    if (a.name == text) return a.id;
  return std::nullopt;
}

std::string_view name(result_kind k) {
  switch (k) {
    case result_kind::int32_wrapping: return "int32 (wraps mod 2^32)";
    case result_kind::int64: return "int64";
    case result_kind::float32: return "float";
    case result_kind::float64: return "double";
  }
  return "?";
}

float half_bits_to_float(std::uint16_t bits) {
  const bool negative = (bits & 0x8000u) != 0;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal: m * 2^-24
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return negative ? -magnitude : magnitude;
}

float bfloat16_bits_to_float(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;  // bf16 is float's top half
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

namespace {
constexpr std::pair<value_spread, std::string_view> spread_names[] = {
    {value_spread::uniform, "uniform"}, {value_spread::normal, "normal"}, {value_spread::wide, "wide"}, {value_spread::full, "full"}};
}

std::string_view name(value_spread s) {
  for (const auto& [id, text] : spread_names)
    if (id == s) return text;
  return "?";
}

std::optional<value_spread> parse_value_spread(std::string_view text) {
  for (const auto& [id, name_text] : spread_names)
    if (name_text == text) return id;
  return std::nullopt;
}

}  // namespace warpfold::bench
