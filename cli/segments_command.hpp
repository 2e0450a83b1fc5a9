// `warpfold bench --segments`: float sums of segments of varied lengths (the eight cases of
// bench/segment_cases.hpp) next to CUB's segmented reduce on the same offset arrays, with the
// ceilings measured in the same run. The timing, checking and interleaving are the bench's
// own (bench_common.hpp, src/bench/timing.hpp); this file makes each case's offsets, inputs
// and references, and prints the table.
#pragma once

#include <ostream>

#include "options.hpp"

namespace warpfold::cli {

// Runs the segment bench. Returns the exit code: 0 when every timed result was right, 1 when
// any was FAILED. Throws bench::no_device_error without a GPU, and other warpfold errors.
int run_segments_bench(const bench_options& options);

// The segment cases and implementations, for `warpfold list`. No GPU.
void print_segments_list(std::ostream& out);

}  // namespace warpfold::cli
