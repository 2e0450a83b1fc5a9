#include "warpfold_test/reference.hpp"

#include <cstdio>

#include "warpfold_test/generate.hpp"

namespace warpfold_test {

namespace {
constexpr std::int64_t reference_chunk = std::int64_t{1} << 20;
}

std::string format_real(long double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.21Lg", x);
  return text;
}

std::int64_t reference_chunk_count(std::int64_t n) { return n <= 0 ? 0 : (n + reference_chunk - 1) / reference_chunk; }

void for_each_reference_chunk(std::int64_t n,
                              const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& body) {
  parallel_for_chunks(n, reference_chunk, body);
}

}  // namespace warpfold_test
