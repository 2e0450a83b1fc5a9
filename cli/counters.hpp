// `warpfold bench --counters`: runs this same program's hidden `ncu-target` command under
// Nsight Compute and reads back one set of hardware counters per ladder step.
#pragma once

#include <optional>
#include <ostream>

#include "ncu_command.hpp"
#include "options.hpp"

namespace warpfold::cli {

// Runs ncu (when it is on PATH) and parses its output. Problems (no ncu, ncu failing, no
// counters in its output) are reported on `log` and give nullopt: the bench goes on without.
std::optional<counters_run> collect_counters(const bench_options& options, std::ostream& log);

// The hidden command: runs each selected ladder step once on one input, checks each answer,
// prints nothing on stdout. Returns the exit code.
int run_ncu_target(const bench_options& options);

}  // namespace warpfold::cli
