// Fixed-width text tables for the terminal, and the number formats the tables use.
// Plain C++.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace warpfold::bench {

enum class align { left, right };

class text_table {
 public:
  void add_column(std::string header, align a = align::right);
  // Throws warpfold::invalid_argument when the row's cell count differs from the columns'.
  void add_row(std::vector<std::string> cells);
  // Renders the header, a rule of dashes, and the rows; columns are separated by two spaces
  // and padded to their widest cell (counted in UTF-8 code points, so "µs" is two wide).
  // No trailing spaces.
  std::string render() const;
  std::size_t rows() const { return rows_.size(); }

 private:
  struct column {
    std::string header;
    align alignment;
  };
  std::vector<column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text: the number of code points.
std::size_t display_width(const std::string& text);

// Times in µs with precision that suits their size: "4.21", "180.3", "12345".
std::string format_time_us(double us);
// "1234.5"
std::string format_gbps(double gbps);
// "87.3"
std::string format_percent(double pct);
// "2.35x"; "-" for no value.
std::string format_speedup(const std::optional<double>& x);
// Counters: "-" for NaN, else with thousands grouping: "1,048,576".
std::string format_count(double value);
// "12.3" with one decimal; "-" for NaN.
std::string format_counter_percent(double value);

}  // namespace warpfold::bench
