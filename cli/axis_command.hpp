// `warpfold bench --axis`: the 16 standard axis cases (float sums along one dim of a 2-D
// array) next to CUB's segmented reduce, with the ceilings measured in the same run. The
// timing, checking and interleaving are the bench's own (bench_common.hpp, src/bench/timing.hpp);
// this file only makes the cases, their inputs and their references, and prints the table.
#pragma once

#include <ostream>

#include "options.hpp"

namespace warpfold::cli {

// Runs the axis bench. Returns the exit code: 0 when every timed result was right, 1 when any
// was FAILED. Throws bench::no_device_error without a GPU, and other warpfold errors.
int run_axis_bench(const bench_options& options);

// `warpfold bench --axis --random K --seed S` (axis_random_command.cpp): K random N-D cases
// and views. The same exit codes.
int run_axis_random_bench(const bench_options& options);

// The axis cases and implementations, for `warpfold list`. No GPU.
void print_axis_list(std::ostream& out);

}  // namespace warpfold::cli
