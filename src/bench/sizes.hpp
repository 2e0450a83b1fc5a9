// Problem sizes as people write them ("2^26", "1e8", "64Mi", "67108864") and as the bench
// prints them, plus the sweep's size list. Plain C++.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::bench {

// The largest n the bench accepts: 2^36 elements is beyond any current GPU's memory anyway.
inline constexpr std::int64_t max_size = std::int64_t(1) << 36;

// One size: a decimal integer, 2^k, scientific notation that is a whole number (1e8, 2.5e6),
// or an integer with a binary suffix Ki, Mi, Gi (2^10, 2^20, 2^30). Must be 1..max_size.
// Throws warpfold::invalid_argument with a message naming the text.
std::int64_t parse_size(std::string_view text);

// A comma-separated list of sizes, in the order given; duplicates are kept out.
std::vector<std::int64_t> parse_size_list(std::string_view text);

// 2^k for powers of two, else the decimal number: "2^27", "1000000".
std::string format_size(std::int64_t n);

// "512.0 MiB", "1.00 GiB", "4.0 KiB", "100 B".
std::string format_bytes(double bytes);

// The sweep: 2^10, 2^12, ..., 2^30.
std::vector<std::int64_t> sweep_sizes();

}  // namespace warpfold::bench
