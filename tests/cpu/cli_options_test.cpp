// The command line: defaults, every option's accepted forms, the errors, and --help.
#include <gtest/gtest.h>

#include "ncu_command.hpp"
#include "bench/ops.hpp"
#include "options.hpp"

namespace wc = warpfold::cli;
namespace wb = warpfold::bench;
using warpfold::ladder::finisher;

namespace {
wc::bench_options bench(std::vector<std::string> args) {
  args.insert(args.begin(), "bench");
  const wc::command cmd = wc::parse_command_line(args);
  EXPECT_EQ(cmd.kind, wc::command_kind::bench);
  return cmd.bench;
}

// Every one of these command lines is refused as a usage error.
void expect_usage_errors(const std::vector<std::vector<std::string>>& command_lines) {
  for (const auto& args : command_lines) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_THROW(wc::parse_command_line(args), wc::usage_error) << joined;
  }
}
}  // namespace

TEST(Options, DefaultRun) {
  const wc::bench_options o = bench({});
  EXPECT_FALSE(o.sweep);
  EXPECT_TRUE(o.impls.empty());
  EXPECT_EQ(o.dtypes, (std::vector<wb::dtype>{wb::dtype::i32}));
  EXPECT_EQ(o.finishers, (std::vector<finisher>{finisher::last_block}));
  EXPECT_EQ(o.sizes, (std::vector<std::int64_t>{std::int64_t(1) << 27}));
  EXPECT_FALSE(o.sizes_given);
  EXPECT_EQ(o.trials, 9);
  EXPECT_EQ(o.block_size, 256);
  EXPECT_EQ(o.device, 0);
  EXPECT_FALSE(o.counters);
  EXPECT_FALSE(o.quiet);
  EXPECT_TRUE(o.csv_path.empty());
  EXPECT_TRUE(o.json_path.empty());
}

TEST(Options, SweepDefaults) {
  const wc::bench_options o = bench({"--sweep"});
  EXPECT_TRUE(o.sweep);
  EXPECT_EQ(o.dtypes, (std::vector<wb::dtype>{wb::dtype::i32, wb::dtype::f32, wb::dtype::f64}));
  ASSERT_EQ(o.sizes.size(), 11u);
  EXPECT_EQ(o.sizes.front(), 1 << 10);
  EXPECT_EQ(o.sizes.back(), std::int64_t(1) << 30);
  // Explicit types and sizes win over the sweep's defaults.
  const wc::bench_options narrowed = bench({"--sweep", "--dtype", "f16", "--n", "2^12,2^14"});
  EXPECT_EQ(narrowed.dtypes, (std::vector<wb::dtype>{wb::dtype::f16}));
  EXPECT_EQ(narrowed.sizes, (std::vector<std::int64_t>{1 << 12, 1 << 14}));
  EXPECT_TRUE(narrowed.sizes_given);
}

TEST(Options, ListsAsCommasOrRepeats) {
  const wc::bench_options o = bench({"--impl", "3,cub", "--impl", "thrust", "--dtype", "f32,double,i32,float",
                                     "--finisher", "host,atomic", "--finisher", "host"});
  EXPECT_EQ(o.impls, (std::vector<std::string>{"3", "cub", "thrust"}));
  EXPECT_EQ(o.dtypes, (std::vector<wb::dtype>{wb::dtype::f32, wb::dtype::f64, wb::dtype::i32}));
  EXPECT_EQ(o.finishers, (std::vector<finisher>{finisher::host, finisher::atomic}));
}

TEST(Options, AllFinishers) {
  const wc::bench_options o = bench({"--finisher", "all"});
  EXPECT_EQ(o.finishers.size(), 5u);
}

TEST(Options, SizesInEveryForm) {
  const wc::bench_options o = bench({"--n", "2^26,1e8", "--n", "67108864,64Mi,1000"});
  EXPECT_EQ(o.sizes, (std::vector<std::int64_t>{std::int64_t(1) << 26, 100000000, 1000}));
  EXPECT_TRUE(o.sizes_given);
}

