// How a many-array launch cuts its list (many/layout.cuh), on the host: the division-free
// quotient against integer division, and block_of and range_begin against their definitions
// (block b reads positions [b N / G, (b + 1) N / G), and position p lies in block_of(p)), and
// an array's last block.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "warpfold/many/layout.cuh"

namespace {

using warpfold::many::block_of;
using warpfold::many::quotient;
using warpfold::many::range_begin;

TEST(ManyLayout, QuotientIsIntegerDivision) {
  std::mt19937_64 random(20261124);
  for (int trial = 0; trial < 200000; ++trial) {
    // Dividends up to 2^53 and divisors of every magnitude, and the exact multiples around them.
    const std::int64_t d = 1 + static_cast<std::int64_t>(random() >> (11 + random() % 53));
    const std::int64_t a = static_cast<std::int64_t>(random() >> (11 + random() % 53));
    ASSERT_EQ(quotient(a, d), a / d) << a << " / " << d;
    const std::int64_t multiple = (a / d) * d;
    ASSERT_EQ(quotient(multiple, d), multiple / d) << multiple << " / " << d;
    if (multiple > 0) ASSERT_EQ(quotient(multiple - 1, d), (multiple - 1) / d) << multiple - 1 << " / " << d;
  }
}

TEST(ManyLayout, EveryPositionLiesInItsBlocksRange) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::int64_t n = 1 + static_cast<std::int64_t>(random() >> (24 + random() % 40));  // up to 2^40
    const std::int64_t g = 1 + static_cast<std::int64_t>(random() % 4096);
    for (const std::int64_t p : {std::int64_t{0}, n - 1, static_cast<std::int64_t>(random() % n), n / 2}) {
      const std::int64_t b = block_of(p, n, g);
      ASSERT_GE(b, 0);
      ASSERT_LT(b, g);
      ASSERT_EQ(range_begin(b, n, g), b * n / g);
      ASSERT_LE(range_begin(b, n, g), p) << "n " << n << " g " << g << " p " << p;
      ASSERT_GT(range_begin(b + 1, n, g), p) << "n " << n << " g " << g << " p " << p;
    }
  }
  EXPECT_EQ(block_of(5, 0, 16), 0);  // no elements
}

// An array's last block, from its two ends (what the plan kernel computes for each array),
// is the block that holds its last element, or its position when it is empty.
TEST(ManyLayout, LastBlockOfAnArray) {
  std::mt19937_64 random(11);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::int64_t n = 1 + static_cast<std::int64_t>(random() >> (24 + random() % 40));
    const std::int64_t g = 1 + static_cast<std::int64_t>(random() % 4096);
    const std::int64_t begin = static_cast<std::int64_t>(random() % n);
    const std::int64_t end = random() % 4 == 0 ? begin : begin + 1 + static_cast<std::int64_t>(random() % (n - begin));
    const std::int64_t last = warpfold::many::last_block_of(begin, end, n, g);
    ASSERT_EQ(last, warpfold::many::blocks_of(begin, end, n, g).last);
    ASSERT_EQ(last, block_of(end > begin ? end - 1 : begin, n, g));
    ASSERT_LE(range_begin(last, n, g), end > begin ? end - 1 : begin);
  }
}

}  // namespace
