// Test helper: a whole CSV text (as the bench writes it) split into rows of fields, so that
// tests can look up cells by header and row.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "bench/ncu.hpp"

namespace cpu_test {

inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) rows.push_back(warpfold::bench::split_csv_line(line));
  return rows;
}

}  // namespace cpu_test
