// CSV and JSON writers for a bench run: one row (object) per measurement. Plain C++; the
// JSON uses nlohmann-json. Failed rows leave every time column empty (null in JSON): a
// wrong answer is never reported as a time.
#pragma once

#include <iosfwd>
#include <string>
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

}  // namespace warpfold::bench
