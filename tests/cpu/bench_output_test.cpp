// CSV and JSON output: the columns documented in --help, in order, and a FAILED row that never
// carries a time. Everything written is parsed back.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/ncu.hpp"
#include "csv_rows.hpp"
#include "bench/output.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

namespace {

wb::measurement ok_row() {
  wb::measurement m = cpu_test::measured_row("9-vector-loads", "ladder", std::int64_t(1) << 29, 180.5);
  m.dtype = "i32";
  m.finisher = "last-block";
  m.n = std::int64_t(1) << 27;
  m.time_min_us = 179.25;
  m.time_max_us = 183.0;
  m.gbps = 2974.4;
  m.block_size = 256;
  m.batch = 6;
  m.buffers = 2;
  return m;
}

wb::measurement failed_row() {
  wb::measurement m = ok_row();
  m.impl = "cub";
  m.family = "baseline";
  m.finisher = "";
  m.ok = false;
  m.error = "wrong answer on buffer 1: expected 5, got 6";
  m.time_us = 12.0;  // must not leak into the output
  m.gbps = 99.0;
  m.launches.reset();
  return m;
}

using cpu_test::parse_csv;

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

}  // namespace

TEST(Csv, StartsWithTheColumnsTheIssueAsksFor) {
  const std::vector<std::string> wanted = {"impl", "dtype", "n", "bytes", "time_us", "time_min_us",
                                           "time_max_us", "gbps", "ceiling_gbps", "device"};
  const auto& columns = wb::csv_columns();
  ASSERT_GE(columns.size(), wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) EXPECT_EQ(columns[i], wanted[i]);
}

TEST(Csv, RowsParseBackWithTheirValues) {
  std::ostringstream out;
  wb::write_csv(out, {ok_row(), failed_row()});
  const auto rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 3u);
  const auto& header = rows[0];
  EXPECT_EQ(header, wb::csv_columns());
  for (const auto& row : rows) EXPECT_EQ(row.size(), header.size());

  const auto& ok = rows[1];
  EXPECT_EQ(ok[column(header, "impl")], "9-vector-loads");
  EXPECT_EQ(ok[column(header, "dtype")], "i32");
  EXPECT_EQ(ok[column(header, "n")], "134217728");
  EXPECT_EQ(ok[column(header, "bytes")], "536870912");
  EXPECT_DOUBLE_EQ(std::stod(ok[column(header, "time_us")]), 180.5);
  EXPECT_DOUBLE_EQ(std::stod(ok[column(header, "time_min_us")]), 179.25);
  EXPECT_DOUBLE_EQ(std::stod(ok[column(header, "time_max_us")]), 183.0);
  EXPECT_DOUBLE_EQ(std::stod(ok[column(header, "gbps")]), 2974.4);
  EXPECT_DOUBLE_EQ(std::stod(ok[column(header, "ceiling_gbps")]), 3100.0);
  EXPECT_NEAR(std::stod(ok[column(header, "pct_of_ceiling")]), 95.95, 0.01);
  EXPECT_EQ(ok[column(header, "device")], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(ok[column(header, "finisher")], "last-block");
  EXPECT_EQ(ok[column(header, "launches")], "1");
  EXPECT_EQ(ok[column(header, "status")], "ok");
}

TEST(Csv, AFailedRowHasNoTimeAndSaysFailed) {
  std::ostringstream out;
  wb::write_csv(out, {failed_row()});
  const auto rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 2u);
  const auto& header = rows[0];
  const auto& row = rows[1];
  for (const char* empty : {"time_us", "time_min_us", "time_max_us", "gbps", "pct_of_ceiling", "launches"})
    EXPECT_EQ(row[column(header, empty)], "") << empty;
  EXPECT_EQ(row[column(header, "status")], "FAILED");
  EXPECT_EQ(row[column(header, "note")], "wrong answer on buffer 1: expected 5, got 6");
}

