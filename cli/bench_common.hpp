// What `warpfold bench`, `warpfold bench --axis` and `warpfold bench --segments` share: the
// stream they run on, the progress lines, the ceilings measured at the start of every run and
// the header that shows them, and the measurement of one point with the trials of its
// implementations interleaved; for the benches made of cases with many outputs (axis,
// segments), the choice of implementations, the checked sessions, the loop over cases and the
// table cells and summaries they print alike.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bench/axis_implementation.hpp"
#include "bench/implementation.hpp"
#include "bench/measurement.hpp"
#include "bench/pool.hpp"
#include "bench/reference.hpp"
#include "bench/selection.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "options.hpp"

namespace warpfold::cli {

class owned_stream {
 public:
  owned_stream();
  ~owned_stream();
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Progress on stderr: one rewritten line on a terminal, one line per measurement otherwise.
class progress {
 public:
  progress(bool enabled, int total);
  ~progress() { clear(); }
  // Notes (skipped sizes and types) are printed even with --quiet.
  void note(const std::string& what);
  void begin(const std::string& what);
  void skip(int count) { done_ += count; }
  // While the next `count` measurements run together (their trials interleaved), what they
  // are at: on a terminal only, rewritten in place. Their results come after, through
  // begin/end, one line per measurement.
  void status(int count, const std::string& what);
  void end(const std::string& result);
  // begin + end for a finished measurement: its time and GB/s, or FAILED.
  void result(const std::string& what, const bench::measurement& m);
  void clear();

