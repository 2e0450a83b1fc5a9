// Size parsing and formatting: every form the CLI accepts, and the ones it must reject.
#include <gtest/gtest.h>

#include "bench/sizes.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

TEST(ParseSize, AcceptsEveryDocumentedForm) {
  EXPECT_EQ(wb::parse_size("67108864"), 67108864);
  EXPECT_EQ(wb::parse_size("2^26"), 67108864);
  EXPECT_EQ(wb::parse_size("2^0"), 1);
  EXPECT_EQ(wb::parse_size("64Mi"), 67108864);
  EXPECT_EQ(wb::parse_size("3Ki"), 3072);
  EXPECT_EQ(wb::parse_size("1Gi"), std::int64_t(1) << 30);
  EXPECT_EQ(wb::parse_size("1e8"), 100000000);
  EXPECT_EQ(wb::parse_size("2.5e6"), 2500000);
  EXPECT_EQ(wb::parse_size("1E3"), 1000);
  EXPECT_EQ(wb::parse_size(" 1000 "), 1000);
  EXPECT_EQ(wb::parse_size("2^36"), wb::max_size);
}

TEST(ParseSize, RejectsNonsense) {
  for (const char* bad : {"", "0", "-5", "abc", "2^", "3^4", "2^37", "2^-1", "1.5", "1e-3", "1e20", "12x",
                          "99999999999999", "-1e3", "Mi", "1.5Mi", "0x10", "2^2^2"})
    EXPECT_THROW(wb::parse_size(bad), warpfold::invalid_argument) << "'" << bad << "'";
}

TEST(ParseSize, MessageNamesTheText) {
  try {
    wb::parse_size("12x");
    FAIL() << "no throw";
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'12x'"), std::string::npos) << e.what();
  }
}

TEST(ParseSizeList, KeepsOrderAndDropsDuplicates) {
  EXPECT_EQ(wb::parse_size_list("2^20,1000,2^10"), (std::vector<std::int64_t>{1 << 20, 1000, 1 << 10}));
  EXPECT_EQ(wb::parse_size_list("1Ki,1024,2^10"), (std::vector<std::int64_t>{1024}));
  EXPECT_THROW(wb::parse_size_list("1,,2"), warpfold::invalid_argument);
  EXPECT_THROW(wb::parse_size_list("1,"), warpfold::invalid_argument);
}

TEST(FormatSize, PowersOfTwoAsExponents) {
  EXPECT_EQ(wb::format_size(1), "2^0");
  EXPECT_EQ(wb::format_size(std::int64_t(1) << 27), "2^27");
  EXPECT_EQ(wb::format_size(1000), "1000");
  EXPECT_EQ(wb::format_size((1 << 20) + 1), "1048577");
}

TEST(FormatBytes, PicksTheUnit) {
  EXPECT_EQ(wb::format_bytes(100), "100 B");
  EXPECT_EQ(wb::format_bytes(4096), "4.00 KiB");
  EXPECT_EQ(wb::format_bytes(512.0 * (1 << 20)), "512.0 MiB");
  EXPECT_EQ(wb::format_bytes(2.0 * (1 << 30)), "2.00 GiB");
}

TEST(SweepSizes, FromTwoToTheTenToTwoToTheThirtyInStepsOfFour) {
  const std::vector<std::int64_t> sizes = wb::sweep_sizes();
  ASSERT_EQ(sizes.size(), 11u);
  EXPECT_EQ(sizes.front(), 1 << 10);
  EXPECT_EQ(sizes.back(), std::int64_t(1) << 30);
  for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_EQ(sizes[i], sizes[i - 1] * 4);
}
