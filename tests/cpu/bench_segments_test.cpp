// The segment bench's host logic: the eight cases and their offsets (back to back, covering
// exactly n, lengths around the mean, the same for the same seed), the bytes a call moves,
// the host reference and the output-by-output check, and the segment CSV and JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bench/output.hpp"
#include "bench/segment_cases.hpp"
#include "bench/segment_reference.hpp"
#include "bench/statistics.hpp"
#include "csv_rows.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

namespace {

std::vector<std::int64_t> lengths_of(const wb::segment_offsets& o) {
  std::vector<std::int64_t> lengths;
  for (std::size_t s = 0; s < o.begin.size(); ++s) lengths.push_back(o.end[s] - o.begin[s]);
  return lengths;
}

const wb::segment_case& case_named(const std::vector<wb::segment_case>& cases, const std::string& name) {
  for (const wb::segment_case& c : cases)
    if (c.name == name) return c;
  throw std::runtime_error("no case " + name);
}

// Segment i + 1 begins where segment i ends, from 0 to exactly n.
void expect_back_to_back(const wb::segment_offsets& o, std::int64_t n, const std::string& name) {
  ASSERT_EQ(o.begin.size(), o.end.size()) << name;
  ASSERT_GT(o.count(), 0) << name;
  EXPECT_EQ(o.begin.front(), 0) << name;
  EXPECT_EQ(o.end.back(), n) << name;
  std::int64_t first_gap = -1;
  for (std::size_t s = 0; s < o.begin.size(); ++s) {
    if (o.end[s] < o.begin[s] || (s > 0 && o.begin[s] != o.end[s - 1])) {
      first_gap = static_cast<std::int64_t>(s);
      break;
    }
  }
  EXPECT_EQ(first_gap, -1) << name << ": segment " << first_gap << " does not follow the one before";
}

}  // namespace

TEST(SegmentCases, EightCasesInTheTablesOrder) {
  const auto cases = wb::segment_cases(wb::default_segment_elements, 1);
  std::vector<std::string> names;
  for (const wb::segment_case& c : cases) {
    names.push_back(c.name);
    EXPECT_EQ(c.n, std::int64_t(1) << 26);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"mean-1", "mean-4", "mean-16", "mean-64", "mean-1024", "mean-65536",
                                             "huge-16x4194304", "mix"}));
  EXPECT_EQ(wb::describe(cases.front()), "mean-1 (2^26 elements)");
  // Other n: the huge case names its segments' length.
  EXPECT_EQ(wb::segment_cases(1 << 20, 1)[6].name, "huge-16x65536");
  EXPECT_THROW(wb::segment_cases(0, 1), warpfold::invalid_argument);
}

TEST(SegmentCases, EveryLayoutCoversExactlyNBackToBack) {
  for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(1000003), std::int64_t(37), std::int64_t(1)}) {
    for (const wb::segment_case& c : wb::segment_cases(n, 1)) {
      SCOPED_TRACE(wb::describe(c));
      expect_back_to_back(wb::lay_out_segments(c), n, c.name);
    }
  }
}

TEST(SegmentCases, LengthsAreUniformAroundTheMean) {
  for (const wb::segment_case& any : wb::segment_cases(1, 1)) {
    if (any.layout != wb::segment_layout::uniform) continue;
    // Enough segments for a fair mean without millions of the shortest: 2^22 elements, 2^24
    // from mean 1024 on.
    const std::int64_t n = std::int64_t(1) << (any.mean_length < 1024 ? 22 : 24);
    const wb::segment_case c = case_named(wb::segment_cases(n, 1), any.name);
    SCOPED_TRACE(c.name);
    const std::vector<std::int64_t> lengths = lengths_of(wb::lay_out_segments(c));
    const double mean = double(n) / double(lengths.size());
    // n / L segments, give or take the draws: within 1% for the short means (tens of
    // thousands of segments and more), 15% for the longest (256 of them).
    EXPECT_NEAR(mean, double(c.mean_length), double(c.mean_length) * (c.mean_length < 1024 ? 0.01 : 0.15));
    EXPECT_LE(*std::max_element(lengths.begin(), lengths.end()), 2 * c.mean_length);
    if (c.mean_length <= 64) {
      // The whole range [0, 2L] is drawn: empty segments and ones of the full 2L.
      EXPECT_EQ(*std::min_element(lengths.begin(), lengths.end()), 0);
      EXPECT_NE(std::find(lengths.begin(), lengths.end() - 1, 2 * c.mean_length), lengths.end() - 1);
    }
  }
}

