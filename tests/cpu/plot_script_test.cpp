// scripts/plot on CSVs written by the bench's own CSV writer: a ladder run (one size) gives a
// bar chart, a sweep (several sizes) one line chart per type, an axis or segment run one chart
// of bars per case. Skipped where no python3 with matplotlib is found.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "bench/output.hpp"
#include "bench/statistics.hpp"

namespace wb = warpfold::bench;
namespace fs = std::filesystem;

namespace {

std::string python_with_matplotlib() {
  for (const char* python : {"python3", "/usr/bin/python3"}) {
    const std::string probe = std::string(python) + " -c 'import matplotlib' >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return python;
  }
  return "";
}

std::vector<wb::measurement> rows(const std::vector<std::int64_t>& sizes) {
  std::vector<wb::measurement> out;
  wb::measurement ceiling;
  ceiling.impl = "read_ceiling";
  ceiling.family = "ceiling";
  ceiling.bytes = std::int64_t(2) << 30;
  ceiling.time_us = 700;
  ceiling.gbps = wb::gbps(double(ceiling.bytes), ceiling.time_us);
  ceiling.ceiling_gbps = ceiling.gbps;
  out.push_back(ceiling);
  for (const char* dtype : {"i32", "f64"})
    for (std::int64_t n : sizes)
      for (const char* impl : {"0-global", "1-interleaved", "9-vector-loads", "cub", "thrust"}) {
        wb::measurement m;
        m.impl = impl;
        m.family = impl[0] >= '0' && impl[0] <= '9' ? "ladder" : "baseline";
        m.finisher = m.family == "ladder" ? "last-block" : "";
        m.dtype = dtype;
        m.n = n;
        m.bytes = n * (dtype[0] == 'f' ? 8 : 4);
        m.time_us = 5 + m.bytes / 2e6 * (m.impl == "0-global" ? 10 : 1);
        m.gbps = wb::gbps(double(m.bytes), m.time_us);
        m.ceiling_gbps = ceiling.gbps;
        m.ok = m.impl != "thrust" || n != sizes.back();  // one FAILED row, drawn in red
        if (!m.ok) m.error = "wrong answer";
        out.push_back(m);
      }
  return out;
}

// A new empty folder under the test's temporary directory.
fs::path empty_temp_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

int run_plot(const std::string& python, const fs::path& csv, const fs::path& out) {
  const std::string command = python + " '" + std::string(WARPFOLD_SOURCE_DIR) + "/scripts/plot' '" + csv.string() +
                              "' --out '" + out.string() + "' >/dev/null 2>&1";
  return std::system(command.c_str());
}

}  // namespace

TEST(PlotScript, LadderCsvGivesABarChartAndSweepCsvLineCharts) {
  const std::string python = python_with_matplotlib();
  if (python.empty()) GTEST_SKIP() << "no python3 with matplotlib";
  const fs::path dir = empty_temp_dir("warpfold_plot_test");

  wb::write_csv_file((dir / "ladder.csv").string(), rows({std::int64_t(1) << 27}));
  ASSERT_EQ(run_plot(python, dir / "ladder.csv", dir / "ladder"), 0);
  EXPECT_TRUE(fs::exists(dir / "ladder" / "ladder_i32_n134217728.png"));
  EXPECT_TRUE(fs::exists(dir / "ladder" / "ladder_f64_n134217728.png"));

  wb::write_csv_file((dir / "sweep.csv").string(), rows({1 << 10, 1 << 20, 1 << 26}));
  ASSERT_EQ(run_plot(python, dir / "sweep.csv", dir / "sweep"), 0);
  EXPECT_TRUE(fs::exists(dir / "sweep" / "sweep_i32.png"));
  EXPECT_TRUE(fs::exists(dir / "sweep" / "sweep_f64.png"));
  EXPECT_GT(fs::file_size(dir / "sweep" / "sweep_i32.png"), 10000u);

  // Not a bench CSV: refused with a non-zero exit.
  wb::write_counters_csv_file((dir / "counters.csv").string(), {});
  EXPECT_NE(run_plot(python, dir / "counters.csv", dir / "bad"), 0);
  fs::remove_all(dir);
}

