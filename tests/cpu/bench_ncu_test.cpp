// Reading Nsight Compute's CSV: a sample written by hand in the format `ncu --csv
// --print-units base --metrics ...` prints, with its ==PROF== lines, quoted kernel names that
// hold commas, thousands separators and a missing value.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "bench/ncu.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

namespace {

const char* const header =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string row(int id, const std::string& kernel, const std::string& metric, const std::string& unit,
                const std::string& value) {
  return "\"" + std::to_string(id) + "\",\"4242\",\"warpfold\",\"127.0.0.1\",\"" + kernel +
         "\",\"1\",\"13\",\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric +
         "\",\"" + unit + "\",\"" + value + "\"\n";
}

std::string kernel_rows(int id, const std::string& kernel, const std::string& ld, const std::string& st,
                        const std::string& uniform, const std::string& occupancy, const std::string& dram,
                        const std::string& threads, const std::string& insts) {
  return row(id, kernel, wb::metric_dram_bytes_read, "byte", dram) +
         row(id, kernel, wb::metric_bank_conflicts_ld, "", ld) + row(id, kernel, wb::metric_bank_conflicts_st, "", st) +
         row(id, kernel, wb::metric_achieved_occupancy, "%", occupancy) +
         row(id, kernel, wb::metric_branch_uniformity, "%", uniform) +
         row(id, kernel, wb::metric_active_threads_per_inst, "", threads) +
         row(id, kernel, wb::metric_warp_instructions, "inst", insts);
}

const std::string step1 =
    "void warpfold::ladder::step1_interleaved_divergent<int, warpfold::blocks::last_block_finishes<int, "
    "warpfold::op::sum>>(const T1 *, long, T2)";
const std::string step2 =
    "void warpfold::ladder::step2_interleaved_bank_conflicts<int, warpfold::blocks::store_partial<int>>(const T1 *, "
    "long, T2)";
const std::string finish =
    "void warpfold::blocks::reduce_partials_in_one_block<int, warpfold::op::sum>(const T1 *, long, T1 *, T2)";
const std::string step3 = "step3_sequential_addressing";  // ncu's --print-kernel-base function style

std::string sample() {
  return "==PROF== Connected to process 4242 (/work/build/cli/warpfold)\n"
         "==PROF== Profiling \"step1_interleaved_divergent\" - 0: 0%....50%....100% - 3 passes\n"
         "==PROF== Disconnected from process 4242\n"
         "some program output on stdout\n" +
         std::string(header) +
         kernel_rows(0, "void fill_kernel<int>(int *, long, unsigned long)", "0", "0", "100", "90", "0", "32",
                     "1,048,576") +
         kernel_rows(1, step1, "0", "0", "85.12", "93.5", "536,870,912", "9.87", "98,566,144") +
         kernel_rows(2, step2, "12,345,678", "4,194,304", "100", "94.25", "536,870,976", "24.5", "37,748,736") +
         kernel_rows(3, finish, "10", "2", "99", "12.5", "2,097,152", "3.25", "196,608") +
         kernel_rows(4, step3, "0", "0", "100", "n/a", "536,870,912", "n/a", "n/a") + "==PROF== Report: done\n";
}

}  // namespace

