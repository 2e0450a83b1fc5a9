// Reading Nsight Compute's CSV output (`ncu --csv --print-units base --metrics ...`) and
// turning it into per-step counters for the ladder table. Plain C++: the CLI runs ncu, this
// file only understands what ncu printed.
//
// ncu prints one row per (kernel launch, metric):
//   "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",
//   "Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
// with its own "==PROF==" lines (and the profiled program's output) around the table. Columns
// are found by their header names, so extra or reordered columns do not matter.
#pragma once

#include <istream>
#include <map>
#include <string>
#include <vector>

#include "bench/measurement.hpp"

namespace warpfold::bench {

inline constexpr const char* metric_bank_conflicts_ld = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char* metric_bank_conflicts_st = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
inline constexpr const char* metric_branch_uniformity = "smsp__sass_average_branch_targets_threads_uniform.pct";
inline constexpr const char* metric_achieved_occupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* metric_dram_bytes_read = "dram__bytes_read.sum";
// Average threads per executed warp instruction whose predicate is on (32 = every lane does
// work): a second view of divergence, since branch uniformity cannot show step 1's idle lanes
// (the compiler predicates its add instead of branching). Lanes idled by a branch, an exit or
// a false predicate all lower it; the plain thread_inst_executed ratio would count
// predicated-off lanes as active.
inline constexpr const char* metric_active_threads_per_inst = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio";
// Warp-level instructions executed: what step 1's divergence costs. It hardly shows in branch
// uniformity or threads per instruction (the compiler predicates the add, and both are
// kernel-wide averages), but every warp runs every round's instructions with few lanes busy,
// where steps 2/3 skip whole idle warps on a warp-uniform branch: step 1 executes many more
// warp instructions for the same work.
inline constexpr const char* metric_warp_instructions = "smsp__inst_executed.sum";

// The seven metrics above, comma-separated, for ncu's --metrics.
std::string counter_metric_list();

// Splits one CSV line into fields ("" inside quotes is a quote). Throws
// warpfold::invalid_argument on an unterminated quote.
std::vector<std::string> split_csv_line(const std::string& line);

// A metric value as ncu prints it: "1,048,576", "87.5", "0". NaN for "n/a" or an empty field.
double parse_metric_value(const std::string& text);

struct profiled_kernel {
  int id = -1;                             // ncu's launch ID, in launch order
  std::string name;                        // the "Kernel Name" column as printed
  std::map<std::string, double> metrics;   // metric name -> value (base units)
};

// All kernels of ncu's CSV, in launch order. Lines before the header and lines that are not
// CSV rows (==PROF==, ==WARNING==, program output) are skipped. Throws
// warpfold::invalid_argument when there is no header or a needed column is missing.
std::vector<profiled_kernel> parse_ncu_csv(std::istream& in);

// "warpfold::ladder::step3_sequential_addressing" from any of ncu's name styles
// ("void ns::f<T, ...>(const T*, long, F)", "f<int, ...>", "f").
std::string short_kernel_name(const std::string& name);

// Which ladder step a kernel belongs to: the k of "stepK_" in its name, or -1.
int ladder_step_of_kernel(const std::string& name);

// Groups the ladder's kernels by step. A step's kernel starts a group; the finisher kernels
// that follow it (reduce_partials_in_one_block, or the same step's kernel relaunched on the
// partials) join that group. Counts (bank conflicts, DRAM bytes) are summed over the group;
// percentages and ratios (branch uniformity, occupancy, active threads per instruction) are
// the first (main) kernel's, and so are warp instructions, which compare the steps' own
// reduction code. Kernels that belong to no step (fills, copies) are ignored. One
// entry per step, in step order.
std::vector<step_counters> counters_by_step(const std::vector<profiled_kernel>& kernels);

}  // namespace warpfold::bench