// An axis CSV (the bench's writer) with a compare_torch-style CSV beside it: one axis.png.
TEST(PlotScript, AxisCsvsGiveOneGroupedBarChart) {
  const std::string python = python_with_matplotlib();
  if (python.empty()) GTEST_SKIP() << "no python3 with matplotlib";
  const fs::path dir = empty_temp_dir("warpfold_plot_axis_test");

  std::vector<wb::measurement> bench_rows = {rows({}).front()};  // the read ceiling
  std::vector<wb::measurement> torch_rows;
  for (const char* shape : {"8192x8192", "16777216x4"})
    for (const char* dims : {"1", "0"})
      for (const std::string impl : {"warpfold", "cub", "torch", "cupy"}) {
        if (impl == "cub" && std::string(dims) == "0") continue;  // rows only
        const bool framework = impl == "torch" || impl == "cupy";  // written by scripts/compare_torch
        wb::measurement m;
        m.impl = impl;
        m.family = impl == "warpfold" ? "production" : framework ? "framework" : "baseline";
        m.dtype = "f32";
        m.n = std::int64_t(1) << 26;
        m.shape = shape;
        m.dims = dims;
        m.bytes_in = std::int64_t(256) << 20;
        m.bytes_out = 4 * (std::string(dims) == "1" ? 16777216 : 4);
        m.bytes = m.bytes_in + m.bytes_out;
        m.time_us = framework ? 140 : 100;
        m.gbps = wb::gbps(double(m.bytes), m.time_us);
        m.ceiling_gbps = framework ? 0 : bench_rows.front().gbps;  // compare_torch without --ceiling-from
        m.ok = impl != "cupy" || std::string(dims) != "0";        // FAILED rows are drawn in red
        if (!m.ok) m.error = "wrong answer";
        (framework ? torch_rows : bench_rows).push_back(m);
      }
  wb::write_axis_csv_file((dir / "axis.csv").string(), bench_rows);
  wb::write_axis_csv_file((dir / "axis_torch.csv").string(), torch_rows);
  const std::string command = python + " '" + std::string(WARPFOLD_SOURCE_DIR) + "/scripts/plot' '" +
                              (dir / "axis.csv").string() + "' '" + (dir / "axis_torch.csv").string() + "' --out '" +
                              (dir / "out").string() + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_TRUE(fs::exists(dir / "out" / "axis.png"));
  EXPECT_GT(fs::file_size(dir / "out" / "axis.png"), 10000u);
  fs::remove_all(dir);
}

// A segment CSV (the bench's writer): one segments.png, warpfold and CUB bars per case.
TEST(PlotScript, SegmentsCsvGivesOneBarChartPerCase) {
  const std::string python = python_with_matplotlib();
  if (python.empty()) GTEST_SKIP() << "no python3 with matplotlib";
  const fs::path dir = empty_temp_dir("warpfold_plot_segments_test");

  std::vector<wb::measurement> segment_rows = {rows({}).front()};  // the read ceiling
  const std::vector<std::pair<std::string, std::int64_t>> cases = {
      {"mean-1", 67108864}, {"mean-1024", 65536}, {"huge-16x4194304", 16}, {"mix", 11000000}};
  for (const auto& [name, segments] : cases)
    for (const std::string impl : {"warpfold", "cub"}) {
      wb::measurement m;
      m.impl = impl;
      m.family = impl == "warpfold" ? "production" : "baseline";
      m.dtype = "f32";
      m.case_id = name;
      m.segments = segments;
      m.n = std::int64_t(1) << 26;
      m.bytes_in = (std::int64_t(1) << 28) + 16 * segments;
      m.bytes_out = 4 * segments;
      m.bytes = m.bytes_in + m.bytes_out;
      m.time_us = impl == "warpfold" ? 100 : 130;
      m.gbps = wb::gbps(double(m.bytes), m.time_us);
      m.ceiling_gbps = segment_rows.front().gbps;
      m.ok = impl != "cub" || name != "mix";  // a FAILED row is drawn in red
      if (!m.ok) m.error = "wrong answer";
      segment_rows.push_back(m);
    }
  wb::write_segment_csv_file((dir / "segments.csv").string(), segment_rows);
  ASSERT_EQ(run_plot(python, dir / "segments.csv", dir / "out"), 0);
  EXPECT_TRUE(fs::exists(dir / "out" / "segments.png"));
  EXPECT_GT(fs::file_size(dir / "out" / "segments.png"), 10000u);
  fs::remove_all(dir);
}
