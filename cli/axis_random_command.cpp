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
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "axis_command.hpp"
#include "bench/axis_random.hpp"
#include "bench/device.hpp"
#include "bench/output.hpp"
#include "bench/pool.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "bench/view_implementation.hpp"
#include "bench/view_reference.hpp"
#include "bench_common.hpp"
#include "warpfold/error.hpp"

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
  return "case " + m.case_index + ": " + m.dtype + " " + m.shape + " over " + m.dims + ", " + m.view;
}

// The references of one case, one per buffer of its pool, each computed from a host copy of
// that buffer the first time a check asks for it (outside any timed region).
class view_references {
 public:
  view_references(bench::input_pool& pool, const bench::view_case& c) : pool_(pool), case_(c) {}
  const bench::view_reference& of(int buffer) {
    const auto found = references_.find(buffer);
    if (found != references_.end()) return found->second;
    std::vector<unsigned char> copy(static_cast<std::size_t>(pool_.buffer_bytes()));
    WARPFOLD_CUDA_CHECK(cudaMemcpy(copy.data(), pool_.buffer(buffer), copy.size(), cudaMemcpyDeviceToHost));
    return references_.emplace(buffer, bench::compute_view_reference(case_, copy.data())).first->second;
  }

 private:
  bench::input_pool& pool_;
  bench::view_case case_;
  std::map<int, bench::view_reference> references_;
};

measurement case_row(const bench::view_case& c, int output_bytes, const bench::input_pool& pool,
                     const bench::timing_options& timing, const std::string& device_name, double ceiling_gbps) {
  measurement m;
  m.impl = "warpfold";
  m.family = "production";
  m.dtype = std::string(bench::name(c.type));
  m.n = c.elements();
  m.shape = bench::join_extents(c.extents);
  m.dims = bench::join_dims(c.dims);
  m.bytes_in = c.bytes_in();
  m.bytes_out = c.bytes_out(output_bytes);
  m.bytes = m.bytes_in + m.bytes_out;
  m.ceiling_gbps = ceiling_gbps;
  m.trials = timing.trials;
  m.buffers = pool.buffers();
  m.device = device_name;
  m.case_index = std::to_string(c.index);
  m.strides = bench::join_extents(c.strides);
  m.offset = c.offset;
  m.parent = c.parent;
  m.view = c.view;
  return m;
}

measurement measure_view_case(const bench::view_case& c, const bench::device_description& device,
                              const bench::timing_options& timing, double ceiling_gbps, std::uint64_t seed,
                              cudaStream_t stream, progress& bar) {
  bench::input_pool pool(c.type, c.parent, device.l2_bytes, seed ^ (0x9e3779b97f4a7c15ull * (c.index + 1)), stream);
  view_references references(pool, c);
  const int output_bytes = bench::make_view_warpfold(c)->output_bytes();
  std::vector<contender> one(1);
  one[0].row = case_row(c, output_bytes, pool, timing, device.name, ceiling_gbps);
  one[0].label = "warpfold";
  one[0].open = [&c, &pool, &references, &timing, stream] {
    std::unique_ptr<bench::view_implementation> impl = bench::make_view_warpfold(c);
    bench::view_implementation& answers = *impl;
    auto check = [&answers, &references, &c, stream](int buffer) {
      return bench::check_view_outputs(c, references.of(buffer), answers.fetch_outputs(stream));
    };
    auto session = std::make_unique<bench::timing_session>(*impl, pool, check, timing, stream);
    return contender::opened{std::move(impl), std::move(session)};
  };
  return measure_interleaved(one, timing.trials, bench::describe(c) + ": ", bar).front();
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
    std::vector<std::string> cells = {m.case_index, m.dtype, m.shape, m.dims, m.view,
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
    if (!m.ok) out << "FAILED case " << m.case_index << ": " << m.error << "\n";
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
  const bench::device_description device = bench::open_device(o.device);

  const bench::timing_options timing = timing_of(o);
  bench::run_record record = new_record(device, timing);

  progress bar(!o.quiet, static_cast<int>(cases.size()));
  owned_stream stream;
  const ceilings ceiling = begin_run(o, device, timing, stream, bar, record);
  const double launch_floor_us = ceiling.launch_dependent.ok ? ceiling.launch_dependent.time_us : ceiling.launch.time_us;
  std::cout << "axis      " << cases.size() << " random cases from seed " << o.seed
            << ": sums over a random set of axes of N-D arrays and views (f32, f16, bf16 and i32),\n"
            << "          into a device output. GB/s = (bytes of the view's elements + bytes written) / time.\n"
            << "          Every output is checked against a host reference walking the view's strides.\n"
            << std::flush;

  auto write_outputs = [&] {
    if (!o.csv_path.empty()) bench::write_random_axis_csv_file(o.csv_path, record.measurements);
    if (!o.json_path.empty()) bench::write_json_file(o.json_path, record);
  };
  std::vector<measurement> rows;
  bool any_failed = false;
  try {
    for (const bench::view_case& c : cases) {
      const std::int64_t needed = bench::input_pool::bytes_needed(c.type, c.parent, device.l2_bytes) +
                                  c.outputs() * 8 + (std::int64_t(512) << 20);
      if (needed > bench::free_device_memory()) {
        bar.note("note: skipping " + bench::describe(c) + ": not enough free device memory");
        bar.skip(1);
        continue;
      }
      const measurement m = measure_view_case(c, device, timing, ceiling.read.gbps, o.seed, stream, bar);
      bar.result(bench::describe(c), m);
      any_failed = any_failed || !m.ok;
      record.measurements.push_back(m);
      rows.push_back(m);
    }
  } catch (...) {
    bar.clear();
    write_outputs();
    throw;
  }
  bar.clear();
  print_random_table(std::cout, rows, launch_floor_us);
  print_random_summary(std::cout, rows, launch_floor_us);
  write_outputs();
  return exit_code_after(any_failed);
}

}  // namespace warpfold::cli
