// Terminal tables and number formats.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/table.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

TEST(TextTable, PadsAlignsAndRules) {
  wb::text_table t;
  t.add_column("impl", wb::align::left);
  t.add_column("GB/s");
  t.add_row({"cub", "2950.1"});
  t.add_row({"0-global", "12.3"});
  EXPECT_EQ(t.render(),
            "impl        GB/s\n"
            "----------------\n"
            "cub       2950.1\n"
            "0-global    12.3\n");
  EXPECT_EQ(t.rows(), 2u);
}

TEST(TextTable, CountsUtf8AsOneColumnAndTrimsTrailingSpace) {
  wb::text_table t;
  t.add_column("time µs");
  t.add_column("note", wb::align::left);
  t.add_row({"1.00", ""});
  const std::string out = t.render();
  EXPECT_EQ(out, "time µs  note\n-------------\n   1.00\n");
}

TEST(TextTable, RowMustMatchTheColumns) {
  wb::text_table t;
  t.add_column("a");
  EXPECT_THROW(t.add_row({"1", "2"}), warpfold::invalid_argument);
  EXPECT_THROW(t.add_row({}), warpfold::invalid_argument);
}

TEST(DisplayWidth, CodePoints) {
  EXPECT_EQ(wb::display_width("abc"), 3u);
  EXPECT_EQ(wb::display_width("µs"), 2u);
  EXPECT_EQ(wb::display_width("min–max"), 7u);
}

TEST(Formats, Times) {
  EXPECT_EQ(wb::format_time_us(4.214), "4.21");
  EXPECT_EQ(wb::format_time_us(180.34), "180.3");
  EXPECT_EQ(wb::format_time_us(12345.6), "12346");
  EXPECT_EQ(wb::format_time_us(NAN), "-");
}

TEST(Formats, BandwidthPercentSpeedup) {
  EXPECT_EQ(wb::format_gbps(2974.44), "2974.4");
  EXPECT_EQ(wb::format_percent(95.95), "96.0");
  EXPECT_EQ(wb::format_speedup(2.345), "2.35x");
  EXPECT_EQ(wb::format_speedup(23.45), "23.4x");
  EXPECT_EQ(wb::format_speedup(234.5), "234x");
  EXPECT_EQ(wb::format_speedup(std::nullopt), "-");
}

TEST(Formats, Counters) {
  EXPECT_EQ(wb::format_count(0), "0");
  EXPECT_EQ(wb::format_count(999), "999");
  EXPECT_EQ(wb::format_count(1000), "1,000");
  EXPECT_EQ(wb::format_count(1048576), "1,048,576");
  EXPECT_EQ(wb::format_count(NAN), "-");
  EXPECT_EQ(wb::format_counter_percent(87.54), "87.5");
  EXPECT_EQ(wb::format_counter_percent(NAN), "-");
}
