// `warpfold bench --axis --random K --seed S`: K random axis cases (bench/axis_random.hpp),
// each a sum over some axes of an N-D array or strided view in f32, f16, bf16 or i32, timed
// with the bench's method next to the read ceiling measured in the same run, every output
// checked against a host reference that walks the view's own strides. Prints each case's
// share of the ceiling, then the worst and the median, separately for the cases of 64 MiB
// and more (whose share is the target) and for the smaller ones (held to the launch floor
// plus their bytes at 85% of the ceiling).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "axis_command.hpp"
#include "bench/axis_random.hpp"
#include "bench/buffer_references.hpp"
#include "bench/device.hpp"
#include "bench/output.hpp"
#include "bench/pool.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "bench/view_implementation.hpp"
#include "bench/view_reference.hpp"
#include "bench_common.hpp"

namespace warpfold::cli {
namespace {

using bench::measurement;

constexpr std::int64_t large_case_bytes = std::int64_t(64) << 20;  // the share-of-ceiling targets start here
constexpr double small_case_share = 0.85;                         // smaller cases: floor + bytes at 85%

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// "case 7 (f16 64x128x8 over 1, sliced)"
std::string describe_row(const measurement& m) {
  return "case " + m.case_id + ": " + m.dtype + " " + m.shape + " over " + m.dims + ", " + m.view;
}

// The pool holds the view's parent; n counts the view's own elements.
measurement case_row(const bench::view_case& c, int output_bytes, const bench::input_pool& pool,
                     const case_context& at) {
  measurement m = pending_row("warpfold", "production", pool, at.timing, at.device.name, at.ceiling.read.gbps);
  m.n = c.elements();
  m.shape = bench::join_extents(c.extents);
  m.dims = bench::join_dims(c.dims);
  m.bytes_in = c.bytes_in();
  m.bytes_out = c.bytes_out(output_bytes);
  m.bytes = m.bytes_in + m.bytes_out;
  m.case_id = std::to_string(c.index);
  m.strides = bench::join_extents(c.strides);
  m.offset = c.offset;
  m.parent = c.parent;
  m.view = c.view;
  return m;
}

std::vector<measurement> measure_view_case(const bench::view_case& c, std::uint64_t seed, const case_context& at) {
  const cudaStream_t stream = at.stream;
  bench::input_pool pool(c.type, c.parent, at.device.l2_bytes, seed ^ (0x9e3779b97f4a7c15ull * (c.index + 1)), stream);
  bench::buffer_references<bench::view_reference> references(
      pool, [&c](const void* host_copy) { return bench::compute_view_reference(c, host_copy); });
  const int output_bytes = bench::make_view_warpfold(c)->output_bytes();
  std::vector<contender> one(1);
  one[0].row = case_row(c, output_bytes, pool, at);
  one[0].label = "warpfold";
  const bench::timing_options& timing = at.timing;
  one[0].open = [&c, &pool, &references, &timing, stream] {
    std::unique_ptr<bench::view_implementation> impl = bench::make_view_warpfold(c);
    bench::view_implementation& answers = *impl;
    auto check = [&answers, &references, &c, stream](int buffer) {
      return bench::check_view_outputs(c, references.of(buffer), answers.fetch_outputs(stream));
    };
    auto session = std::make_unique<bench::timing_session>(*impl, pool, check, timing, stream);
    return contender::opened{std::move(impl), std::move(session)};
  };
  return measure_interleaved(one, timing.trials, bench::describe(c) + ": ", at.bar);
}

// A small case meets its target when it takes at most the launch floor plus its bytes at
// 85% of the read ceiling; this is that time's share of the measured one (>= 1: met).
double small_case_margin(const measurement& m, double launch_floor_us) {
  const double allowed_us = launch_floor_us + double(m.bytes) / (small_case_share * m.ceiling_gbps * 1e3);
  return allowed_us / m.time_us;
}

void print_random_table(std::ostream& out, const std::vector<measurement>& rows, double launch_floor_us) {
  bench::text_table table;
  for (const char* h : {"case", "dtype", "shape", "dims", "view"}) table.add_column(h, bench::align::left);
  for (const char* h : {"MiB in", "time µs", "GB/s", "% of read", "small-case margin"}) table.add_column(h);
  for (const measurement& m : rows) {
    std::vector<std::string> cells = {m.case_id, m.dtype, m.shape, m.dims, m.view,
                                      fixed(double(m.bytes_in) / (1 << 20), 1)};
    if (m.ok) {
      cells.insert(cells.end(), {bench::format_time_us(m.time_us), bench::format_gbps(m.gbps),
                                 bench::format_percent(m.percent_of_ceiling()),
                                 m.bytes_in < large_case_bytes ? fixed(small_case_margin(m, launch_floor_us), 2) + "x"
                                                               : std::string("-")});
    } else {
      cells.insert(cells.end(), {"FAILED", "-", "-", "-"});
    }
    table.add_row(std::move(cells));
  }
  out << "\n" << table.render();
  for (const measurement& m : rows)
    if (!m.ok) out << "FAILED case " << m.case_id << ": " << m.error << "\n";
}

// The worst and the median share of the ceiling over the large cases, and the worst margin
// of the small ones.
void print_random_summary(std::ostream& out, const std::vector<measurement>& rows, double launch_floor_us) {
  std::vector<const measurement*> large, small;
  for (const measurement& m : rows)
    if (m.has_bandwidth()) (m.bytes_in >= large_case_bytes ? large : small).push_back(&m);
  auto by_share = [](const measurement* a, const measurement* b) { return a->percent_of_ceiling() < b->percent_of_ceiling(); };
  if (!large.empty()) {
    std::sort(large.begin(), large.end(), by_share);
    const measurement& worst = *large.front();
    const std::size_t k = large.size();
    const double median = k % 2 ? large[k / 2]->percent_of_ceiling()
                                : (large[k / 2 - 1]->percent_of_ceiling() + large[k / 2]->percent_of_ceiling()) / 2;
    out << "cases >= 64 MiB: " << k << "; worst " << bench::format_percent(worst.percent_of_ceiling())
        << "% of the read ceiling (" << describe_row(worst) << "), median " << bench::format_percent(median) << "%\n";
  }
  if (!small.empty()) {
    auto margin = [&](const measurement* m) { return small_case_margin(*m, launch_floor_us); };
    const measurement* worst = *std::min_element(small.begin(), small.end(),
                                                 [&](const measurement* a, const measurement* b) { return margin(a) < margin(b); });
    out << "cases < 64 MiB: " << small.size() << "; worst margin " << fixed(margin(worst), 2)
        << "x of (launch floor " << fixed(launch_floor_us, 2) << " µs + bytes at 85% of the ceiling) ("
        << describe_row(*worst) << ")\n";
  }
}

}  // namespace

int run_axis_random_bench(const bench_options& o) {
  bench::require_device(o.device);
  const std::vector<bench::view_case> cases = bench::random_view_cases(o.random_cases, o.seed);

  case_bench random;
  random.measurements = static_cast<int>(cases.size());
  random.print_legend = [&](std::ostream& out) {
    out << "axis      " << cases.size() << " random cases from seed " << o.seed
        << ": sums over a random set of axes of N-D arrays and views (f32, f16, bf16 and i32),\n"
        << "          into a device output. GB/s = (bytes of the view's elements + bytes written) / time.\n"
        << "          Every output is checked against a host reference walking the view's strides.\n";
  };
  random.measure = [&](const case_context& at, const keep_rows& keep) {
    for (const bench::view_case& c : cases) {
      if (!o.random_only.empty() &&
          std::find(o.random_only.begin(), o.random_only.end(), c.index) == o.random_only.end())
        continue;
      const std::int64_t needed = bench::input_pool::bytes_needed(c.type, c.parent, at.device.l2_bytes) +
                                  c.outputs() * 8 + (std::int64_t(512) << 20);
      if (!fits_in_device_memory(bench::describe(c), needed, 1, at.bar)) continue;
      keep(bench::describe(c), measure_view_case(c, o.seed, at));
    }
  };
  random.print_results = [](std::ostream& out, const std::vector<measurement>& rows, const ceilings& ceiling) {
    const double launch_floor_us =
        ceiling.launch_dependent.ok ? ceiling.launch_dependent.time_us : ceiling.launch.time_us;
    print_random_table(out, rows, launch_floor_us);
    print_random_summary(out, rows, launch_floor_us);
  };
  random.write_csv_file = bench::write_random_axis_csv_file;
  return run_case_bench(o, random);
}

}  // namespace warpfold::cli