TEST(SplitCsvLine, QuotesAndEscapes) {
  EXPECT_EQ(wb::split_csv_line("a,b,,c"), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(wb::split_csv_line("\"x, y\",\"say \"\"hi\"\"\",3\r"), (std::vector<std::string>{"x, y", "say \"hi\"", "3"}));
  EXPECT_EQ(wb::split_csv_line(""), (std::vector<std::string>{""}));
  EXPECT_THROW(wb::split_csv_line("\"open"), warpfold::invalid_argument);
}

TEST(ParseMetricValue, SeparatorsAndMissing) {
  EXPECT_EQ(wb::parse_metric_value("1,048,576"), 1048576.0);
  EXPECT_EQ(wb::parse_metric_value("87.5"), 87.5);
  EXPECT_EQ(wb::parse_metric_value("0"), 0.0);
  EXPECT_TRUE(std::isnan(wb::parse_metric_value("n/a")));
  EXPECT_TRUE(std::isnan(wb::parse_metric_value("")));
}

TEST(ParseNcuCsv, OneEntryPerKernelInLaunchOrder) {
  std::istringstream in(sample());
  const std::vector<wb::profiled_kernel> kernels = wb::parse_ncu_csv(in);
  ASSERT_EQ(kernels.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(kernels[i].id, i);
  EXPECT_EQ(kernels[1].name, step1);
  EXPECT_EQ(kernels[2].metrics.at(wb::metric_bank_conflicts_ld), 12345678.0);
  EXPECT_EQ(kernels[2].metrics.at(wb::metric_dram_bytes_read), 536870976.0);
  EXPECT_EQ(kernels[1].metrics.at(wb::metric_branch_uniformity), 85.12);
  EXPECT_EQ(kernels[1].metrics.at(wb::metric_active_threads_per_inst), 9.87);
  EXPECT_EQ(kernels[1].metrics.at(wb::metric_warp_instructions), 98566144.0);
  EXPECT_EQ(kernels[1].metrics.size(), 7u);
  EXPECT_TRUE(std::isnan(kernels[4].metrics.at(wb::metric_achieved_occupancy)));
}

TEST(ParseNcuCsv, NoTableIsAnError) {
  std::istringstream in("==PROF== Connected\n==ERROR== ERR_NVGPUCTRPERM - no permission\n");
  EXPECT_THROW(wb::parse_ncu_csv(in), warpfold::invalid_argument);
  std::istringstream missing_column("\"ID\",\"Kernel Name\",\"Metric Name\"\n");
  EXPECT_THROW(wb::parse_ncu_csv(missing_column), warpfold::invalid_argument);
}

TEST(KernelNames, ShortNameAndStep) {
  EXPECT_EQ(wb::short_kernel_name(step1), "warpfold::ladder::step1_interleaved_divergent");
  EXPECT_EQ(wb::short_kernel_name("step3_sequential_addressing"), "step3_sequential_addressing");
  EXPECT_EQ(wb::short_kernel_name("step9_vector_loads<256, float, X>"), "step9_vector_loads");
  EXPECT_EQ(wb::ladder_step_of_kernel(step1), 1);
  EXPECT_EQ(wb::ladder_step_of_kernel(step3), 3);
  EXPECT_EQ(wb::ladder_step_of_kernel("void warpfold::ladder::step0_global_halving<int>(T1 *, long, T2)"), 0);
  EXPECT_EQ(wb::ladder_step_of_kernel(finish), -1);
  EXPECT_EQ(wb::ladder_step_of_kernel("fill_kernel<int>"), -1);
  EXPECT_EQ(wb::ladder_step_of_kernel("mystep1_thing"), -1);
}

TEST(CountersByStep, SumsCountsOverTheStepsKernelsAndKeepsTheMainKernelsPercentages) {
  std::istringstream in(sample());
  const std::vector<wb::step_counters> steps = wb::counters_by_step(wb::parse_ncu_csv(in));
  ASSERT_EQ(steps.size(), 3u);  // the fill kernel belongs to no step

  EXPECT_EQ(steps[0].step, 1);
  EXPECT_EQ(steps[0].step_name, "1-interleaved");
  EXPECT_EQ(steps[0].kernel, "step1_interleaved_divergent");
  EXPECT_EQ(steps[0].bank_conflicts_ld, 0.0);
  EXPECT_EQ(steps[0].branch_uniformity_pct, 85.12);  // divergence shows
  EXPECT_EQ(steps[0].dram_bytes_read, 536870912.0);
  EXPECT_EQ(steps[0].active_threads_per_inst, 9.87);  // idle lanes show
  EXPECT_EQ(steps[0].warp_instructions, 98566144.0);

  EXPECT_EQ(steps[1].step_name, "2-strided-index");
  EXPECT_EQ(steps[1].kernel, "step2_interleaved_bank_conflicts+reduce_partials_in_one_block");
  EXPECT_EQ(steps[1].bank_conflicts_ld, 12345678.0 + 10);  // bank conflicts show
  EXPECT_EQ(steps[1].bank_conflicts_st, 4194304.0 + 2);
  EXPECT_EQ(steps[1].dram_bytes_read, 536870976.0 + 2097152);
  EXPECT_EQ(steps[1].achieved_occupancy_pct, 94.25);  // the main kernel's, not the finisher's 12.5
  EXPECT_EQ(steps[1].branch_uniformity_pct, 100.0);
  EXPECT_EQ(steps[1].active_threads_per_inst, 24.5);  // the main kernel's, not the finisher's 3.25
  EXPECT_EQ(steps[1].warp_instructions, 37748736.0);  // the main kernel's, not summed with the finisher's

  EXPECT_EQ(steps[2].step_name, "3-sequential");
  EXPECT_EQ(steps[2].bank_conflicts_ld, 0.0);
  EXPECT_TRUE(std::isnan(steps[2].achieved_occupancy_pct));
  EXPECT_TRUE(std::isnan(steps[2].active_threads_per_inst));
  EXPECT_TRUE(std::isnan(steps[2].warp_instructions));
}

TEST(CountersByStep, RelaunchedStepJoinsItsGroup) {
  const std::string step5 = "void warpfold::ladder::step5_unroll_last_warp<int, X>(const T1 *, long, T2)";
  std::istringstream in(std::string(header) + kernel_rows(0, step5, "5", "1", "97", "90", "1,000", "30.5", "5,000") +
                        kernel_rows(1, step5, "3", "1", "95", "20", "24", "4", "70"));
  const std::vector<wb::step_counters> steps = wb::counters_by_step(wb::parse_ncu_csv(in));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].bank_conflicts_ld, 8.0);
  EXPECT_EQ(steps[0].dram_bytes_read, 1024.0);
  EXPECT_EQ(steps[0].achieved_occupancy_pct, 90.0);
  EXPECT_EQ(steps[0].active_threads_per_inst, 30.5);
  EXPECT_EQ(steps[0].warp_instructions, 5000.0);  // the relaunch is a finisher: not added
  EXPECT_EQ(steps[0].kernel, "step5_unroll_last_warp");
}

TEST(CounterMetricList, HasTheSevenMetrics) {
  EXPECT_EQ(wb::counter_metric_list(),
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
            "smsp__sass_average_branch_targets_threads_uniform.pct,"
            "sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,"
            "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio,smsp__inst_executed.sum");
}
