// What `warpfold bench` and `warpfold bench --axis` share: the stream they run on, the
// progress lines, the ceilings measured at the start of every run and the header that shows
// them, and the measurement of one point with the trials of its implementations interleaved.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "bench/implementation.hpp"
#include "bench/measurement.hpp"
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

// Measures every contender of one point, their trials interleaved round robin
// (bench::interleaved_schedule): each is opened, warmed up and calibrated, then trial 1 of each
// runs, then trial 2 of each, and so on; each is verified last. A disturbance of the machine
// then spreads over all of them instead of corrupting one's median. They all hold their
// scratch memory until the point is done. A wrong answer or an exception ends that
// contender's measurement (FAILED) and the others go on, unless the CUDA context is broken:
// then nothing later can be trusted, and this throws. Returns the completed rows, in order.
std::vector<bench::measurement> measure_interleaved(std::vector<contender>& contenders, int trials,
                                                    const std::string& point, progress& bar);

}  // namespace warpfold::cli