TEST(SegmentCases, TheSameSeedGivesTheSameSegmentsAndAnotherSeedOthers) {
  const std::int64_t n = 1 << 20;
  const auto one = wb::segment_cases(n, 1), again = wb::segment_cases(n, 1), other = wb::segment_cases(n, 2);
  for (std::size_t i = 0; i < one.size(); ++i) {
    SCOPED_TRACE(one[i].name);
    const wb::segment_offsets a = wb::lay_out_segments(one[i]);
    EXPECT_EQ(a.begin, wb::lay_out_segments(again[i]).begin);
    EXPECT_EQ(a.end, wb::lay_out_segments(again[i]).end);
    if (one[i].layout != wb::segment_layout::huge) {  // huge has no draws
      EXPECT_NE(a.end, wb::lay_out_segments(other[i]).end);
    }
  }
  // Each case draws its own lengths: mean-16's are not mean-4's scaled.
  EXPECT_NE(one[0].seed, one[1].seed);
}

TEST(SegmentCases, HugeIsSixteenEqualSegments) {
  for (std::int64_t n : {std::int64_t(1) << 26, std::int64_t(1000003)}) {
    const auto cases = wb::segment_cases(n, 1);
    const wb::segment_case& huge = cases[6];
    EXPECT_EQ(huge.layout, wb::segment_layout::huge);
    const std::vector<std::int64_t> lengths = lengths_of(wb::lay_out_segments(huge));
    ASSERT_EQ(lengths.size(), 16u);
    for (std::size_t s = 0; s + 1 < lengths.size(); ++s) EXPECT_EQ(lengths[s], n / 16);
    EXPECT_EQ(lengths.back(), n - 15 * (n / 16));  // what n / 16 leaves over
  }
  EXPECT_EQ(lengths_of(wb::lay_out_segments(case_named(wb::segment_cases(1 << 26, 1), "huge-16x4194304"))).front(),
            std::int64_t(1) << 22);
}

TEST(SegmentCases, MixHasEveryScaleAndFourHugeSegments) {
  const std::int64_t n = wb::default_segment_elements;
  const wb::segment_case mix = case_named(wb::segment_cases(n, 1), "mix");
  const wb::segment_offsets offsets = wb::lay_out_segments(mix);
  expect_back_to_back(offsets, n, "mix");
  const std::vector<std::int64_t> lengths = lengths_of(offsets);
  const auto count = [&](std::int64_t low, std::int64_t high) {
    return std::count_if(lengths.begin(), lengths.end(), [&](std::int64_t l) { return l >= low && l <= high; });
  };
  EXPECT_EQ(count(n / 16, n / 16), wb::mix_huge_segments) << "four segments of 2^22";
  EXPECT_EQ(count(n / 16 + 1, n), 0);
  EXPECT_GT(count(0, 0), 1000) << "empty segments, from the short means";
  EXPECT_GT(count(3, 8), 1000) << "mean-4's";
  EXPECT_GT(count(129, 2048), 100) << "mean-1024's";
  EXPECT_GT(count(2049, 2 * 65536), 10) << "mean-65536's";
  // The huge segments lie inside the array, not all at one end.
  std::vector<std::int64_t> huge_begins;
  for (std::size_t s = 0; s < lengths.size(); ++s)
    if (lengths[s] == n / 16) huge_begins.push_back(offsets.begin[s]);
  ASSERT_EQ(huge_begins.size(), 4u);
  EXPECT_GT(huge_begins.front(), 0);
  EXPECT_LT(huge_begins.back(), n - n / 16);
}

