#include "bench/sizes.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

[[noreturn]] void bad_size(std::string_view text, const std::string& why) {
  throw invalid_argument("invalid size '" + std::string(text) + "': " + why +
                         " (write e.g. 67108864, 2^26, 64Mi or 1e8)");
}

std::int64_t checked(std::string_view text, long double value) {
  if (!(value >= 1)) bad_size(text, "a size must be at least 1");
  if (value > static_cast<long double>(max_size)) bad_size(text, "larger than 2^36");
  return static_cast<std::int64_t>(value);
}

}  // namespace

std::int64_t parse_size(std::string_view raw) {
  const std::string_view text = trim(raw);
  if (text.empty()) bad_size(raw, "empty");

  if (const auto caret = text.find('^'); caret != std::string_view::npos) {
    const std::string_view base = text.substr(0, caret), exponent = text.substr(caret + 1);
    if (base != "2" || !all_digits(exponent) || exponent.size() > 3) bad_size(raw, "only powers of two 2^k are allowed");
    const int k = std::stoi(std::string(exponent));
    if (k > 36) bad_size(raw, "larger than 2^36");
    return std::int64_t(1) << k;
  }

  struct suffix {
    std::string_view text;
    int shift;
  };
  for (const suffix s : {suffix{"Ki", 10}, suffix{"Mi", 20}, suffix{"Gi", 30}}) {
    if (text.size() > s.text.size() && text.substr(text.size() - s.text.size()) == s.text) {
      const std::string_view digits = text.substr(0, text.size() - s.text.size());
      if (!all_digits(digits) || digits.size() > 6) bad_size(raw, "expected a whole number before " + std::string(s.text));
      return checked(raw, std::ldexp(static_cast<long double>(std::stoll(std::string(digits))), s.shift));
    }
  }

  if (all_digits(text)) {
    if (text.size() > 12) bad_size(raw, "larger than 2^36");
    return checked(raw, static_cast<long double>(std::stoll(std::string(text))));
  }

  // Scientific notation or a decimal point: must still be a whole number.
  if (text.find_first_of("eE.") != std::string_view::npos) {
    const std::string copy(text);
    char* end = nullptr;
    errno = 0;
    const long double value = std::strtold(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || errno != 0 || copy.front() == '-' || copy.front() == '+')
      bad_size(raw, "not a number");
    if (value != std::floor(value)) bad_size(raw, "not a whole number");
    return checked(raw, value);
  }
  bad_size(raw, "not a number");
}

std::vector<std::int64_t> parse_size_list(std::string_view text) {
  std::vector<std::int64_t> sizes;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::int64_t n = parse_size(text.substr(begin, comma == std::string_view::npos ? text.npos : comma - begin));
    bool seen = false;
    for (std::int64_t s : sizes) seen = seen || s == n;
    if (!seen) sizes.push_back(n);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return sizes;
}

std::string format_size(std::int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::int64_t(1) << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

std::string format_bytes(double bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  else
    std::snprintf(text, sizeof text, bytes < 10 ? "%.2f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

std::vector<std::int64_t> sweep_sizes() {
  std::vector<std::int64_t> sizes;
  for (int k = 10; k <= 30; k += 2) sizes.push_back(std::int64_t(1) << k);
  return sizes;
}

}  // namespace warpfold::bench