TEST(Options, EverythingElse) {
  const wc::bench_options o =
      bench({"--trials", "15", "--batch-ms", "2.5", "--block-size", "512", "--device", "1", "--csv", "out.csv",
             "--json", "out.json", "--counters-csv", "c.csv", "--quiet"});
  EXPECT_EQ(o.trials, 15);
  EXPECT_DOUBLE_EQ(o.batch_ms, 2.5);
  EXPECT_EQ(o.block_size, 512);
  EXPECT_EQ(o.device, 1);
  EXPECT_EQ(o.csv_path, "out.csv");
  EXPECT_EQ(o.json_path, "out.json");
  EXPECT_EQ(o.counters_csv_path, "c.csv");
  EXPECT_TRUE(o.counters);  // --counters-csv implies --counters
  EXPECT_TRUE(o.quiet);
  EXPECT_TRUE(bench({"--counters"}).counters);
}

TEST(Options, BadCommandLinesThrowUsageErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {"bench", "--trials", "3"},          // below the method's minimum of 7
      {"bench", "--trials", "x"},
      {"bench", "--dtype", "i8"},
      {"bench", "--finisher", "fast"},
      {"bench", "--n", "0"},
      {"bench", "--n", "2^40"},
      {"bench", "--n", "lots"},
      {"bench", "--block-size", "100"},    // not a power of two
      {"bench", "--block-size", "2048"},
      {"bench", "--device", "-1"},
      {"bench", "--batch-ms", "0"},
      {"bench", "--no-such-option"},
      {"bench", "--csv"},                  // missing file name
      {"frobnicate"},
      {"list", "--sweep"},
  };
  expect_usage_errors(bad);
}

TEST(Options, UsageErrorsSayWhatIsWrong) {
  try {
    wc::parse_command_line(std::vector<std::string>{"bench", "--dtype", "i8"});
    FAIL();
  } catch (const wc::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("'i8'"), std::string::npos) << e.what();
  }
}

TEST(Options, ListCommand) {
  EXPECT_EQ(wc::parse_command_line(std::vector<std::string>{"list"}).kind, wc::command_kind::list);
}

TEST(Options, HelpExplainsEveryBenchOption) {
  const wc::command cmd = wc::parse_command_line(std::vector<std::string>{"bench", "--help"});
  ASSERT_EQ(cmd.kind, wc::command_kind::help);
  EXPECT_EQ(cmd.exit_code, 0);
  for (const char* option : {"--sweep", "--impl", "--dtype", "--finisher", "--n", "--trials", "--batch-ms",
                             "--block-size", "--device", "--counters", "--csv", "--json", "--counters-csv", "--quiet"})
    EXPECT_NE(cmd.help_text.find(option), std::string::npos) << option;
  EXPECT_NE(cmd.help_text.find("median"), std::string::npos);
  EXPECT_NE(cmd.help_text.find("interleaved across implementations"), std::string::npos);
  EXPECT_NE(cmd.help_text.find("active threads per warp instruction"), std::string::npos);  // --counters
  EXPECT_NE(cmd.help_text.find("active_threads_per_inst"), std::string::npos);               // --counters-csv
  EXPECT_NE(cmd.help_text.find("warp-level instructions executed"), std::string::npos);      // --counters
  EXPECT_NE(cmd.help_text.find("active_threads_per_inst,warp_instructions"), std::string::npos);  // --counters-csv
  EXPECT_EQ(cmd.help_text.find("ncu-target"), std::string::npos);
}

TEST(Options, TopLevelHelpAndNoCommand) {
  const wc::command help = wc::parse_command_line(std::vector<std::string>{"--help"});
  EXPECT_EQ(help.kind, wc::command_kind::help);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.help_text.find("bench"), std::string::npos);
  EXPECT_NE(help.help_text.find("list"), std::string::npos);
  EXPECT_EQ(help.help_text.find("ncu-target"), std::string::npos);  // hidden

  const wc::command none = wc::parse_command_line(std::vector<std::string>{});
  EXPECT_EQ(none.kind, wc::command_kind::help);
  EXPECT_EQ(none.exit_code, 2);
}