TEST(SegmentTraffic, ElementsBothOffsetArraysAndTheOutputs) {
  const wb::segment_traffic t = wb::traffic_of(std::int64_t(1) << 26, 1000);
  EXPECT_EQ(t.bytes_in, (std::int64_t(1) << 28) + 2 * 8 * 1000);
  EXPECT_EQ(t.bytes_out, 4 * 1000);
  EXPECT_EQ(t.bytes(), (std::int64_t(1) << 28) + 20 * 1000);
  // mean-1 at the default n: about 2^26 segments, so the offsets and outputs outweigh the elements.
  const wb::segment_traffic tiny = wb::traffic_of(std::int64_t(1) << 26, std::int64_t(1) << 26);
  EXPECT_EQ(tiny.bytes(), std::int64_t(24) << 26);
}

TEST(SegmentReference, SumsEachSegmentEmptyOnesToo) {
  const std::vector<float> data = {1, 2, 3, 4, 5, -6, 0.5f};
  wb::segment_offsets o;
  o.begin = {0, 2, 2, 5};
  o.end = {2, 2, 5, 7};  // [1, 2], [], [3, 4, 5], [-6, 0.5]
  const wb::segment_reference r = wb::compute_segment_reference(data.data(), o);
  EXPECT_EQ(r.sum, (std::vector<double>{3, 0, 12, -5.5}));
  EXPECT_LT(r.tolerance[1], 1e-300) << "an empty segment must be exactly 0";
  EXPECT_TRUE(wb::check_segment_outputs(r, {3, 0, 12, -5.5}).ok);
  wb::check_outcome wrong = wb::check_segment_outputs(r, {3, 1e-6, 12, -5.5});
  EXPECT_FALSE(wrong.ok);
  EXPECT_NE(wrong.detail.find("1 of 4 outputs wrong"), std::string::npos) << wrong.detail;
  EXPECT_NE(wrong.detail.find("output 1"), std::string::npos) << wrong.detail;
  EXPECT_FALSE(wb::check_segment_outputs(r, {3, 0, std::numeric_limits<double>::quiet_NaN(), -5.5}).ok);
  EXPECT_FALSE(wb::check_segment_outputs(r, {3, 0, 12}).ok);
  o.end.pop_back();
  EXPECT_THROW(wb::compute_segment_reference(data.data(), o), warpfold::invalid_argument);
}

TEST(SegmentReference, ToleranceGrowsWithEachSegmentsLength) {
  // One segment of 2^18 and one of 4, in one reference: the same relative error passes for
  // the long one and fails for the short one.
  const std::int64_t long_length = std::int64_t(1) << 18;
  const std::vector<float> data(static_cast<std::size_t>(long_length + 4), 0.5f);
  wb::segment_offsets o;
  o.begin = {0, long_length};
  o.end = {long_length, long_length + 4};
  const wb::segment_reference r = wb::compute_segment_reference(data.data(), o);
  const double relative = 1e-5;  // ~84 float epsilons
  EXPECT_TRUE(wb::check_segment_outputs(r, {r.sum[0] * (1 + relative), r.sum[1]}).ok);
  EXPECT_FALSE(wb::check_segment_outputs(r, {r.sum[0], r.sum[1] * (1 + relative)}).ok);
}