TEST(Csv, EscapesCommasAndQuotes) {
  EXPECT_EQ(wb::csv_escape("plain"), "plain");
  EXPECT_EQ(wb::csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(wb::csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  wb::measurement m = ok_row();
  m.device = "GPU, with \"quotes\"";
  std::ostringstream out;
  wb::write_csv(out, {m});
  const auto rows = parse_csv(out.str());
  EXPECT_EQ(rows[1][column(rows[0], "device")], "GPU, with \"quotes\"");
}

TEST(Json, ParsesBackWithOneObjectPerMeasurement) {
  wb::run_record run;
  run.device.name = "NVIDIA H100 80GB HBM3";
  run.device.sm_count = 132;
  run.device.l2_bytes = 50 << 20;
  run.device.cuda_runtime_version = 13000;
  run.device.driver_version = "580.65.06";
  run.method.trials = 9;
  run.measurements = {ok_row(), failed_row()};
  std::ostringstream out;
  wb::write_json(out, run);
  const nlohmann::json doc = nlohmann::json::parse(out.str());

  EXPECT_EQ(doc["device"]["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(doc["device"]["sm_count"], 132);
  EXPECT_EQ(doc["device"]["cuda_runtime_version"], "13.0");
  EXPECT_EQ(doc["method"]["trials"], 9);
  ASSERT_EQ(doc["measurements"].size(), 2u);
  const auto& ok = doc["measurements"][0];
  EXPECT_EQ(ok["impl"], "9-vector-loads");
  EXPECT_EQ(ok["n"], std::int64_t(1) << 27);
  EXPECT_DOUBLE_EQ(ok["time_us"].get<double>(), 180.5);
  EXPECT_DOUBLE_EQ(ok["gbps"].get<double>(), 2974.4);
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_FALSE(ok.contains("error"));
  const auto& failed = doc["measurements"][1];
  EXPECT_TRUE(failed["time_us"].is_null());
  EXPECT_TRUE(failed["gbps"].is_null());
  EXPECT_TRUE(failed["launches"].is_null());
  EXPECT_EQ(failed["status"], "FAILED");
  EXPECT_EQ(failed["error"], "wrong answer on buffer 1: expected 5, got 6");
  EXPECT_FALSE(doc.contains("counters"));
}

TEST(Json, CarriesCountersWithNullForMissingValues) {
  wb::run_record run;
  wb::step_counters c;
  c.step = 2;
  c.step_name = "2-strided-index";
  c.kernel = "step2_interleaved_bank_conflicts";
  c.bank_conflicts_ld = 123456;
  c.bank_conflicts_st = 654321;
  c.branch_uniformity_pct = 100;
  c.achieved_occupancy_pct = NAN;
  c.dram_bytes_read = 536870912;
  c.active_threads_per_inst = 24.75;
  c.warp_instructions = 37748736;
  run.counters = {c};
  run.counters_dtype = "i32";
  run.counters_n = 1 << 27;
  std::ostringstream out;
  wb::write_json(out, run);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  ASSERT_EQ(doc["counters"]["steps"].size(), 1u);
  const auto& s = doc["counters"]["steps"][0];
  EXPECT_EQ(s["step"], "2-strided-index");
  EXPECT_EQ(s["bank_conflicts_ld"], 123456.0);
  EXPECT_TRUE(s["achieved_occupancy_pct"].is_null());
  EXPECT_EQ(s["active_threads_per_inst"], 24.75);
  EXPECT_EQ(s["warp_instructions"], 37748736.0);
  EXPECT_EQ(doc["counters"]["n"], 1 << 27);
}

TEST(CountersCsv, HeaderAndValues) {
  wb::step_counters c;
  c.step_name = "1-interleaved";
  c.kernel = "step1_interleaved_divergent";
  c.bank_conflicts_ld = 0;
  c.bank_conflicts_st = 0;
  c.branch_uniformity_pct = 87.5;
  c.achieved_occupancy_pct = 91.25;
  c.dram_bytes_read = NAN;
  c.active_threads_per_inst = 9.87;
  c.warp_instructions = 98566144;
  wb::step_counters missing = c;
  missing.active_threads_per_inst = NAN;
  missing.warp_instructions = NAN;
  std::ostringstream out;
  wb::write_counters_csv(out, {c, missing});
  const auto rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 3u);
  // The older columns keep their order; new ones come last.
  EXPECT_EQ(rows[0], (std::vector<std::string>{"step", "kernel", "bank_conflicts_ld", "bank_conflicts_st",
                                               "branch_uniformity_pct", "achieved_occupancy_pct", "dram_bytes_read",
                                               "active_threads_per_inst", "warp_instructions"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1-interleaved", "step1_interleaved_divergent", "0", "0", "87.50",
                                               "91.25", "", "9.87", "98566144"}));
  EXPECT_EQ(rows[2][8], "");
  EXPECT_EQ(rows[2].back(), "");
}

TEST(Files, UnwritablePathThrows) {
  EXPECT_THROW(wb::write_csv_file("/nonexistent-dir/x.csv", {ok_row()}), warpfold::error);
  const std::string path = ::testing::TempDir() + "/warpfold_output_test.csv";
  wb::write_csv_file(path, {ok_row()});
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("impl,dtype,n,bytes,", 0), 0u);
}

TEST(RowTable, CsvAsRowsComeAndJsonAtTheEnd) {
  const std::string csv_path = ::testing::TempDir() + "/warpfold_row_table.csv";
  const std::string json_path = ::testing::TempDir() + "/warpfold_row_table.json";
  using cell = wb::row_table::cell;
  {
    wb::row_table table({"impl", "n", "time_us", "check"}, csv_path, json_path);
    table.add({std::string("warpfold"), std::int64_t{1024}, 2.5, std::string("ok")});
    table.add({std::string("cub"), std::int64_t{7}, cell{}, std::string("wrong answer: got 1, expected 2")});
    EXPECT_THROW(table.add({std::string("short row")}), warpfold::error);
    table.finish();
  }
  std::ifstream csv_in(csv_path);
  std::stringstream csv_text;
  csv_text << csv_in.rdbuf();
  const auto rows = parse_csv(csv_text.str());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"impl", "n", "time_us", "check"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"warpfold", "1024", "2.5", "ok"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"cub", "7", "", "wrong answer: got 1, expected 2"}));  // quoted comma
  std::ifstream json_in(json_path);
  const nlohmann::json doc = nlohmann::json::parse(json_in);
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[0]["impl"], "warpfold");
  EXPECT_EQ(doc[0]["n"], 1024);
  EXPECT_DOUBLE_EQ(doc[0]["time_us"].get<double>(), 2.5);
  EXPECT_TRUE(doc[1]["time_us"].is_null()) << "a wrong answer has no time";
  EXPECT_THROW(wb::row_table({"a"}, "", "/nonexistent-dir/x.json"), warpfold::error);
}
