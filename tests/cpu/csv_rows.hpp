// Test helpers for the bench's CSV files: a whole CSV text (as the bench writes it) split into
// rows of fields, so that tests can look up cells by header and row, the checks of a column
// list, and a measured row to write.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/measurement.hpp"
#include "bench/ncu.hpp"
#include "bench/statistics.hpp"

namespace cpu_test {

inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) rows.push_back(warpfold::bench::split_csv_line(line));
  return rows;
}

// The cell of `column` in row `row` of parsed CSV rows (rows[0] is the header); a test failure
// when there is no such column.
inline std::string csv_field(const std::vector<std::vector<std::string>>& rows, std::size_t row,
                             const std::string& column) {
  for (std::size_t i = 0; i < rows[0].size(); ++i)
    if (rows[0][i] == column) return rows[row][i];
  ADD_FAILURE() << "no column " << column;
  return "";
}

// Row `row` of parsed CSV rows holds these (column, text) cells.
inline void expect_csv_fields(const std::vector<std::vector<std::string>>& rows, std::size_t row,
                              const std::vector<std::pair<std::string, std::string>>& cells) {
  for (const auto& [column, text] : cells) EXPECT_EQ(csv_field(rows, row, column), text) << column;
}

// `columns` begin with `first`, in that order, and hold every one of `also` somewhere.
inline void expect_csv_columns(const std::vector<std::string>& columns, const std::vector<std::string>& first,
                               const std::vector<std::string>& also) {
  ASSERT_GE(columns.size(), first.size());
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(columns[i], first[i]);
  for (const std::string& name : also)
    EXPECT_NE(std::find(columns.begin(), columns.end(), name), columns.end()) << name;
}

// A right f32 row of an H100 run that moved `bytes` in a median of `time_us` per call (min
// 1.5 µs less, max 9.75 µs more), against a read ceiling of 3100 GB/s; the caller names its case.
inline warpfold::bench::measurement measured_row(const std::string& impl, const std::string& family,
                                                 std::int64_t bytes, double time_us) {
  warpfold::bench::measurement m;
  m.impl = impl;
  m.family = family;
  m.dtype = "f32";
  m.bytes = bytes;
  m.time_us = time_us;
  m.time_min_us = time_us - 1.5;
  m.time_max_us = time_us + 9.75;
  m.gbps = warpfold::bench::gbps(double(bytes), time_us);
  m.ceiling_gbps = 3100.0;
  m.launches = 1;
  m.trials = 9;
  m.batch = 3;
  m.buffers = 1;
  m.device = "NVIDIA H100 80GB HBM3";
  return m;
}

}  // namespace cpu_test