TEST(SegmentCheck, RightFloatOutputsOfEveryCasePass) {
  // The bench's input kind (floats in [0, 1)) over every layout at a small n, each output
  // rounded to float as a GPU returns it.
  const std::int64_t n = 1 << 18;
  std::vector<float> data(static_cast<std::size_t>(n));
  std::uint32_t state = 12345;
  for (float& x : data) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) * 0x1p-24f;
  }
  for (const wb::segment_case& c : wb::segment_cases(n, 3)) {
    const wb::segment_offsets o = wb::lay_out_segments(c);
    const wb::segment_reference r = wb::compute_segment_reference(data.data(), o);
    std::vector<double> got;
    for (std::size_t s = 0; s < o.begin.size(); ++s) {
      float sum = 0;  // a plain sequential float sum: the loosest order a correct implementation uses
      for (std::int64_t i = o.begin[s]; i < o.end[s]; ++i) sum += data[static_cast<std::size_t>(i)];
      got.push_back(sum);
    }
    const wb::check_outcome outcome = wb::check_segment_outputs(r, got);
    EXPECT_TRUE(outcome.ok) << c.name << ": " << outcome.detail;
  }
}

namespace {

wb::measurement segment_row(const std::string& impl, double time_us) {
  const wb::segment_traffic t = wb::traffic_of(std::int64_t(1) << 26, 1048576);
  wb::measurement m = cpu_test::measured_row(impl, impl == "warpfold" ? "production" : "baseline", t.bytes(), time_us);
  m.case_id = "mean-64";
  m.segments = 1048576;
  m.n = std::int64_t(1) << 26;
  m.bytes_in = t.bytes_in;
  m.bytes_out = t.bytes_out;
  return m;
}

const auto field = cpu_test::csv_field;

}  // namespace

TEST(SegmentCsv, StartsWithCaseImplSegmentsNAndTheTimes) {
  cpu_test::expect_csv_columns(wb::segment_csv_columns(), {"case", "impl", "segments", "n", "bytes", "time_us"},
                               {"gbps", "ceiling_gbps", "pct_of_ceiling", "bytes_in", "bytes_out", "status", "note"});
}

TEST(SegmentCsv, RowsParseBackWithTheirValues) {
  wb::measurement failed = segment_row("cub", 0);
  failed.ok = false;
  failed.error = "wrong answer on buffer 0: 3 of 1048576 outputs wrong";
  std::ostringstream out;
  wb::write_segment_csv(out, {segment_row("warpfold", 120.5), failed});
  const auto rows = cpu_test::parse_csv(out.str());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], wb::segment_csv_columns());
  // 2^28 bytes of elements, 16 bytes of offsets and 4 of output per segment.
  cpu_test::expect_csv_fields(rows, 1,
                              {{"case", "mean-64"},
                               {"impl", "warpfold"},
                               {"segments", "1048576"},
                               {"n", "67108864"},
                               {"bytes", std::to_string((std::int64_t(1) << 28) + 20 * 1048576)},
                               {"bytes_in", std::to_string((std::int64_t(1) << 28) + 16 * 1048576)},
                               {"bytes_out", std::to_string(4 * 1048576)},
                               {"status", "ok"}});
  EXPECT_DOUBLE_EQ(std::stod(field(rows, 1, "time_us")), 120.5);
  EXPECT_NEAR(std::stod(field(rows, 1, "gbps")), double((std::int64_t(1) << 28) + 20 * 1048576) / 120.5e3, 0.01);
  EXPECT_DOUBLE_EQ(std::stod(field(rows, 1, "ceiling_gbps")), 3100.0);
  cpu_test::expect_csv_fields(rows, 2, {{"status", "FAILED"}, {"time_us", ""}, {"gbps", ""}});
  EXPECT_NE(field(rows, 2, "note").find("outputs wrong"), std::string::npos);

  // The JSON rows name the case and its segments too.
  wb::run_record run;
  run.measurements = {segment_row("warpfold", 120.5)};
  std::ostringstream json;
  wb::write_json(json, run);
  const auto doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["measurements"][0]["case"], "mean-64");
  EXPECT_EQ(doc["measurements"][0]["segments"], 1048576);
  EXPECT_EQ(doc["measurements"][0]["bytes_in"], (std::int64_t(1) << 28) + 16 * 1048576);
}
