#include "bench/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "warpfold/error.hpp"

namespace warpfold::bench {

void text_table::add_column(std::string header, align a) { columns_.push_back({std::move(header), a}); }

void text_table::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size())
    throw invalid_argument("text_table: row has " + std::to_string(cells.size()) + " cells, table has " +
                           std::to_string(columns_.size()) + " columns");
  rows_.push_back(std::move(cells));
}

std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;  // count lead bytes, skip continuations
  return width;
}

std::string text_table::render() const {
  std::vector<std::size_t> widths;
  for (const column& c : columns_) widths.push_back(display_width(c.header));
  for (const auto& row : rows_)
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));

  auto render_line = [&](auto cell_at) {
    std::string line;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const std::string& cell = cell_at(i);
      const std::string pad(widths[i] - display_width(cell), ' ');
      if (i) line += "  ";
      line += columns_[i].alignment == align::right ? pad + cell : cell + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };

  std::string out = render_line([&](std::size_t i) -> const std::string& { return columns_[i].header; });
  std::size_t total = 0;
  for (std::size_t i = 0; i < widths.size(); ++i) total += widths[i] + (i ? 2 : 0);
  out += std::string(total, '-') + "\n";
  for (const auto& row : rows_) out += render_line([&](std::size_t i) -> const std::string& { return row[i]; });
  return out;
}

namespace {
std::string printf_string(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}
}  // namespace

std::string format_time_us(double us) {
  if (!std::isfinite(us)) return "-";
  if (us < 100) return printf_string("%.2f", us);
  if (us < 10000) return printf_string("%.1f", us);
  return printf_string("%.0f", us);
}

std::string format_gbps(double gbps) { return std::isfinite(gbps) ? printf_string("%.1f", gbps) : "-"; }

std::string format_percent(double pct) { return std::isfinite(pct) ? printf_string("%.1f", pct) : "-"; }

std::string format_speedup(const std::optional<double>& x) {
  if (!x || !std::isfinite(*x)) return "-";
  return printf_string(*x < 10 ? "%.2fx" : (*x < 100 ? "%.1fx" : "%.0fx"), *x);
}

std::string format_count(double value) {
  if (!std::isfinite(value)) return "-";
  const std::string digits = printf_string("%.0f", std::fabs(value));
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return (value < 0 ? "-" : "") + grouped;
}

std::string format_counter_percent(double value) { return std::isfinite(value) ? printf_string("%.1f", value) : "-"; }

}  // namespace warpfold::bench