 private:
  bool enabled_;
  bool tty_;
  bool dirty_ = false;
  int total_;
  int done_ = 0;
  std::string current_;
};

struct ceilings {
  bench::measurement read, copy, launch;
  bench::measurement launch_dependent;  // the same empty kernel, launched as warpfold launches
  std::vector<bench::measurement> rows() const;  // all of them, for the CSV and JSON
};

// The read and copy ceilings (on a 2 GiB buffer, or less when memory is short) and the launch
// floor, as rows whose ceiling_gbps is the read ceiling.
ceilings measure_ceilings(const bench_options& o, const bench::device_description& d, cudaStream_t stream);

void print_header(std::ostream& out, const bench::device_description& d);
// The run's exit code: 1, after a line on stdout saying why, when any implementation gave a
// wrong answer; else 0.
int exit_code_after(bool any_failed);
void print_ceilings(std::ostream& out, const ceilings& c);
void print_method(std::ostream& out, const bench::timing_options& t, const bench::device_description& d);

// The timing method of a run (--trials, --batch-ms), and the record it starts with: the
// device and the method, no measurements yet. `block_size`: the ladder's, 0 elsewhere.
bench::timing_options timing_of(const bench_options& o);
bench::run_record new_record(const bench::device_description& d, const bench::timing_options& t, int block_size = 0);

// How every bench run starts: prints the header, measures the ceilings (recorded as the run's
// first rows) and prints them and the method.
ceilings begin_run(const bench_options& o, const bench::device_description& d, const bench::timing_options& t,
                   cudaStream_t stream, progress& bar, bench::run_record& record);

// One implementation at a measurement point. The caller fills in `row` (names, sizes, bytes,
// ceiling) and `label` (for the progress line), and `open`, which makes the implementation and
// the session that times it; measure_interleaved completes the row.
struct contender {
  struct opened {
    std::unique_ptr<bench::timed_reduction> impl;
    std::unique_ptr<bench::timing_session> session;  // refers to impl
  };
  bench::measurement row;
  std::string label;
  std::function<opened()> open;
};

// A row before it is measured, with what every bench fills in alike: the implementation, the
// pool's type and element count, and the run (trials, buffers, device, read ceiling). The
// caller adds its bytes and what else names the point.
bench::measurement pending_row(const std::string& impl, const std::string& family, const bench::input_pool& pool,
                               const bench::timing_options& timing, const std::string& device_name,
                               double ceiling_gbps);

// Measures every contender of one point, their trials interleaved round robin
// (bench::interleaved_schedule): each is opened, warmed up and calibrated, then trial 1 of each
// runs, then trial 2 of each, and so on; each is verified last. A disturbance of the machine
// then spreads over all of them instead of corrupting one's median. They all hold their
// scratch memory until the point is done. A wrong answer or an exception ends that
// contender's measurement (FAILED) and the others go on, unless the CUDA context is broken:
// then nothing later can be trusted, and this throws. Returns the completed rows, in order.
std::vector<bench::measurement> measure_interleaved(std::vector<contender>& contenders, int trials,
                                                    const std::string& point, progress& bar);

// The entries of a registry (axis_impl_entry, segment_impl_entry: anything with a name and a
// family) that --impl chose, in registry order. Without --impl: all but the family
// "sum-modes" (the reproducible and exact forms), which run only when named, so that the
// standard case tables stay the default and CUB.
template <typename Entry>
std::vector<const Entry*> chosen_entries(const std::vector<Entry>& registry, const std::vector<std::string>& filters) {
  std::vector<bench::impl_name> catalogue;
  for (const Entry& e : registry) catalogue.push_back({e.name, e.family});
  std::vector<std::string> defaults;
  for (const Entry& e : registry)
    if (e.family != "sum-modes") defaults.push_back(e.name);
  const std::vector<std::string> chosen = bench::select_impls(filters.empty() ? defaults : filters, catalogue);
  std::vector<const Entry*> entries;
  for (const Entry& e : registry)
    if (std::find(chosen.begin(), chosen.end(), e.name) != chosen.end()) entries.push_back(&e);
  return entries;
}

// Whether a case that needs `needed` bytes of device memory fits in what is free now. If not,
// says so in a note (shown even with --quiet) and counts its `measurements` as done.
bool fits_in_device_memory(const std::string& what, std::int64_t needed, int measurements, progress& bar);

// What the cases of a case bench are measured with.
struct case_context {
  const bench::device_description& device;
  const bench::timing_options& timing;
  const ceilings& ceiling;  // of this run; rows take ceiling.read.gbps as their ceiling
  cudaStream_t stream;
  progress& bar;
};

// Keeps the rows of one case (named `what` in the progress lines): in the record, in the
// table, and in the exit code when one is FAILED.
using keep_rows = std::function<void(const std::string& what, const std::vector<bench::measurement>& rows)>;

// A bench made of cases (--axis, --axis --random, --segments): what differs between them.
struct case_bench {
  int measurements = 0;  // the rows all cases give, for the progress count
  // Says what the rows measure, after the header, the ceilings and the method.
  std::function<void(std::ostream&)> print_legend;
  // Measures every case in turn, handing each case's rows to `keep`.
  std::function<void(const case_context&, const keep_rows& keep)> measure;
  // The table and summaries, after the last case.
  std::function<void(std::ostream&, const std::vector<bench::measurement>& rows, const ceilings&)> print_results;
  // --csv: the bench's own columns (output.hpp).
  void (*write_csv_file)(const std::string& path, const std::vector<bench::measurement>& rows) = nullptr;
};

// `warpfold list`'s table of a case bench's implementations: one row per registry entry, its
// name and then `details(entry)` under `detail_columns`, and when the production API is not
// built into this binary, a "warpfold" row with `missing_production` instead.
template <typename Entry, typename Details>
std::string implementations_table(const std::vector<Entry>& registry, const std::vector<std::string>& detail_columns,
                                  Details details, const std::vector<std::string>& missing_production) {
  bench::text_table table;
  table.add_column("impl", bench::align::left);
  for (const std::string& column : detail_columns) table.add_column(column, bench::align::left);
  bool production = false;
  for (const Entry& e : registry) {
    production = production || e.family == "production";
    std::vector<std::string> cells = details(e);
    cells.insert(cells.begin(), e.name);
    table.add_row(std::move(cells));
  }
  if (!production) {
    std::vector<std::string> cells = missing_production;
    cells.insert(cells.begin(), "warpfold");
    table.add_row(std::move(cells));
  }
  return table.render();
}

// Checks every output of the call that reduced pool buffer `buffer`.
using outputs_check = std::function<bench::check_outcome(int buffer, const std::vector<double>& outputs)>;

// A contender of the axis or segment bench, opened: the implementation, and a session that
// checks all of its outputs with `check` after every checked call.
contender::opened open_checking_outputs(std::unique_ptr<bench::axis_implementation> impl, outputs_check check,
                                        bench::input_pool& pool, const case_context& at);

// Runs a case bench as every one runs: opens the device, prints the header, measures the
// ceilings (the record's first rows), prints the method and the legend, measures the cases,
// writes --csv and --json (also when a measurement throws: whatever was measured is kept),
// then prints the results. Returns the exit code (exit_code_after). The caller checks for a
// device first (bench::require_device), so that a machine without one gets one line.
int run_case_bench(const bench_options& o, const case_bench& spec);

// A row's median time, its min–max, GB/s and share of the read ceiling as table cells; FAILED
// and dashes for a wrong answer.
std::vector<std::string> result_cells(const bench::measurement& m);

// Says whether two rows measured the same case.
using same_case = std::function<bool(const bench::measurement&, const bench::measurement&)>;

// CUB's median time over this row's, when `rows` hold a right CUB row of the same case.
std::optional<double> speedup_over_cub(const bench::measurement& m, const std::vector<bench::measurement>& rows,
                                       const same_case& same);

// "lowest    warpfold: 91.2% of the read ceiling (WHERE)": each implementation's lowest share
// of the ceiling, in the order the rows first name them; `where` names the row's case.
void print_lowest_shares(std::ostream& out, const std::vector<bench::measurement>& rows,
                         const std::function<std::string(const bench::measurement&)>& where);

}  // namespace warpfold::cli
