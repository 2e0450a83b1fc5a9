// `warpfold bench` and `warpfold list`: the orchestration and the terminal output. The
// measuring is in src/bench (warpfold_bench), the arithmetic and formats in warpfold_bench_host.
#pragma once

#include <ostream>

#include "options.hpp"

namespace warpfold::cli {

// Runs the bench (with --axis, the axis bench: axis_command.hpp; with --segments, the segment
// bench: segments_command.hpp). Returns the exit code: 0 when every timed result was right, 1
// when any was FAILED. Throws bench::no_device_error without a GPU, and other warpfold errors.
int run_bench(const bench_options& options);

// Every ladder step, finisher, baseline and ceiling with its one-line description, then the
// axis and segment benches' implementations and cases. No GPU.
void print_list(std::ostream& out);

}  // namespace warpfold::cli
