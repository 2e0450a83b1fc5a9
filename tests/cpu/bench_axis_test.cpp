// The axis bench's host logic: the sixteen standard cases, shapes and dims as written on the
// command line, the host reference, the output-by-output check, and the axis CSV (parsed back).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "bench/axis_cases.hpp"
#include "bench/axis_reference.hpp"
#include "bench/ncu.hpp"
#include "csv_rows.hpp"
#include "bench/output.hpp"
#include "bench/statistics.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

namespace {

// A small matrix of varied values in [0, 1), like the bench's fill.
std::vector<float> matrix(const wb::matrix_shape& s) {
  std::vector<float> data(static_cast<std::size_t>(s.elements()));
  std::uint32_t state = 12345;
  for (float& x : data) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) * 0x1p-24f;
  }
  return data;
}

}  // namespace

TEST(AxisCases, TheIssuesSixteen) {
  const auto cases = wb::axis_cases(wb::issue_axis_shapes(), wb::default_axis_dims());
  ASSERT_EQ(cases.size(), 16u);
  const std::vector<std::string> shapes = {"8192x8192",  "65536x1024", "1024x65536", "4194304x16",
                                           "16x4194304", "1048576x64", "64x1048576", "16777216x4"};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(wb::format_shape(cases[i].shape), shapes[i / 2]);
    EXPECT_EQ(cases[i].dim, i % 2 == 0 ? 1 : 0);  // each shape: rows first, then columns
    // Each standard shape holds 2^26 (256 MiB of float).
    EXPECT_EQ(cases[i].shape.elements(), std::int64_t(1) << 26);
    EXPECT_EQ(cases[i].bytes_in(4), std::int64_t(256) << 20);
    EXPECT_EQ(cases[i].outputs() * cases[i].reduced(), std::int64_t(1) << 26);
  }
  const wb::axis_case rows{{16777216, 4}, 1}, columns{{16777216, 4}, 0};
  EXPECT_EQ(rows.outputs(), 16777216);
  EXPECT_EQ(rows.reduced(), 4);
  EXPECT_EQ(rows.bytes_out(4), std::int64_t(64) << 20);
  EXPECT_EQ(columns.outputs(), 4);
  EXPECT_EQ(columns.reduced(), 16777216);
  EXPECT_EQ(wb::describe(columns), "16777216x4 dim 0");
}

TEST(AxisCases, ShapesInEveryForm) {
  EXPECT_EQ(wb::parse_shape("8192x8192"), (wb::matrix_shape{8192, 8192}));
  EXPECT_EQ(wb::parse_shape("2^24x4"), (wb::matrix_shape{16777216, 4}));
  EXPECT_EQ(wb::parse_shape("64Kix1e3"), (wb::matrix_shape{65536, 1000}));
  EXPECT_EQ(wb::parse_shape_list("16x4,2^4x4,4x16"), (std::vector<wb::matrix_shape>{{16, 4}, {4, 16}}));
  for (const char* bad : {"8192", "8192x", "x8192", "0x4", "4x0", "2x3x4", "ax4", "2^30x2^30", ""})
    EXPECT_THROW(wb::parse_shape(bad), warpfold::invalid_argument) << bad;
  try {
    wb::parse_shape("2x3x4");
    FAIL();
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'2x3x4'"), std::string::npos) << e.what();
  }
}

TEST(AxisCases, DimsCountFromTheEndToo) {
  EXPECT_EQ(wb::parse_axis_dim("0"), 0);
  EXPECT_EQ(wb::parse_axis_dim("1"), 1);
  EXPECT_EQ(wb::parse_axis_dim("-1"), 1);
  EXPECT_EQ(wb::parse_axis_dim("-2"), 0);
  for (const char* bad : {"2", "-3", "x", "", "01"}) EXPECT_THROW(wb::parse_axis_dim(bad), warpfold::invalid_argument);
}

TEST(AxisReference, RowsAndColumnsOfAKnownMatrix) {
  // 2 x 3: [[1, 2, 3], [4, 5, -6]]
  const std::vector<float> data = {1, 2, 3, 4, 5, -6};
  const auto rows = wb::compute_axis_reference({{2, 3}, 1}, data.data());
  EXPECT_EQ(rows.sum, (std::vector<double>{6, 3}));
  EXPECT_EQ(rows.abs_sum, (std::vector<double>{6, 15}));
  const auto columns = wb::compute_axis_reference({{2, 3}, 0}, data.data());
  EXPECT_EQ(columns.sum, (std::vector<double>{5, 7, -3}));
  EXPECT_EQ(columns.abs_sum, (std::vector<double>{5, 7, 9}));
  EXPECT_THROW(wb::compute_axis_reference({{2, 3}, 2}, data.data()), warpfold::invalid_argument);
}

TEST(AxisReference, MatchesAPlainDoubleSumOnVariedData) {
  const wb::matrix_shape s{37, 129};
  const std::vector<float> data = matrix(s);
  const auto columns = wb::compute_axis_reference({s, 0}, data.data());
  for (std::int64_t c = 0; c < s.cols; c += 16) {
    double sum = 0;
    for (std::int64_t r = 0; r < s.rows; ++r) sum += data[static_cast<std::size_t>(r * s.cols + c)];
    EXPECT_DOUBLE_EQ(columns.sum[static_cast<std::size_t>(c)], sum);
  }
}

