// CSV and JSON writers for a bench run: one row (object) per measurement. Plain C++; the
// JSON uses nlohmann-json. Failed rows leave every time column empty (null in JSON): a
// wrong answer is never reported as a time.
#pragma once

#include <cstdint>
#include <fstream>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

#include "bench/measurement.hpp"

namespace warpfold::bench {

// The CSV columns, in order. The first ten are the ones the issue asks for.
const std::vector<std::string>& csv_columns();
// The axis bench's CSV columns (--axis), in order: first the standard ones (impl,dtype,shape,dims,
// bytes_in,bytes_out,time_us,gbps,ceiling_gbps, with min and max after the time), then the rest
// of the full reductions' columns that mean something for an axis case.
const std::vector<std::string>& axis_csv_columns();
// The random axis cases' CSV (--axis --random): case, then the axis columns with the view's
// strides, offset and parent after shape, then view.
const std::vector<std::string>& random_axis_csv_columns();
// The segmented sums' CSV (--segments): case, impl, segments, n, bytes, the times, gbps and
// ceiling_gbps first, then bytes_in (elements and both offset arrays), bytes_out and the rest.
const std::vector<std::string>& segment_csv_columns();

// One CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_escape(const std::string& field);

void write_csv(std::ostream& out, const std::vector<measurement>& rows);
void write_axis_csv(std::ostream& out, const std::vector<measurement>& rows);
void write_segment_csv(std::ostream& out, const std::vector<measurement>& rows);
void write_json(std::ostream& out, const run_record& run);

// Columns: step,kernel,bank_conflicts_ld,bank_conflicts_st,branch_uniformity_pct,
// achieved_occupancy_pct,dram_bytes_read,active_threads_per_inst,warp_instructions.
void write_counters_csv(std::ostream& out, const std::vector<step_counters>& rows);

// The same, to a file. Throws warpfold::error when the file cannot be written.
void write_csv_file(const std::string& path, const std::vector<measurement>& rows);
void write_axis_csv_file(const std::string& path, const std::vector<measurement>& rows);
void write_random_axis_csv_file(const std::string& path, const std::vector<measurement>& rows);
void write_segment_csv_file(const std::string& path, const std::vector<measurement>& rows);
void write_json_file(const std::string& path, const run_record& run);
void write_counters_csv_file(const std::string& path, const std::vector<step_counters>& rows);

// A table of named columns for the commands that write their rows as they measure them
// (warpfold ops, warpfold many): each row goes to the CSV at once (a file, or stdout), so a
// long run shows progress and keeps what it measured if stopped; the JSON file (an array of
// objects, one per row, numbers as numbers and missing cells as null) is written by finish().
class row_table {
 public:
  // A cell: missing (a wrong answer's times), a number, a count, or text.
  using cell = std::variant<std::monostate, double, std::int64_t, std::string>;

  // csv_path "" writes the CSV to stdout; json_path "" writes no JSON. Throws warpfold::error
  // when a file cannot be opened.
  row_table(std::vector<std::string> columns, const std::string& csv_path, std::string json_path);
  void add(const std::vector<cell>& cells);  // one cell per column, in order
  void finish() const;

 private:
  std::vector<std::string> columns_;
  std::ofstream file_;
  std::ostream* csv_;
  std::string json_path_;
  std::vector<std::vector<cell>> rows_;
};

}  // namespace warpfold::bench