TEST(Options, HiddenNcuTargetTakesTheBenchOptions) {
  const wc::command cmd = wc::parse_command_line(
      std::vector<std::string>{"ncu-target", "--n", "1024", "--dtype", "f32", "--finisher", "second-kernel"});
  EXPECT_EQ(cmd.kind, wc::command_kind::ncu_target);
  EXPECT_EQ(cmd.bench.sizes, (std::vector<std::int64_t>{1024}));
  EXPECT_EQ(cmd.bench.finishers, (std::vector<finisher>{finisher::second_kernel}));
}

TEST(Counters, TargetIsTheFirstLadderTypeAndSize) {
  const auto t = wc::counters_target(bench({"--dtype", "f16,f64,i32", "--n", "2^20,2^22", "--finisher", "atomic,host"}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->type, wb::dtype::f64);
  EXPECT_EQ(t->n, 1 << 20);
  EXPECT_EQ(t->finisher, finisher::atomic);
  EXPECT_EQ(wc::counters_target(bench({"--sweep"}))->n, std::int64_t(1) << 27);
  EXPECT_FALSE(wc::counters_target(bench({"--dtype", "f16,bf16"})));
}

TEST(Counters, NcuCommandLine) {
  const wc::bench_options o = bench({"--impl", "1,2", "--block-size", "128", "--device", "1"});
  const auto words = wc::ncu_command("/usr/bin/ncu", "/x/warpfold", o, *wc::counters_target(o));
  const std::vector<std::string> want = {
      "/usr/bin/ncu", "--clock-control", "none", "--csv", "--print-units", "base", "--metrics",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
      "smsp__sass_average_branch_targets_threads_uniform.pct,sm__warps_active.avg.pct_of_peak_sustained_active,"
      "dram__bytes_read.sum,smsp__thread_inst_executed_pred_on_per_inst_executed.ratio,smsp__inst_executed.sum",
      "/x/warpfold", "ncu-target", "--n", "134217728", "--dtype", "i32", "--finisher", "last-block", "--block-size",
      "128", "--device", "1", "--impl", "1", "--impl", "2"};
  EXPECT_EQ(words, want);
  // The words it makes must parse as the hidden command.
  std::vector<std::string> args(words.begin() + 9, words.end());
  EXPECT_EQ(wc::parse_command_line(args).kind, wc::command_kind::ncu_target);
}

TEST(Counters, ShellQuoting) {
  EXPECT_EQ(wc::shell_quote("plain"), "'plain'");
  EXPECT_EQ(wc::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(wc::shell_quote("a b;c"), "'a b;c'");
}

TEST(Counters, FindOnPath) {
  EXPECT_TRUE(wc::find_on_path("sh"));
  EXPECT_FALSE(wc::find_on_path("warpfold-no-such-program-xyz"));
}

TEST(Options, AxisRunsTheIssuesSixteenCasesInF32) {
  const wc::bench_options o = bench({"--axis"});
  EXPECT_TRUE(o.axis);
  EXPECT_EQ(o.dtypes, (std::vector<wb::dtype>{wb::dtype::f32}));
  EXPECT_EQ(o.shapes, wb::issue_axis_shapes());
  EXPECT_EQ(o.dims, (std::vector<int>{1, 0}));
  EXPECT_FALSE(bench({}).axis);
  EXPECT_TRUE(bench({}).shapes.empty());
}

TEST(Options, AxisTakesShapesDimsAndTheCommonOptions) {
  const wc::bench_options o =
      bench({"--axis", "--shape", "8192x8192,2^24x4", "--shape", "16x4194304", "--dims", "0", "--dims=-1", "--impl",
             "warpfold", "--dtype", "f32", "--trials", "11", "--csv", "axis.csv", "--json", "axis.json", "-q"});
  EXPECT_EQ(o.shapes, (std::vector<wb::matrix_shape>{{8192, 8192}, {16777216, 4}, {16, 4194304}}));
  EXPECT_EQ(o.dims, (std::vector<int>{0, 1}));
  EXPECT_EQ(o.impls, (std::vector<std::string>{"warpfold"}));
  EXPECT_EQ(o.trials, 11);
  EXPECT_EQ(o.csv_path, "axis.csv");
  EXPECT_EQ(o.json_path, "axis.json");
  EXPECT_EQ(bench({"--axis", "--dims", "-2,1,0"}).dims, (std::vector<int>{0, 1}));
}

TEST(Options, AxisRefusesWhatItCannotDo) {
  const std::vector<std::vector<std::string>> bad = {
      {"bench", "--shape", "8192x8192"},  // without --axis
      {"bench", "--dims", "0"},
      {"bench", "--axis", "--sweep"},
      {"bench", "--axis", "--n", "2^20"},
      {"bench", "--axis", "--finisher", "host"},
      {"bench", "--axis", "--counters"},
      {"bench", "--axis", "--dtype", "f64"},
      {"bench", "--axis", "--shape", "8192"},
      {"bench", "--axis", "--shape", "2x3x4"},
      {"bench", "--axis", "--dims", "2"},
  };
  expect_usage_errors(bad);
}

TEST(Options, AxisRandomTakesACountAndASeed) {
  const wc::bench_options o = bench({"--axis", "--random", "200", "--seed", "42", "--csv", "r.csv"});
  EXPECT_EQ(o.random_cases, 200);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(bench({"--axis", "--random", "5"}).seed, 1u) << "the default seed";
  EXPECT_EQ(bench({"--axis"}).random_cases, 0);
  EXPECT_EQ(bench({"--axis", "--random", "200", "--cases", "32,0,199"}).random_only, (std::vector<int>{32, 0, 199}));
  EXPECT_TRUE(bench({"--axis", "--random", "5"}).random_only.empty()) << "every case by default";
  const std::vector<std::vector<std::string>> bad = {
      {"bench", "--random", "5"},                             // without --axis
      {"bench", "--axis", "--seed", "3"},                     // a seed without cases
      {"bench", "--axis", "--random", "0"},                   // no cases
      {"bench", "--axis", "--random", "5", "--shape", "8x8"},  // the cases are drawn
      {"bench", "--axis", "--random", "5", "--dims", "0"},
      {"bench", "--axis", "--random", "5", "--dtype", "f32"},
      {"bench", "--axis", "--cases", "1"},                     // cases without --random
      {"bench", "--cases", "1"},
      {"bench", "--axis", "--random", "5", "--cases", "5"},   // not drawn
      {"bench", "--axis", "--random", "5", "--cases", "-1"},
  };
  expect_usage_errors(bad);
}

TEST(Options, HelpMentionsTheAxisCases) {
  const wc::command cmd = wc::parse_command_line(std::vector<std::string>{"bench", "--help"});
  for (const char* text : {"--axis", "--shape", "--dims", "16777216x4", "cub::DeviceSegmentedReduce::Sum",
                           "bytes read plus bytes written", "impl,dtype,shape,dims,bytes_in,bytes_out"})
    EXPECT_NE(cmd.help_text.find(text), std::string::npos) << text;
}

TEST(Options, SegmentsRunEightCasesOver2To26FloatsFromSeed1) {
  const wc::bench_options o = bench({"--segments"});
  EXPECT_TRUE(o.segments);
  EXPECT_FALSE(o.axis);
  EXPECT_EQ(o.dtypes, (std::vector<wb::dtype>{wb::dtype::f32}));
  EXPECT_EQ(o.sizes, (std::vector<std::int64_t>{std::int64_t(1) << 26}));
  EXPECT_FALSE(o.sizes_given);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_FALSE(bench({}).segments);
}

TEST(Options, SegmentsTakeOneSizeASeedAndTheCommonOptions) {
  const wc::bench_options o = bench({"--segments", "--n", "2^20", "--seed", "7", "--impl", "warpfold,cub", "--dtype",
                                     "f32", "--trials", "11", "--csv", "s.csv", "--json", "s.json", "-q"});
  EXPECT_EQ(o.sizes, (std::vector<std::int64_t>{1 << 20}));
  EXPECT_TRUE(o.sizes_given);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.impls, (std::vector<std::string>{"warpfold", "cub"}));
  EXPECT_EQ(o.trials, 11);
  EXPECT_EQ(o.csv_path, "s.csv");
  EXPECT_EQ(o.json_path, "s.json");
  EXPECT_TRUE(o.quiet);
}

TEST(Options, SegmentsRefuseWhatTheyCannotDo) {
  std::vector<std::vector<std::string>> bad;
  for (const std::vector<std::string>& options : std::vector<std::vector<std::string>>{
           {"--axis"}, {"--sweep"}, {"--n", "2^20,2^22"} /* one size: the cases cover it */, {"--dtype", "f64"},
           {"--finisher", "host"}, {"--counters"}, {"--shape", "8x8"}, {"--dims", "0"}, {"--random", "5"}}) {
    bad.push_back({"bench", "--segments"});
    bad.back().insert(bad.back().end(), options.begin(), options.end());
  }
  bad.push_back({"bench", "--seed", "3"});  // a seed picks random cases or segments: neither here
  expect_usage_errors(bad);
}

TEST(Options, HelpMentionsTheSegmentCases) {
  const wc::command cmd = wc::parse_command_line(std::vector<std::string>{"bench", "--help"});
  for (const char* text : {"--segments", "1, 4, 16, 64, 1024, 65536", "huge", "mix", "int64",
                           "cub::DeviceSegmentedReduce::Sum", "case,impl,segments,n,bytes,time_us",
                           "warpfold bench --segments --csv segments.csv"})
    EXPECT_NE(cmd.help_text.find(text), std::string::npos) << text;
}

TEST(Options, DataSpreads) {
  EXPECT_EQ(bench({}).data, wb::value_spread::uniform);
  EXPECT_EQ(bench({"--data", "wide", "--dtype", "f32"}).data, wb::value_spread::wide);
  EXPECT_EQ(bench({"--data", "full"}).data, wb::value_spread::full);
  EXPECT_EQ(bench({"--data", "normal"}).data, wb::value_spread::normal);
  for (wb::value_spread s : {wb::value_spread::uniform, wb::value_spread::normal, wb::value_spread::wide, wb::value_spread::full})
    EXPECT_EQ(wb::parse_value_spread(wb::name(s)), s);
  expect_usage_errors({{"bench", "--data", "lognormal"}, {"bench", "--axis", "--data", "wide"}, {"bench", "--segments", "--data", "wide"}});
}

TEST(Options, BitsCommand) {
  const wc::command cmd = wc::parse_command_line({"bits", "--csv", "bits.csv", "--device", "1", "-q"});
  EXPECT_EQ(cmd.kind, wc::command_kind::bits);
  EXPECT_EQ(cmd.bench.csv_path, "bits.csv");
  EXPECT_EQ(cmd.bench.device, 1);
  EXPECT_TRUE(cmd.bench.quiet);
  expect_usage_errors({{"bits", "--n", "5"}});
}

TEST(Options, OpsCommandDefaultsAndChoices) {
  const wc::command plain = wc::parse_command_line({"ops"});
  EXPECT_EQ(plain.kind, wc::command_kind::ops);
  EXPECT_TRUE(plain.ops.ops.empty());     // every op
  EXPECT_TRUE(plain.ops.dtypes.empty());  // f32 and f16
  EXPECT_TRUE(plain.ops.sizes.empty());   // 2^10 .. 2^30
  EXPECT_FALSE(plain.ops.offsets_given);
  EXPECT_EQ(plain.ops.trials, 7);
  const wc::command chosen = wc::parse_command_line(
      {"ops", "--op", "norm_l2,dot", "--dtype", "bf16", "--n", "2^20,1000", "--offset", "0,3", "--csv", "o.csv", "--json",
       "o.json", "-q"});
  EXPECT_EQ(chosen.ops.ops, (std::vector<std::string>{"norm_l2", "dot"}));
  EXPECT_EQ(chosen.ops.dtypes, (std::vector<std::string>{"bf16"}));
  EXPECT_EQ(chosen.ops.sizes, (std::vector<std::int64_t>{1 << 20, 1000}));
  EXPECT_EQ(chosen.ops.offsets, (std::vector<int>{0, 3}));
  EXPECT_TRUE(chosen.ops.offsets_given);
  EXPECT_EQ(chosen.ops.csv_path, "o.csv");
  EXPECT_EQ(chosen.ops.json_path, "o.json");
  EXPECT_TRUE(chosen.ops.quiet);
  expect_usage_errors({{"ops", "--op", "median"}, {"ops", "--dtype", "i32"}, {"ops", "--dtype", "f8"},
                       {"ops", "--offset", "-1"}, {"ops", "--n", "0x"}});
}

TEST(Options, ManyCommand) {
  const wc::command cmd = wc::parse_command_line({"many", "--trials", "3", "--csv", "m.csv", "--json", "m.json"});
  EXPECT_EQ(cmd.kind, wc::command_kind::many);
  EXPECT_EQ(cmd.ops.trials, 3);
  EXPECT_EQ(cmd.ops.csv_path, "m.csv");
  EXPECT_EQ(cmd.ops.json_path, "m.json");
  EXPECT_TRUE(cmd.ops.lists.empty());  // every list
  const wc::command some = wc::parse_command_line({"many", "--list", "small-5000,gpt2-small"});
  EXPECT_EQ(some.ops.lists, (std::vector<std::string>{"small-5000", "gpt2-small"}));
  expect_usage_errors({{"many", "--op", "sum"}, {"many", "--list", "gpt3"}});
}

TEST(Options, OpNamesRoundTrip) {
  for (wb::ops::op_kind op : wb::ops::all_ops()) EXPECT_EQ(wb::ops::parse_op(wb::ops::name(op)), op);
  EXPECT_FALSE(wb::ops::parse_op("norm"));
  EXPECT_EQ(wb::ops::parse_op("prod"), wb::ops::op_kind::prod);
}

TEST(Options, HostAndDistributedMeasureOneF32Size) {
  for (const char* flag : {"--host", "--distributed"}) {
    SCOPED_TRACE(flag);
    const wc::bench_options o = bench({flag});
    EXPECT_EQ(o.host, std::string(flag) == "--host");
    EXPECT_EQ(o.distributed, std::string(flag) == "--distributed");
    EXPECT_EQ(o.dtypes, (std::vector<wb::dtype>{wb::dtype::f32}));
    EXPECT_EQ(o.sizes, (std::vector<std::int64_t>{0})) << "0: the command's own default, which depends on the machine";
    EXPECT_FALSE(o.sizes_given);
    const wc::bench_options sized = bench({flag, "--n", "2^30", "--trials", "7", "--csv", "s.csv", "--json", "s.json"});
    EXPECT_EQ(sized.sizes, (std::vector<std::int64_t>{std::int64_t(1) << 30}));
    EXPECT_EQ(sized.trials, 7);
    EXPECT_EQ(sized.csv_path, "s.csv");
  }
  EXPECT_FALSE(bench({}).host);
  EXPECT_FALSE(bench({}).distributed);
  const wc::bench_options swept = bench({"--host", "--chunk-mib", "8,16", "--copy-threads", "13,15"});
  EXPECT_EQ(swept.chunk_mib, (std::vector<int>{8, 16}));
  EXPECT_EQ(swept.copy_threads, (std::vector<int>{13, 15}));
  expect_usage_errors({{"bench", "--chunk-mib", "16"}, {"bench", "--distributed", "--copy-threads", "4"},
                       {"bench", "--host", "--chunk-mib", "0"}});
}

TEST(Options, HostAndDistributedRefuseWhatTheyCannotDo) {
  std::vector<std::vector<std::string>> bad = {{"bench", "--host", "--distributed"}};
  for (const char* flag : {"--host", "--distributed"})
    for (const std::vector<std::string>& options : std::vector<std::vector<std::string>>{
             {"--axis"}, {"--segments"}, {"--sweep"}, {"--n", "2^20,2^22"}, {"--dtype", "f64"}, {"--impl", "cub"},
             {"--finisher", "host"}, {"--counters"}, {"--data", "wide"}}) {
      bad.push_back({"bench", flag});
      bad.back().insert(bad.back().end(), options.begin(), options.end());
    }
  expect_usage_errors(bad);
}

TEST(Options, HelpMentionsHostArraysAndShards) {
  const wc::command cmd = wc::parse_command_line(std::vector<std::string>{"bench", "--help"});
  for (const char* text : {"--host", "--distributed", "warpfold::sum_host", "warpfold::sum_sharded", "cudaHostRegister",
                           "all-reduce", "warpfold bench --host --n 2^32 --csv host.csv"})
    EXPECT_NE(cmd.help_text.find(text), std::string::npos) << text;
}