TEST(AxisCheck, RightOutputsPassAndSayHowClose) {
  const wb::matrix_shape s{64, 1000};
  const std::vector<float> data = matrix(s);
  for (int dim : {0, 1}) {
    const auto ref = wb::compute_axis_reference({s, dim}, data.data());
    std::vector<double> got;
    for (double x : ref.sum) got.push_back(static_cast<float>(x));  // rounded to float, as a GPU returns it
    const wb::check_outcome outcome = wb::check_axis_outputs(ref, got);
    EXPECT_TRUE(outcome.ok) << outcome.detail;
    EXPECT_NE(outcome.detail.find("within tolerance"), std::string::npos) << outcome.detail;
  }
}

TEST(AxisCheck, AWrongOutputFailsAndIsNamed) {
  const wb::matrix_shape s{64, 1000};
  const std::vector<float> data = matrix(s);
  const auto ref = wb::compute_axis_reference({s, 1}, data.data());
  std::vector<double> got = ref.sum;
  got[17] += 1.0;  // one element of a 1000-element row counted twice, roughly
  got[40] += 1.0;
  wb::check_outcome outcome = wb::check_axis_outputs(ref, got);
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.detail.find("2 of 64 outputs wrong"), std::string::npos) << outcome.detail;
  EXPECT_NE(outcome.detail.find("output 17"), std::string::npos) << outcome.detail;

  got = ref.sum;
  got[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(wb::check_axis_outputs(ref, got).ok);
  got = ref.sum;
  got[5] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(wb::check_axis_outputs(ref, got).ok);
  got = ref.sum;
  got.pop_back();
  outcome = wb::check_axis_outputs(ref, got);
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.detail.find("expected 64 outputs, got 63"), std::string::npos) << outcome.detail;
}

TEST(AxisCheck, ToleranceGrowsWithTheReducedLength) {
  // The same relative error passes for sums of 2^18 elements and fails for sums of 4.
  const std::vector<float> data(std::size_t(1) << 20, 0.5f);
  const auto long_columns = wb::compute_axis_reference({{std::int64_t(1) << 18, 4}, 0}, data.data());
  const auto short_rows = wb::compute_axis_reference({{std::int64_t(1) << 18, 4}, 1}, data.data());
  auto off_by = [](const wb::axis_reference& r, double relative) {
    std::vector<double> got = r.sum;
    for (double& x : got) x *= 1.0 + relative;
    return got;
  };
  const double relative = 1e-5;  // ~84 float epsilons
  EXPECT_TRUE(wb::check_axis_outputs(long_columns, off_by(long_columns, relative)).ok);
  EXPECT_FALSE(wb::check_axis_outputs(short_rows, off_by(short_rows, relative)).ok);
}

namespace {

wb::measurement axis_row() {
  const std::int64_t bytes_in = std::int64_t(256) << 20, bytes_out = std::int64_t(64) << 20;
  wb::measurement m = cpu_test::measured_row("warpfold", "production", bytes_in + bytes_out, 120.5);
  m.n = std::int64_t(1) << 26;
  m.shape = "16777216x4";
  m.dims = "1";
  m.bytes_in = bytes_in;
  m.bytes_out = bytes_out;
  return m;
}

using cpu_test::parse_csv;
const auto field = cpu_test::csv_field;

}  // namespace

TEST(AxisCsv, StartsWithTheColumnsIssue5AsksFor) {
  cpu_test::expect_csv_columns(wb::axis_csv_columns(),
                               {"impl", "dtype", "shape", "dims", "bytes_in", "bytes_out", "time_us"},
                               {"gbps", "ceiling_gbps", "time_min_us", "time_max_us", "pct_of_ceiling", "device",
                                "status"});
}

TEST(AxisCsv, RowsParseBackWithTheirValues) {
  wb::measurement failed = axis_row();
  failed.impl = "cub";
  failed.ok = false;
  failed.error = "3 of 16777216 outputs wrong";
  std::ostringstream out;
  wb::write_axis_csv(out, {axis_row(), failed});
  const auto rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], wb::axis_csv_columns());
  EXPECT_EQ(field(rows, 1, "shape"), "16777216x4");
  EXPECT_EQ(field(rows, 1, "dims"), "1");
  EXPECT_EQ(field(rows, 1, "bytes_in"), "268435456");
  EXPECT_EQ(field(rows, 1, "bytes_out"), "67108864");
  EXPECT_EQ(field(rows, 1, "bytes"), "335544320");
  EXPECT_EQ(field(rows, 1, "n"), "67108864");
  EXPECT_DOUBLE_EQ(std::stod(field(rows, 1, "time_us")), 120.5);
  // GB/s counts bytes read plus bytes written.
  EXPECT_NEAR(std::stod(field(rows, 1, "gbps")), 335544320 / 120.5e-6 / 1e9, 0.01);
  EXPECT_NEAR(std::stod(field(rows, 1, "pct_of_ceiling")), 335544320 / 120.5e-6 / 1e9 / 31.0, 0.01);
  EXPECT_EQ(field(rows, 1, "status"), "ok");
  for (const char* empty : {"time_us", "time_min_us", "time_max_us", "gbps", "pct_of_ceiling"})
    EXPECT_EQ(field(rows, 2, empty), "") << empty;
  EXPECT_EQ(field(rows, 2, "status"), "FAILED");
  EXPECT_EQ(field(rows, 2, "note"), "3 of 16777216 outputs wrong");

  // The full reductions' CSV keeps its columns: no shape there.
  std::ostringstream plain;
  wb::write_csv(plain, {axis_row()});
  EXPECT_EQ(parse_csv(plain.str())[0], wb::csv_columns());
}
